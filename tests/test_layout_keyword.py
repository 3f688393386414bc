"""PyTorch's ``layout=`` on every creation function and ``new_*`` method that takes it, ``mg.strided``
and ``x.layout``.  Every tensor here is one dense array, so ``mg.strided`` (or ``None``) is the one
layout there is; anything else is PyTorch's ``TypeError`` for what is not a layout.  The keyword was a
TypeError of its own (``zeros() got an unexpected keyword argument 'layout'``), so ported code such as
``torch.normal(1.6, 0.3, size, layout=torch.strided)`` failed; ``x.layout`` was an AttributeError;
``triu_indices(..., layout=...)`` took anything.  Found porting PyTorch code that spells the keyword
out; the list below is torch 2.13's, read offline from its operator schemas."""
from __future__ import annotations

import copy
import pickle

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)

#: torch 2.13's public functions and Tensor methods whose schema has a ``layout`` argument (aten's
#: operator schemas, read offline; ``fft_fftfreq`` as ``fft.fftfreq``)
TORCH_TAKES_LAYOUT = (
    "arange", "bartlett_window", "blackman_window", "empty", "empty_like", "empty_permuted", "empty_quantized",
    "empty_strided", "eye", "fft.fftfreq", "fft.rfftfreq", "from_file", "full", "full_like", "hamming_window",
    "hann_window", "kaiser_window", "linspace", "logspace", "normal", "ones", "ones_like", "rand", "rand_like",
    "randint", "randint_like", "randn", "randn_like", "randperm", "range", "scalar_tensor", "sparse_bsc_tensor",
    "sparse_bsr_tensor", "sparse_compressed_tensor", "sparse_coo_tensor", "sparse_csc_tensor", "sparse_csr_tensor",
    "tril_indices", "triu_indices", "zeros", "zeros_like",
    "Tensor.new_empty", "Tensor.new_empty_strided", "Tensor.new_full", "Tensor.new_ones", "Tensor.new_zeros",
)

X = mg.arange(6.0).reshape(2, 3)

#: each function that takes ``layout=``, by PyTorch's name, called with ``layout=L``
CALLS = {
    "arange": lambda L: mg.arange(1, 7, 2, layout=L),
    "range": lambda L: mg.range(1, 7, 2, layout=L),
    "bartlett_window": lambda L: mg.bartlett_window(5, layout=L),
    "blackman_window": lambda L: mg.blackman_window(5, layout=L),
    "empty": lambda L: mg.empty(2, 3, layout=L),
    "empty_strided": lambda L: mg.empty_strided((2, 3), (1, 2), layout=L),
    "empty_permuted": lambda L: mg.empty_permuted((2, 3), (1, 0), layout=L),
    "empty_like": lambda L: mg.empty_like(X, layout=L),
    "eye": lambda L: mg.eye(2, 3, layout=L),
    "fft.fftfreq": lambda L: mg.fft.fftfreq(4, layout=L),
    "fft.rfftfreq": lambda L: mg.fft.rfftfreq(4, layout=L),
    "full": lambda L: mg.full((2, 3), 1.5, layout=L),
    "full_like": lambda L: mg.full_like(X, 2.0, layout=L),
    "hamming_window": lambda L: mg.hamming_window(5, layout=L),
    "hann_window": lambda L: mg.hann_window(5, layout=L),
    "kaiser_window": lambda L: mg.kaiser_window(5, layout=L),
    "linspace": lambda L: mg.linspace(0, 1, 5, layout=L),
    "logspace": lambda L: mg.logspace(0, 2, 3, layout=L),
    "normal": lambda L: mg.normal(1.6, 0.3, (2, 3), generator=mg.Generator().manual_seed(0), layout=L),
    "ones": lambda L: mg.ones(2, 3, layout=L),
    "ones_like": lambda L: mg.ones_like(X, layout=L),
    "rand": lambda L: mg.rand(2, 3, generator=mg.Generator().manual_seed(0), layout=L),
    "rand_like": lambda L: mg.rand_like(X, generator=mg.Generator().manual_seed(0), layout=L),
    "randint": lambda L: mg.randint(0, 9, (2, 3), generator=mg.Generator().manual_seed(0), layout=L),
    "randint_like": lambda L: mg.randint_like(X, 9, generator=mg.Generator().manual_seed(0), layout=L),
    "randn": lambda L: mg.randn(2, 3, generator=mg.Generator().manual_seed(0), layout=L),
    "randn_like": lambda L: mg.randn_like(X, generator=mg.Generator().manual_seed(0), layout=L),
    "randperm": lambda L: mg.randperm(5, generator=mg.Generator().manual_seed(0), layout=L),
    "scalar_tensor": lambda L: mg.scalar_tensor(2.5, layout=L),
    "tril_indices": lambda L: mg.tril_indices(3, col=3, offset=1, layout=L),
    "triu_indices": lambda L: mg.triu_indices(3, col=4, layout=L),
    "zeros": lambda L: mg.zeros(2, 3, layout=L),
    "zeros_like": lambda L: mg.zeros_like(X, layout=L),
    "Tensor.new_empty": lambda L: X.new_empty(2, 3, layout=L),
    "Tensor.new_full": lambda L: X.new_full((2, 3), 4.0, layout=L),
    "Tensor.new_ones": lambda L: X.new_ones(2, 3, layout=L),
    "Tensor.new_zeros": lambda L: X.new_zeros((2, 3), layout=L),
}
NOT_OFFERED = {"empty_quantized", "from_file", "Tensor.new_empty_strided",
               "sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor", "sparse_coo_tensor",
               "sparse_csc_tensor", "sparse_csr_tensor"}


