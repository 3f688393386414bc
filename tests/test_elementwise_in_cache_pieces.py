"""A kernel of many passes runs over a large host array a cache-sized piece at a time
(``ops.elementwise.in_cache_sized_pieces``: erf, GELU and its derivative) with the same bits as on the
whole array: each value takes the same operations either way.  Each case compares the pieced
kernel with the one it wraps (``__wrapped__``), byte for byte, NaN signs aside (NumPy's loops may
take a generated NaN's sign from the SIMD body or the scalar tail, which fall differently)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.backend import numpy_namespace
from minigrad_ckpt.ops import activation, elementwise, special

PIECE = elementwise._CACHE_PIECE
SIZES = [4 * PIECE, 4 * PIECE + 3, 9 * PIECE - 1, 3 * PIECE]  # pieces with a short last one; one too small


def _values(size, dtype, seed=0):
    x = (np.random.RandomState(seed).randn(size) * 3).astype(dtype)
    x[:7] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 6.5, -30.0]
    return x


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    np.testing.assert_array_equal(nan, np.isnan(b))
    assert a[~nan].tobytes() == b[~nan].tobytes()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_in_pieces_is_erf_on_the_whole_array(size, dtype):
    x = _values(size, dtype)
    _same(numpy_namespace.erf(x), special.erf.__wrapped__.__wrapped__(numpy_namespace, x))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_and_its_derivative_in_pieces_are_the_whole_arrays(approximate, size, dtype):
    x = _values(size, dtype, seed=1).reshape(-1, 1) if size % 2 else _values(size, dtype, seed=1).reshape(2, -1)
    for kernel in (activation._gelu, activation._gelu_derivative):
        _same(kernel(numpy_namespace, x, approximate), kernel.__wrapped__(numpy_namespace, x, approximate))


def test_a_piece_is_a_view_of_the_input_and_other_layouts_take_the_whole_array():
    seen = []

    @elementwise.in_cache_sized_pieces
    def kernel(xp, x):
        seen.append((x.shape, x.flags.c_contiguous))
        return x * 2

    x = np.arange(5 * PIECE, dtype=np.float64).reshape(5, PIECE)
    np.testing.assert_array_equal(kernel(numpy_namespace, x), x * 2)
    assert seen == [((PIECE,), True)] * 5
    seen.clear()
    np.testing.assert_array_equal(kernel(numpy_namespace, x.T), x.T * 2)  # not C-contiguous: whole
    assert seen == [((PIECE, 5), False)]


def test_float16_gelu_rounds_once_from_the_pieces_float32_values():
    x = _values(5 * PIECE, np.float16, seed=2)
    t = mg.tensor(x, requires_grad=True)
    y = F.gelu(t)
    y.backward(mg.ones_like(y))
    wide = mg.tensor(x.astype(np.float32), requires_grad=True)
    y32 = F.gelu(wide)
    y32.backward(mg.ones_like(y32))
    _same(y.numpy(), y32.numpy().astype(np.float16))
    _same(t.grad.numpy(), wide.grad.numpy().astype(np.float16))


def test_gelu_seams_reverse_forward_second_order_and_the_strict_device_agree():
    """The pieces serve backward on arrays; a second derivative (Tensors) and jvp take the whole
    formula: all three, and the strict stand-in device, give the same gradient."""
    x = _values(5 * PIECE, np.float64, seed=3)[7:]  # finite values: the second derivative's products
    t = mg.tensor(x, requires_grad=True)
    (g,) = mg.autograd.grad(F.gelu(t).sum(), t, create_graph=True)
    _, tangent = mg.func.jvp(F.gelu, (mg.tensor(x),), (mg.ones_like(mg.tensor(x)),))
    s = mg.tensor(x, device="strict", requires_grad=True)
    F.gelu(s).sum().backward()
    _same(g.detach().numpy(), tangent.numpy())
    _same(g.detach().numpy(), s.grad.to("cpu").numpy())
    (gg,) = mg.autograd.grad(g.sum(), t)  # the second derivative, through the Tensor path of the pieces
    h = 1e-6
    central = (activation._gelu_derivative(numpy_namespace, x + h, "none")
               - activation._gelu_derivative(numpy_namespace, x - h, "none")) / (2 * h)
    np.testing.assert_allclose(gg.numpy(), central, rtol=1e-6, atol=1e-7)
