"""``Tensor._version``, PyTorch's name, is an int that changes with every in-place write.

Code written for PyTorch reads it to tell whether a tensor was written (``v = t._version; ...;
t._version != v``: torch.utils.checkpoint, optimizers' foreach paths, libraries that cache on it).
It was the engine's version *box*, a one-element list shared with the tensor's views, so ``v`` was
the very list the write changed and the comparison never saw a change.  Now the box is
``_version_box`` and ``_version`` its stamp, read-only as PyTorch's.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict")


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_write_changes_the_version_read_before_it(device):
    t = mg.zeros(4, device=device)
    v = t._version
    assert isinstance(v, int) and t._version == v  # reading changes nothing
    t.add_(1)
    assert t._version != v and t._version > v
    w = t._version
    t[1:].mul_(2)  # a write through a view is a write of the base (and the view shares the version)
    assert t._version != w and t[1:]._version == t._version
    u = t._version
    t.clone().add_(1)  # a copy's write is not the tensor's
    (t + 1).sum()
    assert t._version == u


def test_under_no_grad_and_through_an_optimizer_step_the_version_moves():
    p = mg.nn.Parameter(mg.ones(3))
    v = p._version
    p.sum().backward()
    mg.optim.SGD([p], lr=0.1).step()
    assert p._version != v


def test_the_version_is_read_only_as_pytorchs():
    t = mg.zeros(2)
    with pytest.raises(AttributeError):
        t._version = 3
