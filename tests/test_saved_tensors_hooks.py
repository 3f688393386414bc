"""``mg.autograd.graph.saved_tensors_hooks`` / ``save_on_cpu``: PyTorch's hooks on the values the tape
saves for backward (pytorch/tutorials intermediate_source/autograd_saved_tensors_hooks_tutorial.py).
``mg.autograd.graph`` was an AttributeError.  torch 2.13, on the tutorial's programs: the gradients are
unchanged by hooks that round-trip (``x * 4`` / ``x / 4``, an index into a list, a copy on the CPU), the
pack hook runs when the op is recorded and the unpack hook when backward reads, what the pack hook
returned is released after backward (its ``__del__`` runs), an unpack hook that returns no tensor is a
TypeError, and ``disable_saved_tensors_hooks`` refuses new hooks with its message.
"""

from __future__ import annotations

import contextlib
import gc

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

X = [0.5, -1.25, 2.0, 0.75, -0.3]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_the_tutorials_round_trips_keep_the_gradients(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    with saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        y = mg.pow(x, 2)
    y.sum().backward()
    assert x.grad.equal(2 * x.detach())
    storage = []

    def pack(t):
        storage.append(t)
        return len(storage) - 1

    x.grad = None
    with saved_tensors_hooks(pack, lambda i: storage[i]):
        y = x * x
    assert len(storage) >= 1  # packed when recorded
    y.sum().backward()
    assert x.grad.equal(2 * x.detach())
    x.grad = None
    with save_on_cpu(pin_memory=True):
        y = (x * x.sin()).sum()
    y.backward()
    want = x.detach().sin() + x.detach() * x.detach().cos()
    np.testing.assert_allclose(x.grad.cpu().numpy(), want.cpu().numpy(), rtol=1e-6)


def test_unpack_runs_at_backward_and_the_packed_values_are_released_after():
    events, deleted = [], []

    class Packed:
        def __init__(self, t):
            self.t = t.clone()

        def __del__(self):
            deleted.append(1)

    def pack(t):
        events.append("pack")
        return Packed(t)

    def unpack(p):
        events.append("unpack")
        return p.t

    x = mg.tensor(X, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = x.exp()
    assert set(events) == {"pack"}
    n = events.count("pack")
    y.sum().backward(retain_graph=True)  # kept: a second backward unpacks again
    assert events.count("unpack") == n and not deleted
    y.sum().backward()
    assert events.count("unpack") == 2 * n
    gc.collect()
    assert len(deleted) == n  # released with the graph, as PyTorch's (its tutorial's self-deleting temp files)
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(np.array(X, np.float32)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time|freed"):
        y.sum().backward()


def test_second_derivatives_through_packed_values():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        y = (x.sin() * x).sum()
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), x)
    a = np.array(X)
    np.testing.assert_allclose(g.detach().numpy(), np.sin(a) + a * np.cos(a), rtol=1e-14)
    np.testing.assert_allclose(gg.numpy(), 2 * np.cos(a) - a * np.sin(a), rtol=1e-14)


def test_inside_a_checkpoint_and_nested_hooks():
    outer, inner = [], []
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            y = x.tanh()
        z = mg.checkpoint.checkpoint(lambda v: (v * v).exp(), y, use_reentrant=False)
    assert inner == [1] and not outer  # the innermost pair took tanh's output; the checkpoint saved nothing
    z.sum().backward()
    assert inner == [1] and outer == [1, 1, 1]  # its replay packed what it recomputed: v twice (mul), exp's output
    a = np.tanh(np.array(X))
    np.testing.assert_allclose(x.grad.numpy(), np.exp(a * a) * 2 * a * (1 - a * a), rtol=1e-13)


def test_refusals():
    x = mg.tensor(X, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: "not a tensor"):
        y = x.exp()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type str"):
        y.sum().backward()
    with disable_saved_tensors_hooks("no hooks in here"):
        with pytest.raises(RuntimeError, match="no hooks in here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after the block
        (x * x).sum().backward()


def test_disabling_where_hooks_are_active_is_refused():
    # torch 2.13: entering disable_saved_tensors_hooks(msg) inside saved_tensors_hooks raises RuntimeError(msg)
    # at once; the engine entered it and packed the ops inside with the outer hooks
    x = mg.tensor(X, requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        with pytest.raises(RuntimeError, match="^no hooks in here$"):
            with disable_saved_tensors_hooks("no hooks in here"):
                x.exp()
        assert packed == []
        with pytest.raises(RuntimeError, match="in a decorated function"):
            disable_saved_tensors_hooks("in a decorated function")(lambda: None)()
    with disable_saved_tensors_hooks("no hooks in here"):  # outside them it is entered, and nests
        with disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError, match="inner"):
                saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        with pytest.raises(RuntimeError, match="no hooks in here"):
            saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()


def test_the_saved_values_as_pytorchs_grad_fn_attributes():
    # the tutorial's first part; torch 2.13: _saved_self / _saved_other of a * b are a and b themselves,
    # exp's _saved_result equals y but is another object, exp has no _saved_self (AttributeError), and
    # after backward a saved value is gone (RuntimeError); with hooks, reading it calls the unpack hook
    a = mg.tensor(X, requires_grad=True)
    b = mg.ones(5, requires_grad=True)
    y = a * b
    assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
    y = mg.exp(a)
    assert y.grad_fn._saved_result.equal(y) and y.grad_fn._saved_result is not y
    with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute '_saved_self'"):
        y.grad_fn._saved_self
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn._saved_result
    calls = []
    with saved_tensors_hooks(lambda t: t * 4, lambda t: calls.append(1) or t / 4):
        z = a.pow(2)
    assert z.grad_fn._saved_self.equal(a.detach()) and calls == [1]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
@pytest.mark.parametrize("write", [lambda t: t.mul_(2), lambda t: t.__setitem__(0, 5.0), lambda t: t[1:].zero_()],
                         ids=["mul_", "setitem", "view-zero_"])
def test_a_pack_hook_that_writes_its_input_in_place_is_refused(device, dtype, write):
    # torch 2.13: RuntimeError "A saved tensor pack hook is modifying its input in place. ..."; the engine
    # let the write change x (a leaf that requires grad) under the graph, and backward used the new values
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)

    def pack(t):
        write(t)
        return t

    with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input in place"):
        with saved_tensors_hooks(pack, lambda t: t):
            x * x
    with saved_tensors_hooks(lambda t: t.mul(2), lambda t: t / 2):  # out of place: allowed
        y = (x * x).sum()
    y.backward()


def test_the_memory_ledger_changes_no_answer_and_counts_what_the_hooks_left():
    # the hooks ran only while the ledger was off: measuring memory changed the gradient (a pack hook
    # that rounds to float32 was skipped) and counted arrays the hooks would have taken
    def run(track):
        x = mg.tensor(np.linspace(-2, 2, 1000), requires_grad=True)
        with contextlib.ExitStack() as stack:
            ledger = stack.enter_context(mg.memory.track()) if track else None
            with mg.autograd.graph.saved_tensors_hooks(lambda t: t.float(), lambda t: t.double()):
                y = (x.sin() * x.exp()).sum()
            held = ledger.live("saved") if track else None
            y.backward()
        return x.grad.numpy(), held

    plain, _ = run(False)
    tracked, held = run(True)
    np.testing.assert_array_equal(tracked, plain)
    assert held == 0  # every saved array is the hooks' (float32 copies), none the tape's
