"""Small semantics PyTorch's test_autograd.py checks that the engine missed: ``del t.grad``
(test_attribute_deletion: "property 'grad' has no deleter"), and the in-place refusal for a view
made *before* its base was set to require grad (test_no_requires_grad_inplace: ``b = a[:]``, then
``a.requires_grad = True``, then ``b.add_(5)`` silently changed the leaf; PyTorch refuses, as the
engine already did for a view made after)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_del_grad_is_setting_it_to_none():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    del x.grad
    assert x.grad is None


WRITES = {
    "add_": lambda v: v.add_(5.0),
    "mul_": lambda v: v.mul_(2.0),
    "setitem": lambda v: v.__setitem__(0, 1.0),
    "copy_": lambda v: v.copy_(mg.zeros(v.shape, dtype=v.dtype)),
}
VIEWS = {"slice": lambda a: a[:], "row": lambda a: a[0], "reshape": lambda a: a.view(-1)}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_view_made_before_its_base_required_grad_refuses_writes(view, write):
    a = mg.tensor(np.arange(6.0).reshape(2, 3))
    v = VIEWS[view](a)
    a.requires_grad = True
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an"):
        WRITES[write](v)
    np.testing.assert_array_equal(a.detach().numpy(), np.arange(6.0).reshape(2, 3))
    with mg.no_grad():  # under no_grad the write is the user's, as in PyTorch
        WRITES[write](v)


def test_a_view_of_a_tensor_that_does_not_require_grad_still_takes_writes():
    a = mg.tensor(np.arange(6.0).reshape(2, 3))
    v = a[0]
    v.add_(1.0)
    np.testing.assert_array_equal(a.numpy()[0], [1.0, 2.0, 3.0])
