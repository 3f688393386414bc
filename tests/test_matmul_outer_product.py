"""A matrix product whose contraction has one term, ``(..., m, 1) @ (1, n)``, is an outer product: each
element is one product, which the engine computes by broadcasting instead of calling BLAS (a third of
OpenBLAS's time on ``(97, 1) @ (1, 204)``, the input projection of ``time_sequence_prediction``'s first
``LSTMCell``, fed one feature).  The same values; the sign of a zero product follows PyTorch 2.13, which
keeps ``-0.0`` in a 2-D float32/float64 product (leading axes folded into rows) of at least two rows and
two columns and gives ``+0.0`` elsewhere -- one row or column, a batch of matrices, float16 -- as BLAS does
(it adds the product to an accumulator's ``+0.0``); so the engine broadcasts exactly there.  Checked here:
signs against a table of PyTorch's, values against NumPy's product, C order, both derivatives and forward
mode against finite differences, the layers that reach it (``Linear(1, n)``, ``LSTMCell(1, n)``), shapes
that must still be refused, on the CPU and the strict stand-in devices."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.func import jvp
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]
SHAPES = [((5, 1), (1, 4)), ((3, 5, 1), (3, 1, 4)), ((5, 1), (2, 1, 4)), ((2, 1, 5, 1), (3, 1, 4)),
          ((1, 1), (1, 1)), ((0, 1), (1, 3)), ((4, 1), (1, 0)), ((3, 2, 1), (1, 4)), ((1, 1), (1, 3))]

# (x's shape, y's shape, dtype) -> whether torch 2.13 gives -0.0 for -ones(x) @ zeros(y) (checked offline)
PYTORCH_NEGATIVE_ZERO = {
    ((1, 1), (1, 2), "float64"): False, ((2, 1), (1, 1), "float64"): False, ((2, 1), (1, 2), "float64"): True,
    ((3, 2, 1), (1, 2), "float64"): True, ((3, 1, 1), (1, 2), "float64"): True,
    ((1, 2, 1), (1, 2), "float64"): True, ((2, 2, 1), (2, 1, 2), "float64"): False,
    ((2, 1), (2, 1, 2), "float64"): False, ((2, 1), (1, 2), "float32"): True, ((1, 1), (1, 2), "float32"): False,
    ((2, 2, 1), (2, 1, 2), "float32"): False, ((2, 1), (1, 2), "float16"): False,
    ((3, 1, 1), (1, 2), "float16"): False,
}


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}")


@pytest.mark.parametrize("case", sorted(PYTORCH_NEGATIVE_ZERO, key=str))
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_zero_products_sign_is_pytorchs(case, device):
    xs, ys, dtype = case
    if device == "strict" and dtype == "float16":
        pytest.skip("(the CPU's float16 is the case)")
    got = (-mg.ones(*xs, dtype=dtype, device=device) @ mg.zeros(*ys, dtype=dtype, device=device)).cpu().numpy()
    assert np.all(np.signbit(got) == PYTORCH_NEGATIVE_ZERO[case]), (case, got)


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("xs,ys", SHAPES)
def test_the_product_equals_numpys_in_c_order(device, dtype, xs, ys):
    rng = np.random.default_rng(len(xs) * 7 + len(ys))
    x = rng.choice([-2.0, -1.0, -0.0, 0.0, 1.5, np.inf], size=xs).astype(dtype)
    y = rng.choice([-3.0, -0.0, 0.0, 0.5, 2.0], size=ys).astype(dtype)
    with np.errstate(all="ignore"):
        blas, outer = np.matmul(x, y), np.multiply(x, y)  # NaN where inf meets 0 in both, as in PyTorch
        got = (mg.tensor(x, device=device) @ mg.tensor(y, device=device)).cpu().numpy()
    assert got.shape == blas.shape and got.dtype == blas.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, blas)  # (== ignores a zero's sign)
    broadcast = len(ys) == 2 and int(np.prod(xs[:-1])) > 1 and ys[1] > 1
    np.testing.assert_array_equal(_bits(got), _bits(outer if broadcast else blas))


def test_a_transposed_operand_still_gives_a_c_ordered_result():
    a = mg.tensor(np.arange(10.0).reshape(1, 2, 5)).permute(2, 1, 0)  # (5, 2, 1), not C-ordered
    out = a @ mg.ones(1, 4, dtype="float64")
    assert out.is_contiguous() and out.stride() == (8, 4, 1)
    np.testing.assert_array_equal(out.numpy(), a.numpy() @ np.ones((1, 4)))


def test_signed_zeros_are_pytorchs_through_linear():
    lin = nn.Linear(1, 2, bias=False)
    with mg.no_grad():
        lin.weight.copy_(mg.tensor([[0.0], [-0.0]]))
    # torch 2.13: F.linear(tensor([[-2.], [3.]]), tensor([[0.], [-0.]])) -> [[-0., 0.], [0., -0.]]
    got = lin(mg.tensor([[-2.0], [3.0]])).detach().numpy()
    np.testing.assert_array_equal(np.signbit(got), [[True, False], [False, True]])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("xs,ys", SHAPES[:4])
def test_derivatives_of_both_operands_in_both_modes_and_twice(device, xs, ys):
    rng = np.random.default_rng(3)
    x = mg.tensor(rng.standard_normal(xs), device=device, requires_grad=True)
    y = mg.tensor(rng.standard_normal(ys), device=device, requires_grad=True)
    assert gradcheck(lambda a, b: (a @ b).tanh(), (x, y))
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), (x, y))
    tx, ty = (mg.tensor(rng.standard_normal(s), device=device) for s in (xs, ys))
    _, tangent = jvp(lambda a, b: a @ b, (x.detach(), y.detach()), (tx, ty))
    want = (tx.cpu().numpy() @ y.detach().cpu().numpy()) + (x.detach().cpu().numpy() @ ty.cpu().numpy())
    np.testing.assert_allclose(tangent.cpu().numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("device,dtype", DEVICES)
def test_a_linear_layer_of_one_feature_and_an_lstm_cell_fed_one(device, dtype):
    """Both layers of the benchmark's first cell: values as the BLAS product gives them (no signed zeros
    here), gradients against finite differences in float64."""
    mg.manual_seed(0)
    lin = nn.Linear(1, 6).to(device=device, dtype=dtype)
    x = mg.randn(5, 1, dtype=dtype, device=device, requires_grad=True)
    with np.errstate(all="ignore"):
        w, b = lin.weight.detach().cpu().numpy(), lin.bias.detach().cpu().numpy()
        want = np.matmul(x.detach().cpu().numpy(), w.T) + b
    np.testing.assert_array_equal(lin(x).detach().cpu().numpy(), want)
    cell = nn.LSTMCell(1, 3).to(device=device, dtype=dtype)
    h, c = cell(x)
    (h.sum() + c.sum()).backward()
    assert x.grad.shape == (5, 1) and cell.weight_ih.grad.shape == (12, 1)
    if dtype == "float64":
        assert gradcheck(lambda a: cell(a, (h.detach(), c.detach()))[0], (x,))


def test_shapes_that_do_not_multiply_are_still_refused():
    for xs, ys in [((3, 1), (2, 4)), ((2, 3, 1), (4, 2, 5)), ((3, 1), (1,))]:
        a, b = mg.ones(*xs), mg.ones(*ys)
        if len(ys) == 1:  # (3, 1) @ (1,): a matrix times a vector of one, (3,) -- NumPy's and PyTorch's meaning
            assert (a @ b).shape == (3,)
            continue
        with pytest.raises((ValueError, RuntimeError)):
            a @ b


def test_integer_and_complex_products_of_one_term():
    a = np.array([[2], [-3]], dtype=np.int64)
    b = np.array([[4, -5, 0]], dtype=np.int64)
    np.testing.assert_array_equal((mg.tensor(a) @ mg.tensor(b)).numpy(), a @ b)
    za, zb = a * (1 + 2j), b * (0.5 - 1j)
    np.testing.assert_array_equal((mg.tensor(za) @ mg.tensor(zb)).numpy(), za * zb)


@pytest.mark.parametrize("device,dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_a_closure_over_a_one_feature_layer_through_transforms_an_in_place_write_and_a_checkpoint(device, dtype):
    """The seams of the broadcast product: ``func.grad`` and ``vmap`` of a function that closes over a
    ``Linear(1, 6)`` and writes its output in place, and the same step inside a checkpoint, whose
    replay gives the plain step's gradients bit for bit."""
    from minigrad_ckpt.checkpoint import checkpoint
    from minigrad_ckpt.func import grad, vmap

    mg.manual_seed(3)
    lin = nn.Linear(1, 6).to(device=device, dtype=dtype)
    xs = mg.randn(4, 5, 1, dtype=dtype, device=device)

    def loss(x):
        y = lin(x)
        y.mul_(2)  # in place on the product's output
        return mg.tanh(y).sum()

    per_example = vmap(grad(loss))(xs)
    w = lin.weight.detach().cpu().numpy()
    for k in range(4):  # d/dx sum tanh(2 (x w^T + b)) = 2 (1 - tanh^2) @ w
        y = 2 * (xs[k].cpu().numpy() @ w.T + lin.bias.detach().cpu().numpy())
        np.testing.assert_allclose(per_example[k].cpu().numpy(), 2 * (1 - np.tanh(y) ** 2) @ w,
                                   rtol=1e-5 if dtype == "float32" else 1e-12)
    x = xs[0].detach().requires_grad_()
    plain = mg.grad(loss(x), [x, lin.weight, lin.bias])
    checked = mg.grad(checkpoint(loss, x), [x, lin.weight, lin.bias])
    for a, b in zip(plain, checked):
        np.testing.assert_array_equal(_bits(a.cpu().numpy()), _bits(b.cpu().numpy()))