def _offered(name: str) -> bool:
    owner, _, attr = name.rpartition(".")
    return hasattr({"": mg, "fft": mg.fft, "Tensor": mg.Tensor}[owner], attr)


def test_every_function_that_takes_layout_in_pytorch_and_is_offered_is_called_here():
    offered = {n for n in TORCH_TAKES_LAYOUT if _offered(n)}
    assert offered == set(CALLS)
    assert not offered & NOT_OFFERED and offered | NOT_OFFERED == set(TORCH_TAKES_LAYOUT)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strided_and_none_make_what_the_call_without_layout_makes(name):
    call = CALLS[name]
    plain, strided, none = call(None), call(mg.strided), call(None)
    for made in (strided, none):
        made = made if isinstance(made, mg.Tensor) else made[0]
        assert made.layout is mg.strided
    assert (strided == plain).all() and strided.dtype == plain.dtype and strided.shape == plain.shape
    assert (none == plain).all()


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("wrong, kind", [("strided", "str"), (1, "int"), (mg.channels_last, "MemoryFormat")])
def test_what_is_not_a_layout_is_pytorchs_type_error(name, wrong, kind):
    function = name.rpartition(".")[2].replace("fftfreq", "fft_fftfreq").replace("rfft_fftfreq", "fft_rfftfreq")
    with pytest.raises(TypeError, match=rf"^{function}\(\): argument 'layout' must be torch.layout, not {kind}$"):
        CALLS[name](wrong)


def test_the_layout_is_refused_before_the_other_arguments_are_read():
    # (PyTorch's argument parser refuses it before it reads the negative size)
    with pytest.raises(TypeError, match="argument 'layout' must be torch.layout"):
        mg.zeros(-1, layout="strided")
    with pytest.raises(TypeError, match="argument 'layout' must be torch.layout"):
        mg.zeros_like([1.0], layout=0)


def test_the_keyword_combines_with_out_meta_strict_and_requires_grad():
    out = mg.empty(3)
    assert mg.ones(3, layout=mg.strided, out=out) is out and out.tolist() == [1.0, 1.0, 1.0]
    meta = mg.zeros(2, 3, device="meta", layout=mg.strided)
    assert meta.layout is mg.strided and meta.device.type == "meta"
    on_strict = mg.full_like(mg.ones(2, device="strict"), 3.0, layout=mg.strided)
    assert on_strict.device.type == "strict" and on_strict.layout is mg.strided
    leaf = mg.zeros(2, requires_grad=True, layout=mg.strided)
    (leaf * 3).sum().backward()
    assert leaf.is_leaf and leaf.grad.tolist() == [3.0, 3.0]


def test_inside_vmap_and_grad():
    def f(x):
        assert x.layout is mg.strided
        return (x * mg.ones_like(x, layout=mg.strided) + mg.zeros(x.shape, layout=None)).sum()
    assert mg.func.vmap(f)(X).tolist() == [3.0, 12.0]
    assert mg.func.grad(f)(X[0]).tolist() == [1.0, 1.0, 1.0]


def test_every_tensor_is_strided():
    views = (X, X.T, X[:, ::2], X.expand(4, 2, 3), X.detach(), mg.tensor(1.0), mg.zeros(0))
    assert all(v.layout is mg.strided for v in views)


def test_strided_is_one_object_as_pytorchs():
    assert repr(mg.strided) == str(mg.strided) == "minigrad_ckpt.strided"
    assert isinstance(mg.strided, mg.layout) and not isinstance("strided", mg.layout)
    assert pickle.loads(pickle.dumps(mg.strided)) is mg.strided
    assert copy.deepcopy(mg.strided) is mg.strided and copy.copy(mg.strided) is mg.strided
    assert copy.deepcopy({"layout": mg.strided})["layout"] is mg.strided
    assert mg.strided == mg.strided and mg.strided != "strided" and hash(mg.strided) == hash(mg.strided)


def test_a_layout_annotation_is_evaluated_as_in_pytorch():
    def make(n: int, layout: mg.layout = mg.strided) -> mg.Tensor:
        return mg.zeros(n, layout=layout)
    assert make(2).layout is mg.strided
