"""PyTorch's ``pin_memory=`` on every creation function and ``new_*`` method that takes it, and on
``tensor``.  ``False`` (the default; ``None`` too, but for ``tensor``) makes what the call without it
makes; ``True`` is the result's ``pin_memory()`` -- PyTorch's RuntimeError where no accelerator offers
pinned memory, a copy marked pinned where CuPy has a GPU; anything but a bool is PyTorch's TypeError.
The keyword was a TypeError of its own (``zeros() got an unexpected keyword argument 'pin_memory'``),
so ported code such as ``torch.empty(n, pin_memory=torch.cuda.is_available())`` failed.  Found
porting PyTorch code that spells the keyword out; the list below is torch 2.13's, read offline from
its operator schemas (those with a ``layout`` argument, the same set) and its Python bindings (``tensor``
takes it; ``as_tensor``, ``asarray``, ``new_tensor`` and ``Tensor.to`` refuse it)."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import creation
from minigrad_ckpt.functional import tensor_methods
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)

#: torch 2.13's public functions and Tensor methods that take ``pin_memory`` (``fft_fftfreq`` as
#: ``fft.fftfreq``)
TORCH_TAKES_PIN_MEMORY = (
    "arange", "bartlett_window", "blackman_window", "empty", "empty_like", "empty_permuted", "empty_quantized",
    "empty_strided", "eye", "fft.fftfreq", "fft.rfftfreq", "from_file", "full", "full_like", "hamming_window",
    "hann_window", "kaiser_window", "linspace", "logspace", "normal", "ones", "ones_like", "rand", "rand_like",
    "randint", "randint_like", "randn", "randn_like", "randperm", "range", "scalar_tensor", "sparse_bsc_tensor",
    "sparse_bsr_tensor", "sparse_compressed_tensor", "sparse_coo_tensor", "sparse_csc_tensor", "sparse_csr_tensor",
    "tensor", "tril_indices", "triu_indices", "zeros", "zeros_like",
    "Tensor.new_empty", "Tensor.new_empty_strided", "Tensor.new_full", "Tensor.new_ones", "Tensor.new_zeros",
)
#: offered here, without the keyword
NOT_OFFERED = {"empty_quantized", "from_file", "Tensor.new_empty_strided",
               "sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor", "sparse_coo_tensor",
               "sparse_csc_tensor", "sparse_csr_tensor"}

X = mg.arange(6.0).reshape(2, 3)


def _seeded() -> mg.Generator:
    return mg.Generator().manual_seed(0)


#: each function that takes ``pin_memory=``, by PyTorch's name, called with ``pin_memory=P`` (left out: ...)
CALLS = {
    "arange": lambda **P: mg.arange(1, 7, 2, **P),
    "range": lambda **P: mg.range(1, 7, 2, **P),
    "bartlett_window": lambda **P: mg.bartlett_window(5, **P),
    "blackman_window": lambda **P: mg.blackman_window(5, **P),
    "empty": lambda **P: mg.empty(2, 3, **P),
    "empty_strided": lambda **P: mg.empty_strided((2, 3), (1, 2), **P),
    "empty_permuted": lambda **P: mg.empty_permuted((2, 3), (1, 0), **P),
    "empty_like": lambda **P: mg.empty_like(X, **P),
    "eye": lambda **P: mg.eye(2, 3, **P),
    "fft.fftfreq": lambda **P: mg.fft.fftfreq(4, **P),
    "fft.rfftfreq": lambda **P: mg.fft.rfftfreq(4, **P),
    "full": lambda **P: mg.full((2, 3), 1.5, **P),
    "full_like": lambda **P: mg.full_like(X, 2.0, **P),
    "hamming_window": lambda **P: mg.hamming_window(5, **P),
    "hann_window": lambda **P: mg.hann_window(5, **P),
    "kaiser_window": lambda **P: mg.kaiser_window(5, **P),
    "linspace": lambda **P: mg.linspace(0, 1, 5, **P),
    "logspace": lambda **P: mg.logspace(0, 2, 3, **P),
    "normal": lambda **P: mg.normal(1.6, 0.3, (2, 3), generator=_seeded(), **P),
    "ones": lambda **P: mg.ones(2, 3, **P),
    "ones_like": lambda **P: mg.ones_like(X, **P),
    "rand": lambda **P: mg.rand(2, 3, generator=_seeded(), **P),
    "rand_like": lambda **P: mg.rand_like(X, generator=_seeded(), **P),
    "randint": lambda **P: mg.randint(0, 9, (2, 3), generator=_seeded(), **P),
    "randint_like": lambda **P: mg.randint_like(X, 9, generator=_seeded(), **P),
    "randn": lambda **P: mg.randn(2, 3, generator=_seeded(), **P),
    "randn_like": lambda **P: mg.randn_like(X, generator=_seeded(), **P),
    "randperm": lambda **P: mg.randperm(5, generator=_seeded(), **P),
    "scalar_tensor": lambda **P: mg.scalar_tensor(2.5, **P),
    "tensor": lambda **P: mg.tensor([[1.0, 2.0], [3.0, 4.0]], **P),
    "tril_indices": lambda **P: mg.tril_indices(3, col=3, offset=1, **P),
    "triu_indices": lambda **P: mg.triu_indices(3, col=4, **P),
    "zeros": lambda **P: mg.zeros(2, 3, **P),
    "zeros_like": lambda **P: mg.zeros_like(X, **P),
    "Tensor.new_empty": lambda **P: X.new_empty(2, 3, **P),
    "Tensor.new_full": lambda **P: X.new_full((2, 3), 4.0, **P),
    "Tensor.new_ones": lambda **P: X.new_ones(2, 3, **P),
    "Tensor.new_zeros": lambda **P: X.new_zeros((2, 3), **P),
}
#: the name PyTorch's errors give each
ERROR_NAME = {name: name.rpartition(".")[2] for name in CALLS} | {"fft.fftfreq": "fft_fftfreq",
                                                                  "fft.rfftfreq": "fft_rfftfreq"}
NO_ALLOCATOR = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
                "available on this system.")


def _offered(name: str) -> bool:
    owner, _, attr = name.rpartition(".")
    return hasattr({"": mg, "fft": mg.fft, "Tensor": mg.Tensor}[owner], attr)


def _same(made: mg.Tensor, plain: mg.Tensor) -> bool:
    return (made.dtype == plain.dtype and made.shape == plain.shape and made.device == plain.device
            and made.tolist() == plain.tolist())


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(creation, "cuda_device_count", lambda: 0)
    monkeypatch.setattr(tensor_methods, "cuda_device_count", lambda: 0)


@pytest.fixture
def a_gpu(monkeypatch):
    """As on a machine where CuPy has a GPU: ``pin_memory()`` marks its copy pinned."""
    monkeypatch.setattr(creation, "cuda_device_count", lambda: 1)
    monkeypatch.setattr(tensor_methods, "cuda_device_count", lambda: 1)


def test_every_function_that_takes_pin_memory_in_pytorch_and_is_offered_is_called_here():
    offered = {n for n in TORCH_TAKES_PIN_MEMORY if _offered(n)}
    assert offered == set(CALLS)
    assert not offered & NOT_OFFERED and offered | NOT_OFFERED == set(TORCH_TAKES_PIN_MEMORY)


def test_the_functions_pytorch_refuses_it_on_refuse_it():
    # torch 2.13: "as_tensor() got an unexpected keyword argument 'pin_memory'", and so on
    with pytest.raises(TypeError, match="pin_memory"):
        mg.as_tensor([1.0], pin_memory=False)
    with pytest.raises(TypeError, match="pin_memory"):
        mg.asarray([1.0], pin_memory=False)
    with pytest.raises(TypeError, match="pin_memory"):
        X.new_tensor([1.0], pin_memory=False)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_false_makes_what_the_call_without_it_makes(name):
    plain, made = CALLS[name](), CALLS[name](pin_memory=False)
    assert _same(made, plain) and not made.is_pinned()


@pytest.mark.parametrize("name", sorted(set(CALLS) - {"tensor"}))
def test_none_is_false_as_in_pytorch(name):
    assert _same(CALLS[name](pin_memory=None), CALLS[name]())


def test_tensor_takes_a_bool_only():
    # torch.tensor's pin_memory is a plain bool: "tensor(): argument 'pin_memory' must be bool, not NoneType"
    with pytest.raises(TypeError, match=r"^tensor\(\): argument 'pin_memory' must be bool, not NoneType$"):
        mg.tensor([1.0], pin_memory=None)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_true_without_an_accelerator_is_pytorchs_runtime_error(name, no_gpu):
    with pytest.raises(RuntimeError) as caught:
        CALLS[name](pin_memory=True)
    assert str(caught.value) == NO_ALLOCATOR


@pytest.mark.parametrize("name", sorted(CALLS))
def test_true_with_a_gpu_is_the_results_pin_memory(name, a_gpu):
    plain = CALLS[name]()
    made = CALLS[name](pin_memory=True)
    assert made.is_pinned() and not plain.is_pinned() and _same(made, plain)
    assert _same(plain.pin_memory(), made) and made.pin_memory() is made


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("wrong, kind", [("x", "str"), (1, "int"), (0, "int"), (1.0, "float"),
                                         (np.bool_(True), "numpy.bool"), (mg.tensor(True), "Tensor")])
def test_what_is_not_a_bool_is_pytorchs_type_error(name, wrong, kind):
    with pytest.raises(TypeError, match=rf"^{ERROR_NAME[name]}\(\): argument 'pin_memory' must be bool, not {kind}$"):
        CALLS[name](pin_memory=wrong)


def test_a_leaf_that_requires_grad_stays_a_leaf_when_pinned(a_gpu):
    for made in (mg.zeros(2, requires_grad=True, pin_memory=True), mg.tensor([1.0, 2.0], requires_grad=True,
                 pin_memory=True), mg.empty(2, requires_grad=True, pin_memory=True),
                 X.new_ones(2, requires_grad=True, pin_memory=True)):
        assert made.is_pinned() and made.is_leaf and made.requires_grad
        (made * 3).sum().backward()
        assert made.grad.tolist() == [3.0, 3.0]


def test_a_memory_format_survives_pinning(a_gpu):
    made = mg.empty(2, 3, 4, 5, memory_format=mg.channels_last, pin_memory=True)
    assert made.is_pinned() and made.is_contiguous(memory_format=mg.channels_last)
    like = mg.zeros_like(made, pin_memory=True)
    assert like.is_pinned() and like.is_contiguous(memory_format=mg.channels_last)


def test_on_the_strict_device_true_is_refused_and_false_taken():
    # PyTorch's empty_cuda: "Only dense CPU tensors can be pinned" (the strict device stands in for a GPU)
    on_strict = mg.ones(2, device="strict")
    assert mg.zeros(2, device="strict", pin_memory=False).device.type == "strict"
    assert mg.full_like(on_strict, 3.0, pin_memory=False).device.type == "strict"
    for call in (lambda: mg.zeros(2, device="strict", pin_memory=True),
                 lambda: mg.full_like(on_strict, 3.0, pin_memory=True),
                 lambda: on_strict.new_zeros(2, pin_memory=True)):
        with pytest.raises(RuntimeError, match="^Only dense CPU tensors can be pinned$"):
            call()


def test_on_the_meta_device_there_is_nothing_to_pin(no_gpu):
    # torch 2.13: zeros, zeros_like, new_zeros, tensor, fftfreq (and eye) on "meta" take pin_memory=True and
    # answer a meta tensor, not pinned (a few others, decomposed by PrimTorch, raise NotImplementedError)
    on_meta = mg.zeros(2, device="meta")
    for made in (mg.zeros(2, 3, device="meta", pin_memory=True), on_meta.new_zeros(3, pin_memory=True),
                 mg.zeros_like(on_meta, pin_memory=True), mg.tensor([1.0], device="meta", pin_memory=True),
                 mg.fft.fftfreq(4, device="meta", pin_memory=True), mg.randn(3, device="meta", pin_memory=False)):
        assert made.device.type == "meta" and not made.is_pinned()
    with pytest.raises(TypeError, match="argument 'pin_memory' must be bool"):
        mg.zeros(2, device="meta", pin_memory="yes")


def test_with_out_the_values_go_into_out_as_it_is(no_gpu):
    # torch 2.13: zeros(3, out=o, pin_memory=True) is o, written and not pinned -- also without a GPU
    out = mg.empty(3)
    assert mg.zeros(3, out=out, pin_memory=True) is out and out.tolist() == [0.0] * 3 and not out.is_pinned()
    assert mg.arange(3.0, out=out, pin_memory=True) is out and out.tolist() == [0.0, 1.0, 2.0]
    assert mg.full((3,), 2.0, out=out, pin_memory=False) is out and out.tolist() == [2.0] * 3
    square = mg.empty(2, 2)
    assert mg.eye(2, out=square, pin_memory=True) is square and square.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'pin_memory' must be bool, not str$"):
        mg.zeros(3, out=out, pin_memory="x")


def test_the_ported_idiom(no_gpu):
    pin = mg.cuda.is_available()
    staged = mg.empty(4, pin_memory=pin)
    assert staged.shape == (4,) and not staged.is_pinned()


def test_with_a_tensor_mean_normal_takes_no_pin_memory():
    # torch 2.13: normal(tensor, float, pin_memory=...) is "normal() received an invalid combination of arguments"
    with pytest.raises(TypeError, match=r"normal\(\) received an invalid combination of arguments"):
        mg.normal(X, 1.0, pin_memory=True)


def test_tril_indices_in_pytorchs_positional_form():
    # pin_memory= is one of PyTorch's factory keywords: (row, col) by position is then PyTorch's form
    assert mg.tril_indices(3, 3, pin_memory=False).tolist() == mg.tril_indices(3, col=3).tolist()


def test_inside_vmap_and_grad():
    def f(x):
        return (x * mg.ones_like(x, pin_memory=False) + mg.zeros(x.shape, pin_memory=None)).sum()
    assert mg.func.vmap(f)(X).tolist() == [3.0, 12.0]
    assert mg.func.grad(f)(X[0]).tolist() == [1.0, 1.0, 1.0]
