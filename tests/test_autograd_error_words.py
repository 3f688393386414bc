"""The errors of ``backward()`` and ``mg.autograd.grad`` a ported test most often matches carry
torch 2.13's words (on the same calls, below) ahead of the engine's explanation, so that
``pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn")`` works
as with PyTorch.  Before, each was worded only the engine's way ("output 0 does not require grad and
has no history", "only for outputs with one element", "input 1 was not used to compute the outputs",
"gradient has shape (3,) but output 0 has shape (2,)")."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_pytorchs_words_come_first(device):
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, device=device, requires_grad=True)
    b = mg.tensor([3.0, 4.0], dtype=mg.float64, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a "
                                           r"grad_fn: output 0 does not require grad"):
        mg.tensor([1.0], device=device).sum().backward()
    with pytest.raises(RuntimeError, match=r"^element 0 of tensors does not require grad and does not have a grad_fn"):
        mg.autograd.grad(a.detach().sum(), a)
    with pytest.raises(RuntimeError, match=r"^grad can be implicitly created only for scalar outputs \(only for "
                                           r"outputs with one element; output 0 has shape \(2,\)"):
        (a * 2).backward()
    with pytest.raises(RuntimeError, match=r"^grad can be implicitly created only for real scalar outputs but got "
                                           r"complex128 \(only for real outputs; output 0"):
        (a * 1j).sum().backward()
    with pytest.raises(RuntimeError, match=r"^One of the differentiated Tensors does not require grad: input 1 "):
        mg.autograd.grad((a * a).sum(), [a, b.detach()])
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 1 appears to not have been used in "
                                           r"the graph\. Set allow_unused=True if this is the desired behavior\. "):
        mg.autograd.grad((a * a).sum(), [a, b])
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of \(1, 2\) and "
                                           r"output\[0\] has a shape of \(2,\)\.$"):
        mg.autograd.grad(a * a, a, mg.ones(1, 2, dtype=mg.float64, device=device))


def test_a_value_changed_in_place_after_it_was_saved_is_pytorchs_words():
    # torch 2.13: "one of the variables needed for gradient computation has been modified by an inplace
    # operation: [torch.DoubleTensor [2]], which is output 0 of MulBackward0, is at version 1; ..."
    x = mg.tensor([0.5, 1.0], dtype=mg.float64, requires_grad=True)
    h = x * 1
    view = h[:]
    y = h.sin()
    view.mul_(2)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation has been "
                                           r"modified by an inplace operation \(an array was modified by an "
                                           r"in-place operation after Sin \(node #\d+\) saved it for backward\)"):
        y.sum().backward()
