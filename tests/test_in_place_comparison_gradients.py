"""In-place comparisons written into a float tensor on the tape (``h.eq_(y)``, ``lt_``, ``ge_``, ...):
the other operand gets zeros, as PyTorch's (derivatives.yaml: ``other: zeros_like(other)``), and
``h``'s old history keeps its zeros.  Before, nothing connected ``y`` (``y.grad`` None: an optimizer
skipped it where PyTorch's steps it with a zero gradient); and a tensor that needed no grad
before the write did not require grad after it, where PyTorch's does.

torch 2.13::

    w = torch.tensor([1., 2., 3.], requires_grad=True); y = torch.tensor([1., 3., 2.], requires_grad=True)
    h = w * 1; h.eq_(y); (h * 2).sum().backward()   # h [1., 0., 0.]; w.grad, y.grad zeros
    h = torch.tensor([1., 2., 3.]); h.lt_(y)         # h [0., 1., 0.], requires grad; y.grad zeros after backward
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

WANT = {"eq_": [1.0, 0.0, 0.0], "ne_": [0.0, 1.0, 1.0], "lt_": [0.0, 1.0, 0.0], "le_": [1.0, 1.0, 0.0],
        "gt_": [0.0, 0.0, 1.0], "ge_": [1.0, 0.0, 1.0]}


@pytest.mark.parametrize("op", sorted(WANT))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)], ids=str)
def test_both_operands_get_zeros(op, device, dtype):
    w = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    y = mg.tensor([1.0, 3.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    h = w * 1
    assert getattr(h, op)(y) is h and h.dtype == dtype
    np.testing.assert_array_equal(h.detach().cpu().numpy(), WANT[op])
    (h * 2).sum().backward()
    for leaf in (w, y):
        assert leaf.grad is not None and leaf.grad.dtype == dtype
        np.testing.assert_array_equal(leaf.grad.cpu().numpy(), np.zeros(3))


def test_a_tensor_without_grad_requires_it_after_the_write_and_numbers_link_nothing():
    y = mg.tensor([1.0, 3.0, 2.0], requires_grad=True)
    h = mg.tensor([1.0, 2.0, 3.0])
    h.lt_(y)
    assert h.requires_grad
    h.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros(3))
    plain = mg.tensor([1.0, 2.0, 3.0])
    plain.eq_(2.0)
    assert not plain.requires_grad and plain.tolist() == [0.0, 1.0, 0.0]
    with mg.no_grad():
        quiet = mg.tensor([1.0, 2.0, 3.0])
        quiet.lt_(y)
    assert not quiet.requires_grad


def test_inside_checkpoint_and_under_func_grad():
    toward = mg.tensor([1.0, 3.0, 2.0], dtype=mg.float64, requires_grad=True)

    def compare(x):
        h = x * 1
        h.ge_(toward)
        return h * x

    leaf = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    checkpoint(compare, leaf, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [1.0, 0.0, 1.0])  # through the factor x only
    np.testing.assert_array_equal(toward.grad.numpy(), np.zeros(3))
    grad = mg.func.grad(lambda y: (mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64).le_(y) * y).sum())(
        mg.tensor([1.0, 3.0, 2.0], dtype=mg.float64))
    np.testing.assert_array_equal(grad.numpy(), [1.0, 1.0, 0.0])
