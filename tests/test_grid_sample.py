"""``F.grid_sample``'s bicubic (4-D) and volumetric (5-D, trilinear and nearest) sampling at the seams:
derivatives in the input and the grid (both modes, second order), float32 and the strict device,
checkpointing, and the edges where PyTorch's grid gradient is 0.  PyTorch's values and gradients
for every mode, padding mode and ``align_corners`` are in ``tests/data/torch_nn_reference.npz``
(``tests/test_nn_vs_torch.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

PADDINGS = ["zeros", "border", "reflection"]
# (mode, input shape, grid shape): grids reach past [-1, 1], away from pixel centres (kinks)
CASES = {"bicubic": ((1, 2, 4, 5), (1, 2, 3, 2)), "trilinear": ((1, 2, 3, 4, 3), (1, 2, 2, 1, 3)),
         "nearest-5d": ((1, 2, 3, 4, 3), (1, 2, 2, 1, 3))}


def _tensors(kind, dtype="float64", device="cpu"):
    shape, grid_shape = CASES[kind]
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.uniform(-1.3, 1.3, grid_shape).astype(dtype)
    return (mg.tensor(x, device=device, requires_grad=True), mg.tensor(g, device=device, requires_grad=True))


def _sample(kind, x, g, padding_mode, align_corners):
    mode = {"bicubic": "bicubic", "trilinear": "bilinear", "nearest-5d": "nearest"}[kind]
    return F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", PADDINGS)
@pytest.mark.parametrize("kind", sorted(CASES))
def test_derivatives_in_input_and_grid_both_modes_and_second_order(kind, padding_mode, align_corners):
    x, g = _tensors(kind)
    if kind == "nearest-5d":  # piecewise constant in the grid: the input only
        g = g.detach()
    f = lambda *args: _sample(kind, *args, padding_mode, align_corners) if len(args) == 2 else (  # noqa: E731
        _sample(kind, args[0], g, padding_mode, align_corners))
    inputs = [x] if kind == "nearest-5d" else [x, g]
    assert gradcheck(f, inputs, modes=("rev", "fwd"))
    assert gradgradcheck(f, inputs)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_float32_strict_device_and_checkpoint(kind):
    x, g = _tensors(kind, "float32")
    xs, gs = _tensors(kind, "float32", device="strict-f32")
    out, outs = _sample(kind, x, g, "reflection", False), _sample(kind, xs, gs, "reflection", False)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(outs.numpy(), out.numpy())
    want = mg.grad(out.sum(), [x, g], allow_unused=True)
    for a, b in zip(mg.grad(outs.sum(), [xs, gs], allow_unused=True), want):
        assert (a is None) == (b is None)
        if a is not None:
            assert b.dtype == np.float32
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    replayed = ck.checkpoint(lambda a, b: _sample(kind, a, b, "reflection", False), x, g)
    for a, b in zip(mg.grad(replayed.sum(), [x, g], allow_unused=True), want):
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_forward_mode_equals_reverse_mode_in_the_grid():
    x, g = _tensors("bicubic")
    v = mg.tensor(np.random.default_rng(2).standard_normal(g.shape))
    f = lambda t: _sample("bicubic", x.detach(), t, "border", True).sum()  # noqa: E731
    _, tangent = mg.func.jvp(f, (g.detach(),), (v,))
    (grad,) = mg.grad(f(g), [g])
    np.testing.assert_allclose(tangent.item(), float((grad.numpy() * v.numpy()).sum()), rtol=1e-12)


@pytest.mark.parametrize("padding_mode", ["border", "reflection"])
def test_the_grid_gradient_is_zero_at_a_clamped_edge_as_pytorchs(padding_mode):
    # PyTorch's clip_coordinates_set_grad counts the edge itself as outside
    x = mg.tensor(np.arange(16.0).reshape(1, 1, 4, 4) ** 1.5)
    g = mg.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.3, -0.2]]]], dtype=mg.float64, requires_grad=True)
    (grad,) = mg.grad(F.grid_sample(x, g, padding_mode=padding_mode, align_corners=True).sum(), [g])
    assert np.all(grad.numpy()[0, 0, :2] == 0) and np.all(grad.numpy()[0, 0, 2] != 0)


def test_bicubic_reads_the_input_exactly_at_pixel_centres():
    x = mg.tensor(np.random.default_rng(3).standard_normal((1, 2, 3, 4)))
    g = F.affine_grid(mg.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype="float64"), (1, 2, 3, 4), align_corners=True)
    out = F.grid_sample(x, g, mode="bicubic", align_corners=True)
    np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-15)
