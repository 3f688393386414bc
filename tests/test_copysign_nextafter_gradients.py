"""PyTorch's derivatives of ``copysign`` and ``nextafter`` (torchgen's derivatives.yaml, torch 2.13):

* ``copysign(x, other)``: ``other`` gets zeros; it got no gradient here (None), so an optimizer
  skipped it where PyTorch's steps with a zero gradient.
* ``nextafter(x, other)``: 1 in ``x`` where ``x != other``, 0 where they are equal; zeros in
  ``other``.  Here it was a constant: no gradient, and ``backward`` raised ("output 0 does not
  require grad") on a program PyTorch runs.

torch 2.13 (the expected numbers below)::

    w = torch.tensor([1., -2., 3.], requires_grad=True); y = torch.tensor([-1., -2., 4.], requires_grad=True)
    h = w * 1; h.nextafter_(y); (h * 2).sum().backward()    # w.grad [2., 0., 2.], y.grad zeros
    torch.func.jvp(lambda x: torch.nextafter(x, torch.tensor([0., 5., 5.])),
                   (torch.tensor([1., 5., 2.]),), (torch.tensor([1., 2., 3.]),))[1]   # [1., 0., 3.]
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_nextafter_passes_the_gradient_where_it_moves(device, dtype):
    x = mg.tensor([1.0, 2.0, -1e-45, 0.0], dtype=dtype, device=device, requires_grad=True)
    y = mg.tensor([3.0, 2.0, 0.0, -1.0], dtype=dtype, device=device, requires_grad=True)
    out = mg.nextafter(x, y)
    want = np.nextafter(np.array([1.0, 2.0, -1e-45, 0.0], dtype=str(dtype)), np.array([3.0, 2.0, 0.0, -1.0],
                                                                                        dtype=str(dtype)))
    np.testing.assert_array_equal(out.detach().cpu().numpy(), want)
    np.testing.assert_array_equal(np.signbit(out.detach().cpu().numpy()), np.signbit(want))  # -0.0 stays
    (out * mg.tensor([2.0, 3.0, 4.0, 5.0], dtype=dtype, device=device)).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 0.0, 4.0, 5.0])
    np.testing.assert_array_equal(y.grad.cpu().numpy(), np.zeros(4))
    assert x.grad.dtype == y.grad.dtype == dtype


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_copysign_gives_other_zeros_and_keeps_its_values(device, dtype):
    x = mg.tensor([1.0, -2.0, 0.0, float("inf")], dtype=dtype, device=device, requires_grad=True)
    y = mg.tensor([-1.0, 2.0, -0.0, float("nan")], dtype=dtype, device=device, requires_grad=True)
    out = mg.copysign(x, y)
    values = out.detach().cpu().numpy()
    np.testing.assert_array_equal(values, [-1.0, 2.0, -0.0, np.copysign(np.inf, np.nan)])
    assert np.signbit(values[2])
    out.sum().backward()
    np.testing.assert_array_equal(y.grad.cpu().numpy(), np.zeros(4))
    np.testing.assert_array_equal(x.grad.cpu().numpy()[:3], [-1.0, -1.0, 0.0])


def test_in_place_on_a_non_leaf_and_under_func_and_checkpoint():
    w = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = mg.tensor([-1.0, -2.0, 4.0], requires_grad=True)
    h = w * 1
    h.nextafter_(y)
    (h * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 0.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros(3))
    w = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = mg.tensor([-1.0, -1.0, 1.0], requires_grad=True)
    h = w * 1
    h.copysign_(y)
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [-1.0, 1.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros(3))
    toward = mg.tensor([0.0, 5.0, 5.0])
    grad = mg.func.grad(lambda x: mg.nextafter(x, toward).sum())(mg.tensor([1.0, 5.0, 2.0]))
    np.testing.assert_array_equal(grad.numpy(), [1.0, 0.0, 1.0])
    _, tangent = mg.func.jvp(lambda x: mg.nextafter(x, toward), (mg.tensor([1.0, 5.0, 2.0]),),
                             (mg.tensor([1.0, 2.0, 3.0]),))
    np.testing.assert_array_equal(tangent.numpy(), [1.0, 0.0, 3.0])
    other = mg.func.grad(lambda y: mg.copysign(mg.tensor([1.0, 5.0, 2.0]), y).sum())(mg.tensor([1.0, -5.0, 2.0]))
    np.testing.assert_array_equal(other.numpy(), np.zeros(3))
    leaf = mg.tensor([1.0, 5.0, 2.0], requires_grad=True)
    checkpoint(lambda x: mg.nextafter(x, toward), leaf, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [1.0, 0.0, 1.0])
