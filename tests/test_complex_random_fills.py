"""Random fills of complex tensors: PyTorch's laws (both parts drawn), or PyTorch's refusal.

PyTorch fills a complex tensor through its real view: ``z.uniform_(a, b)`` draws the real *and*
the imaginary part from ``[a, b)``, ``z.normal_(mean, std)`` draws each part from
``N(mean, std^2 / 2)`` (so the mean is ``mean + mean j``), and ``nn.init``'s ``uniform_``,
``normal_``, ``kaiming_*`` and ``xavier_*`` call those (torch 2.13: ``kaiming_uniform_`` of a
complex (300, 400) weight has ``max |Re| = max |Im| = sqrt(6 / 400)``).  Here ``z.uniform_(-1, 3)``
drew the imaginary part from ``[0, 4)``, ``z.normal_(1, 2)`` had imaginary mean 0, and
``nn.init.uniform_``/``normal_``/``kaiming_*``/``xavier_*`` left the imaginary part 0: a complex
layer (a spectral convolution's weights) started with real weights only.  The laws with no complex
counterpart (``exponential_``, ``cauchy_``, ``log_normal_``, ``geometric_``, ``random_``,
``bernoulli_``; ``nn.init.trunc_normal_``, ``orthogonal_``) filled the real part and left the
imaginary part 0 where PyTorch raises; they raise now.  The laws are checked by their moments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

N = 200_000
DEVICES = ["cpu", "strict", "strict-f32"]


def _parts(z: mg.Tensor) -> tuple[np.ndarray, np.ndarray]:
    a = z.numpy()
    return a.real.astype(np.float64), a.imag.astype(np.float64)


def _near(sample: np.ndarray, mean: float, var: float) -> None:
    assert abs(sample.mean() - mean) < 6 * math.sqrt(var / sample.size)
    assert abs(sample.var() - var) < 0.03 * var


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_normal_and_uniform_draw_both_parts_from_the_law(dtype, device):
    if device == "strict-f32" and dtype == "complex128":
        pytest.skip("strict-f32 holds no float64")
    mg.manual_seed(3)
    z = mg.empty(N, dtype=dtype, device=device)
    assert z.normal_(1.5, 2.0) is z and z.dtype == dtype
    for part in _parts(z):
        _near(part, 1.5, 2.0 ** 2 / 2)
    z.uniform_(-1.0, 3.0)
    for part in _parts(z):
        assert part.min() >= -1.0 and part.max() < 3.0
        _near(part, 1.0, 16 / 12)
    z.uniform_(**{"from": -2.0, "to": 2.0})
    for part in _parts(z):
        _near(part, 0.0, 16 / 12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("init, var", [
    ("uniform_", 1 / 12),
    ("normal_", 1 / 2),                 # each part std^2 / 2
    ("xavier_uniform_", (6 / 700) / 3),  # U(-b, b) has variance b^2 / 3, b = sqrt(6 / (fan_in + fan_out))
    ("xavier_normal_", (2 / 700) / 2),
    ("kaiming_uniform_", (6 / 400) / 3),  # b = gain sqrt(3 / fan_in), gain sqrt(2) (a = 0)
    ("kaiming_normal_", (2 / 400) / 2),
])
def test_nn_init_fills_a_complex_weight_in_both_parts(init, var, device):
    mg.manual_seed(4)
    w = mg.nn.Parameter(mg.zeros(300, 400, dtype="complex64", device=device))
    out = getattr(mg.nn.init, init)(w)
    assert out is w and w.dtype == mg.complex64 and w.requires_grad and w.grad_fn is None
    mean = 0.5 if init == "uniform_" else 0.0
    for part in _parts(w):
        _near(part, mean, var)
    if init in ("xavier_uniform_", "kaiming_uniform_"):
        bound = math.sqrt(3 * var)
        for part in _parts(w):
            assert np.abs(part).max() <= bound * (1 + 1e-6) and part.min() < -0.99 * bound


@pytest.mark.parametrize("device", DEVICES)
def test_a_complex_layer_trains_from_an_initialisation_with_imaginary_parts(device):
    # an FNO-style spectral weight initialised as users write it
    mg.manual_seed(5)
    w = mg.nn.Parameter(mg.empty(4, 4, 3, dtype="complex64", device=device))
    mg.nn.init.xavier_uniform_(w)
    re, im = _parts(w)
    assert np.abs(im).max() > 0 and (im < 0).any() and (im > 0).any()
    mg.nn.init.normal_(w, mean=1.0, std=1e-3)
    re, im = _parts(w)
    np.testing.assert_allclose(re.mean(), 1.0, atol=1e-3)
    np.testing.assert_allclose(im.mean(), 1.0, atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fill, args", [
    ("exponential_", ()), ("cauchy_", ()), ("log_normal_", ()), ("geometric_", (0.5,)), ("random_", (0, 5)),
    ("random_", ()), ("bernoulli_", (0.5,)),
])
def test_real_only_fills_refuse_a_complex_tensor(fill, args, device):
    z = mg.zeros(4, dtype="complex64", device=device)
    with pytest.raises(NotImplementedError, match=f"{fill}.*complex") as caught:
        getattr(z, fill)(*args)
    assert isinstance(caught.value, (RuntimeError, TypeError))  # PyTorch raises one or the other
    np.testing.assert_array_equal(z.numpy(), np.zeros(4))


@pytest.mark.parametrize("init", ["trunc_normal_", "orthogonal_"])
def test_real_only_initialisations_refuse_a_complex_tensor(init):
    w = mg.zeros(3, 3, dtype="complex64")
    with pytest.raises(NotImplementedError, match=f"{init}.*complex"):
        getattr(mg.nn.init, init)(w)
    np.testing.assert_array_equal(w.numpy(), np.zeros((3, 3)))


def test_real_fills_are_unchanged():
    # the real laws keep their draws bit for bit: the same seed, the same numbers as the complex-free path
    for fill, args in [("normal_", (1.0, 2.0)), ("uniform_", (-1.0, 3.0))]:
        mg.manual_seed(6)
        x = getattr(mg.empty(5, dtype="float64"), fill)(*args).numpy()
        mg.manual_seed(6)
        base = mg.randn(5, dtype="float64") if fill == "normal_" else mg.rand(5, dtype="float64")
        want = base.numpy() * 2.0 + 1.0 if fill == "normal_" else base.numpy() * 4.0 - 1.0
        np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("make", [lambda: mg.nn.Linear(30, 20, dtype="complex64"),
                                  lambda: mg.nn.Conv1d(3, 4, 3, dtype="complex64"),
                                  lambda: mg.nn.Embedding(10, 4, dtype="complex64")],
                         ids=["Linear", "Conv1d", "Embedding"])
def test_complex_layers_start_with_complex_weights(make):
    # torch 2.13: nn.Linear(30, 20, dtype=torch.complex64).weight.imag is nonzero, in [-b, b) as the real part
    mg.manual_seed(7)
    for name, p in make().named_parameters():
        re, im = _parts(p)
        assert (im != 0).any() and (im < 0).any() and (re < 0).any(), name
        assert 0.5 < np.abs(im).max() / np.abs(re).max() < 2.0, name  # both parts from one law


@pytest.mark.parametrize("device", DEVICES)
def test_normal_draws_pytorchs_complex_normal(device):
    """torch.normal(2.0, 3.0, size, dtype=torch.cfloat) has each part N(2, 9 / 2): the number mean
    is the location of both parts (here the imaginary part had mean 0); torch.normal(mean, std)
    of a complex mean tensor is mean + std z, z complex standard normal (here a TypeError); a
    complex std is PyTorch's RuntimeError."""
    mg.manual_seed(8)
    z = mg.normal(2.0, 3.0, (N,), dtype="complex64", device=device)
    assert z.dtype == mg.complex64
    for part in _parts(z):
        _near(part, 2.0, 9.0 / 2)
    mean = mg.tensor(np.full(N, 1 - 2j, dtype=np.complex64), device=device, requires_grad=True)
    w = mg.normal(mean, 0.5)
    assert w.dtype == mg.complex64 and w.shape == (N,)
    re, im = _parts(w)
    _near(re, 1.0, 0.25 / 2)
    _near(im, -2.0, 0.25 / 2)
    (w.real * 3 + w.imag).sum().backward()  # d/d mean is the identity: the gradient of each part passes
    np.testing.assert_array_equal(mean.grad.numpy(), np.full(N, 3 + 1j))
    with pytest.raises(RuntimeError, match="standard deviation to be non-complex"):
        mg.normal(mg.zeros(3, device=device), mg.ones(3, dtype="complex64", device=device))
    # real draws are unchanged
    mg.manual_seed(9)
    x = mg.normal(2.0, 3.0, (5,), device=device).numpy()
    mg.manual_seed(9)
    np.testing.assert_array_equal(x, mg.randn(5, device=device).numpy() * 3.0 + 2.0)


@pytest.mark.parametrize("device", DEVICES)
def test_sparse_init_draws_a_complex_weight_in_both_parts(device):
    """torch 2.13: nn.init.sparse_ of a complex weight fills it by tensor.normal_(0, std), each
    part N(0, std^2 / 2); here the real part was N(0, std^2) and the imaginary part 0 (a real
    draw cast to complex)."""
    mg.manual_seed(9)
    w = mg.nn.Parameter(mg.zeros(400, 500, dtype="complex64", device=device))
    out = mg.nn.init.sparse_(w, 0.3, std=0.5)
    assert out is w and w.dtype == mg.complex64 and w.requires_grad and w.grad_fn is None
    a = w.numpy()
    assert ((a == 0).sum(axis=0) == 120).all()  # ceil(0.3 * 400) zeros in every column, as before
    kept = a[a != 0]
    for part in (kept.real.astype(np.float64), kept.imag.astype(np.float64)):
        _near(part, 0.0, 0.25 / 2)
