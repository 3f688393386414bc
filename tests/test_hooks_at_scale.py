"""Many hooks cost in proportion to how many: registering n hooks on one tensor, removing them (newest
first, as nested ``with`` blocks do), and a backward pass handing n hooked leaves their gradients one by
one.  Each was O(n^2) -- a scan of every hook (or every gradient the node sent) per hook: 10^4 hooks on
one leaf took 16 s to register and 2.5 s to remove; ``mg.stack`` of 10^4 leaves with post-accumulate
hooks took 25 s to backward (PyTorch: milliseconds).  The tests count the work, not the time: the
count grows linearly, where it grew with the square."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

tensor_module = sys.modules["minigrad_ckpt.tensor"]  # (mg.tensor is the function)


class _Counted:
    """A hook that counts how often it is compared for equality (a list scan compares each)."""

    compared = 0

    def __call__(self, g):
        return g

    def __eq__(self, other):
        type(self).compared += 1
        return self is other

    __hash__ = object.__hash__


def _ranks_read(monkeypatch, register, n):
    reads = [0]
    real = tensor_module.hook_rank

    def counting(hook):
        reads[0] += 1
        return real(hook)

    monkeypatch.setattr(tensor_module, "hook_rank", counting)
    register(n)
    return reads[0]


@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "post-accumulate"])
def test_registering_n_hooks_reads_o_n_ranks(monkeypatch, kind):
    def register(n):
        x = mg.ones(3, requires_grad=True)
        if kind == "post-accumulate":
            for _ in range(n):
                x.register_post_accumulate_grad_hook(lambda t: None)
            return
        y = x if kind == "leaf" else x * 2
        if kind == "non-leaf":
            y.retain_grad()  # a later rank at the end: new hooks go before it
        for _ in range(n):
            y.register_hook(lambda g: g)

    small, big = _ranks_read(monkeypatch, register, 200), _ranks_read(monkeypatch, register, 2000)
    assert big <= 12 * small, (small, big)  # 10x the hooks: ~10x the reads (it was ~100x)


def test_hooks_still_run_by_rank_in_registration_order():
    x = mg.ones(2, requires_grad=True)
    y = x * 2
    order = []
    y.register_hook(lambda g: order.append("a"))
    y.retain_grad()
    y.grad_fn.register_prehook(lambda gs: order.append("pre"))
    y.register_hook(lambda g: order.append("b"))
    y.register_hook(lambda g: order.append("c"))
    y.sum().backward()
    assert order == ["a", "b", "c", "pre"]  # PyTorch's: tensor hooks, retain_grad, then the pre-hooks
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("newest_first", [True, False])
def test_removing_n_hooks_newest_first_scans_none(newest_first):
    x = mg.ones(3, requires_grad=True)
    _Counted.compared = 0
    handles = [x.register_hook(_Counted()) for _ in range(300)]
    for h in (reversed(handles) if newest_first else handles):
        h.remove()
    assert not x._hooks
    assert _Counted.compared <= 600  # one comparison or so each (newest first: ~45,000 before)
    (x * 2).sum().backward()  # no hook left to run
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_removing_a_node_hook_newest_first_keeps_the_count_of_hooked_nodes():
    from minigrad_ckpt.tape import node_hook_count
    before = node_hook_count[0]
    y = mg.ones(2, requires_grad=True) * 2
    h1 = y.grad_fn.register_hook(lambda gi, go: None)
    h2 = y.grad_fn.register_hook(lambda gi, go: None)
    assert node_hook_count[0] == before + 1
    h2.remove()
    h1.remove()
    assert node_hook_count[0] == before  # the backward loop looks for node hooks again only when some exist


def _owners_read(monkeypatch, n, device):
    leaves = [mg.ones(2, dtype=mg.float32, requires_grad=True, device=device) for _ in range(n)]
    fired = []
    for t in leaves:
        t.register_post_accumulate_grad_hook(fired.append)
    xp_class = type(leaves[0]._device.xp)
    reads = [0]
    real = xp_class.memory_owner

    def counting(self, a):
        reads[0] += 1
        return real(self, a)

    monkeypatch.setattr(xp_class, "memory_owner", counting)
    (mg.stack(leaves) * 3).sum().backward()
    monkeypatch.setattr(xp_class, "memory_owner", real)
    assert len(fired) == n and all(t.grad.tolist() == [3.0, 3.0] for t in leaves)
    return reads[0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_handing_n_stacked_leaves_their_gradients_is_linear(monkeypatch, device):
    small, big = _owners_read(monkeypatch, 100, device), _owners_read(monkeypatch, 1000, device)
    assert big <= 15 * small, (small, big)  # it was ~100x: every leaf scanned what the stack sent


def test_stacked_leaves_each_get_a_gradient_of_their_own():
    # stack's backward sends views of one array: a post-accumulate hook that writes into one leaf's
    # .grad (DDP's mean does) must not change another's
    leaves = [mg.ones(2, requires_grad=True) for _ in range(20)]
    def halve(t):
        t.grad.mul_(0.5)

    for t in leaves:
        t.register_post_accumulate_grad_hook(halve)
    (mg.stack(leaves) * mg.arange(20.0).reshape(20, 1)).sum().backward()
    assert [t.grad.tolist() for t in leaves] == [[k / 2, k / 2] for k in range(20)]
