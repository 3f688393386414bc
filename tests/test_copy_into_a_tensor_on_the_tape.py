"""``h.copy_(src)`` into a tensor ``h`` that requires grad: ``h``'s old history stays on the tape with
the gradient 0, as PyTorch's (``CopyBackwards`` gives ``self`` zeros), also when ``src`` requires grad.
Before, the old history was dropped when ``src`` required grad: the leaves behind ``h`` got no
gradient (None), so an optimizer skipped them where PyTorch's steps with zeros (Adam's moments and
weight decay move them).  ``fill_`` and ``zero_`` kept it already.

torch 2.13::

    w = torch.tensor([1., 2., 3.], requires_grad=True); s = torch.tensor([4., 5., 6.], requires_grad=True)
    h = w * 1; h.copy_(s); (h * 2).sum().backward()     # w.grad zeros, s.grad [2., 2., 2.]
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)], ids=str)
@pytest.mark.parametrize("src_dtype", ["same", "float64"])
def test_the_old_value_gets_zeros_and_the_source_the_gradient(device, dtype, src_dtype):
    if device == "strict-f32" and src_dtype == "float64":
        pytest.skip("strict-f32 holds no float64")
    w = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    s = mg.tensor([4.0, 5.0, 6.0], dtype=dtype if src_dtype == "same" else mg.float64, device=device,
                  requires_grad=True)
    h = w * 1
    assert h.copy_(s) is h and h.dtype == dtype
    np.testing.assert_array_equal(h.detach().cpu().numpy(), [4.0, 5.0, 6.0])
    (h * 2).sum().backward()
    assert w.grad is not None and w.grad.dtype == dtype
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.zeros(3))
    np.testing.assert_array_equal(s.grad.cpu().numpy(), [2.0, 2.0, 2.0])
    assert s.grad.dtype == s.dtype


def test_broadcast_source_and_adam_steps_the_zero_gradient():
    w = mg.nn.Parameter(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    s = mg.tensor([0.5, -0.5], requires_grad=True)
    opt = mg.optim.Adam([w], lr=0.1, weight_decay=0.5)
    h = w * 1
    h.copy_(s)
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(s.grad.numpy(), [2.0, 2.0])
    opt.step()  # torch 2.13: weight decay makes the gradient 0.5 * w, so each weight moves by lr = 0.1
    np.testing.assert_allclose(w.detach().numpy(), [[0.9, 1.9], [2.9, 3.9]], rtol=1e-6)


def test_inside_checkpoint_and_under_func_grad():
    s = mg.tensor([4.0, 5.0, 6.0], dtype=mg.float64)

    def overwrite(x):
        h = x * 1
        h.copy_(s * x[0])
        return h

    leaf = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    checkpoint(overwrite, leaf, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [15.0, 0.0, 0.0])  # only through x[0] in the source
    grad = mg.func.grad(lambda x: overwrite(x).sum())(mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64))
    np.testing.assert_array_equal(grad.numpy(), [15.0, 0.0, 0.0])


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("src_shape, message", [((1, 3), r"\[3\] doesn't match the broadcast shape \[1, 3\]"),
                                                ((2, 3), r"\[3\] doesn't match the broadcast shape \[2, 3\]")])
def test_a_source_of_more_dims_is_pytorchs_error(src_shape, message, requires_grad):
    # torch 2.13: torch.zeros(3).copy_(torch.ones(1, 3)) -> RuntimeError "output with shape [3] doesn't
    # match the broadcast shape [1, 3]"; here NumPy's assignment dropped the leading 1 and copied
    target = mg.tensor([0.0, 0.0, 0.0], requires_grad=True) * 1 if requires_grad else mg.zeros(3)
    with pytest.raises(RuntimeError, match=message):
        target.copy_(mg.ones(*src_shape))
    assert mg.zeros(1, 3).copy_(mg.ones(3)).tolist() == [[1.0, 1.0, 1.0]]  # fewer dims broadcast, as PyTorch's
