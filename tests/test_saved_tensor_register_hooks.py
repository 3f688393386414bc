"""``grad_fn._raw_saved_self`` / ``_raw_saved_other`` / ``_raw_saved_result`` and their
``register_hooks(pack_hook, unpack_hook)``: PyTorch's hooks on ONE saved value (the saved tensors hooks
tutorial's "Registering hooks for a saved tensor").  ``y = x.pow(2); y.grad_fn._raw_saved_self`` was an
AttributeError.  torch 2.13: the pack hook runs at once, the unpack hook each time backward (or
``_saved_self``) reads the value, a second pair is refused ("whose hooks have already been set") and so is
a pair after backward freed the node ("after it has been freed"); a value that went through hooks comes
back from ``_saved_self`` as a new Tensor, not the leaf (``is x`` is False) -- under
``saved_tensors_hooks`` too, where the engine answered True.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import saved_tensors_hooks
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

X = [0.5, -1.25, 2.0, 0.75]
SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _host(t):
    return t.cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_one_saved_value_gets_its_own_hooks(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    calls = []
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: calls.append("pack") or t * 4,
                                             lambda t: calls.append("unpack") or t / 4)
    assert calls == ["pack"]  # packed when registered
    saved = y.grad_fn._saved_self
    assert saved is not x and calls == ["pack", "unpack"]
    np.testing.assert_array_equal(_host(saved), _host(x.detach()))
    y.sum().backward()
    assert calls == ["pack", "unpack", "unpack"]
    np.testing.assert_array_equal(_host(x.grad), 2 * _host(x.detach()))
    with pytest.raises(RuntimeError, match="after it has been freed"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_hooks_on_self_other_and_result_keep_first_and_second_derivatives(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    store = {}

    def to_store(t):  # the tutorial's pack to disk, by name
        store[f"v{len(store)}"] = t.detach().clone()
        return f"v{len(store) - 1}"

    z = x * x.sin()
    z.grad_fn._raw_saved_self.register_hooks(to_store, store.__getitem__)
    z.grad_fn._raw_saved_other.register_hooks(lambda t: -t, lambda t: -t)
    e = z.exp()
    e.grad_fn._raw_saved_result.register_hooks(to_store, store.__getitem__)
    assert len(store) == 2
    (g,) = mg.autograd.grad(e.sum(), x, create_graph=True)
    g.sum().backward()
    v = np.array(X)
    s, c = np.sin(v), np.cos(v)
    dz, d2z = s + v * c, 2 * c - v * s
    ez = np.exp(v * s)
    tol = 1e-12 if dtype == mg.float64 else 2e-5
    np.testing.assert_allclose(_host(g), ez * dz, rtol=tol)
    np.testing.assert_allclose(_host(x.grad), ez * (dz ** 2 + d2z), rtol=tol)


def test_one_pair_per_value_and_the_unpack_hook_must_give_a_tensor():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    y = x.pow(3)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 5)
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.sum().backward()
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        w = x.pow(2)
    assert w.grad_fn._saved_self is not x  # unpacked: a new Tensor, as PyTorch's
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        w.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(AttributeError, match="_saved_result"):
        x.pow(2).grad_fn._raw_saved_result  # noqa: B018 (pow keeps its input, not its output)


def test_retained_graph_unpacks_at_each_backward_and_checkpoint_nodes_are_refused():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    count = []
    v = x.tanh()
    v.grad_fn._raw_saved_result.register_hooks(lambda t: t.clone(), lambda t: count.append(1) or t)
    v.sum().backward(retain_graph=True)
    v.sum().backward()
    assert len(count) == 2
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - np.tanh(np.array(X)) ** 2), rtol=1e-14)

    def block(h):
        out = h.tanh()
        with pytest.raises(RuntimeError, match="checkpoint segment"):
            out.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        return out

    mg.checkpoint.checkpoint(block, x, use_reentrant=False).sum().backward()


def test_the_memory_ledger_lets_a_hooked_value_go_and_the_rest_at_backward():
    x = mg.tensor(np.linspace(-1, 1, 1000), requires_grad=True)
    with mg.memory.track() as ledger:
        z = x * x.sin()  # saves x (a leaf: not counted) and sin(x) (counted)
        held = ledger.live_bytes["saved"]
        z.grad_fn._raw_saved_other.register_hooks(lambda t: t.clone(), lambda t: t)
        assert ledger.live_bytes["saved"] == held - 8000  # sin(x) is the hook's now
        y = x.exp()
        w = y * y.sin()
        w.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
        (z.sum() + w.sum()).backward()
        assert ledger.live_bytes["saved"] == 0  # w's sin(y), still the tape's, left with the backward


def test_the_ledger_lets_go_of_a_hooked_node_what_it_held_not_a_parameters_memory():
    # a node whose slot was given hooks held its values without the parameter's (as every node does), but
    # let go of them with it: another node's count of the same memory (w.detach(), saved) left the ledger
    w = mg.tensor(np.linspace(1, 2, 1000), requires_grad=True)
    h = mg.tensor(np.linspace(-1, 1, 1000), requires_grad=True)
    with mg.memory.track() as ledger:
        c = w.detach() * (h * 1.0)  # saves w's memory as a constant (counted) and h * 1.0
        held_by_c = ledger.live_bytes["saved"]
        z = w * (h * 2.0)  # saves w (a parameter: not counted) and h * 2.0 (counted)
        z.grad_fn._raw_saved_other.register_hooks(lambda t: t.clone(), lambda t: t)
        z.sum().backward()
        assert ledger.live_bytes["saved"] == held_by_c  # c still holds w's memory and h * 1.0
        c.sum().backward()
        assert ledger.live_bytes["saved"] == 0
