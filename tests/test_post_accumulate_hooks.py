"""``Tensor.register_post_accumulate_grad_hook``: fired once per leaf per backward,
during the backward loop, as soon as the leaf's ``.grad`` is final."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.backward import current_backward, queue_callback
from minigrad_ckpt.tensor import post_hook_count


def leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def test_fires_once_with_the_accumulated_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.numpy().copy()))
    (x * x + x).sum().backward()  # two edges into x
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], [3.0, 5.0])
    (x * 1.0).sum().backward()  # .grad accumulates; the hook sees the total
    np.testing.assert_array_equal(seen[1], [4.0, 6.0])


def test_fires_during_the_loop_in_reverse_order_of_use():
    # w1 is used first in forward, so its gradient is final last; w2's hook
    # must run before the engine has finished w1's branch.
    w1, w2 = leaf([2.0]), leaf([3.0])
    events = []
    w1.register_post_accumulate_grad_hook(lambda t: events.append(("w1", w2.grad is not None)))
    w2.register_post_accumulate_grad_hook(lambda t: events.append(("w2", w1.grad is not None)))
    h = mg.tanh(w1 * 1.5)
    h.register_hook(lambda g: events.append(("h", None)))
    (h * w2).sum().backward()
    assert [e[0] for e in events] == ["w2", "h", "w1"]
    assert events[0][1] is False  # w1's gradient did not exist yet when w2's hook ran
    assert events[2][1] is True


def test_after_tensor_hooks_and_with_their_result():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.numpy().copy()))
    (x * x).sum().backward()
    np.testing.assert_array_equal(seen[0], [20.0, 40.0])


def test_every_mlp_parameter_fires_exactly_once_with_final_grad():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
    x = mg.randn(5, 4)
    ref = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
    ref.load_state_dict(model.state_dict())
    ref(x).sum().backward()
    counts = {}
    snapshots = {}

    def hook(name):
        def fn(t):
            counts[name] = counts.get(name, 0) + 1
            snapshots[name] = t.grad.numpy().copy()
        return fn

    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(hook(name))
    model(x).sum().backward()
    assert counts == {name: 1 for name, _ in model.named_parameters()}
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        np.testing.assert_array_equal(snapshots[name], q.grad.numpy())
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_with_activation_checkpointing_fires_once_per_parameter():
    from minigrad_ckpt.checkpoint import checkpoint_sequential

    mg.manual_seed(1)
    model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(6, 6), nn.Tanh())])
    counts = {}
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda t, n=name: counts.__setitem__(n, counts.get(n, 0) + 1))
    x = mg.randn(3, 6)
    checkpoint_sequential(model, 2, x).sum().backward()
    assert counts == {name: 1 for name, _ in model.named_parameters()}


def test_unused_leaf_does_not_fire_and_leaf_root_fires():
    x, unused = leaf([1.0]), leaf([5.0])
    fired = []
    unused.register_post_accumulate_grad_hook(lambda t: fired.append("unused"))
    x.register_post_accumulate_grad_hook(lambda t: fired.append("x"))
    (x * 2).sum().backward()
    assert fired == ["x"]
    x.backward(mg.tensor([1.0], dtype="float64"))  # the leaf is the root itself
    assert fired == ["x", "x"]


def test_not_fired_by_mg_grad_and_removable():
    import gc

    gc.collect()  # earlier tests' dead tensors
    before = post_hook_count[0]
    x = leaf([1.0])
    fired = []
    handle = x.register_post_accumulate_grad_hook(lambda t: fired.append(1))
    assert post_hook_count[0] == before + 1
    mg.grad((x * x).sum(), x)
    assert fired == []
    handle.remove()
    assert post_hook_count[0] == before  # backward no longer counts leaf edges
    (x * x).sum().backward()
    assert fired == []
    x.register_post_accumulate_grad_hook(lambda t: None)
    assert post_hook_count[0] == before + 1
    del x, handle
    gc.collect()
    assert post_hook_count[0] == before  # a dead tensor's hooks stop counting


def _scale_grad_by_7(t):
    t.grad.data.mul_(7)  # (a post-accumulate hook returns None: PyTorch refuses a value)


def test_early_grad_does_not_alias_another_leafs_gradient():
    # Add hands one array to both inputs; x's .grad is given out during the
    # loop and must not share memory with y's, given out after it.
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    x.register_post_accumulate_grad_hook(_scale_grad_by_7)
    (x + y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 7.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


@pytest.mark.parametrize("hooked", ["x", "y", "both"])
def test_an_early_grad_never_shares_an_array_still_in_flight(hooked):
    # Add hands one array to x and to the node that made h: x's .grad, given out while that
    # array is still on its way to y (through h), must be a copy -- whichever of the two
    # leaves is handed over early.  (Arrays nothing else holds are handed over as they are.)
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    for t in {"x": [x], "y": [y], "both": [x, y]}[hooked]:
        t.register_post_accumulate_grad_hook(_scale_grad_by_7)
    h = y * 2.0
    (x + h).sum().backward()
    scale_x = 7.0 if hooked in ("x", "both") else 1.0
    scale_y = 7.0 if hooked in ("y", "both") else 1.0
    np.testing.assert_array_equal(x.grad.numpy(), [scale_x, scale_x])
    np.testing.assert_array_equal(y.grad.numpy(), [2.0 * scale_y, 2.0 * scale_y])


def test_an_early_grad_is_the_ops_own_array_when_nothing_else_holds_it(monkeypatch):
    # a matmul's weight gradient reaches only w: handed over without a copy (DDP's hooks
    # made every parameter's gradient a copy, 2.3 ms a step for 7 MiB)
    from minigrad_ckpt.ops.linalg import MatMul

    made = []
    backward = MatMul.backward

    def spy(self, *args, **kwargs):
        grads = backward(self, *args, **kwargs)
        made.extend(id(g) for g in grads if g is not None)
        return grads

    monkeypatch.setattr(MatMul, "backward", spy)
    x, w = mg.randn(4, 3, dtype=mg.float64), leaf(np.ones((3, 2)))  # (one dtype: PyTorch refuses two)
    seen = []
    w.register_post_accumulate_grad_hook(lambda t: seen.append(id(t.grad._data)))
    (x @ w).sum().backward()
    assert len(seen) == 1 and seen[0] in made
    np.testing.assert_allclose(w.grad.numpy(), np.repeat(x.numpy().sum(0)[:, None], 2, axis=1))


def test_float32_leaf_and_create_graph():
    x = leaf([1.0, 2.0], dtype="float32")
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.dtype))
    (x * mg.tensor([3.0, 4.0], dtype="float64")).sum().backward()
    assert seen == [mg.float32]
    y = leaf([3.0])
    y.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.requires_grad))
    (y * y).sum().backward(create_graph=True)
    assert seen[-1] is True
    np.testing.assert_array_equal(y.grad.numpy(), [6.0])


def test_queue_callback_runs_before_backward_returns():
    x = leaf([1.0])
    order = []

    def hook(t):
        order.append("hook")
        assert current_backward() is not None and not current_backward().create_graph
        queue_callback(lambda: order.append("callback"))

    x.register_post_accumulate_grad_hook(hook)
    (x * 3).sum().backward()
    order.append("returned")
    assert order == ["hook", "callback", "returned"]
    assert current_backward() is None
    with pytest.raises(RuntimeError, match="only be called while backward"):
        queue_callback(lambda: None)


def test_only_on_leaves():
    # torch 2.13's words (the engine's were its own: "can only be registered on leaf tensors", "does not
    # require grad"), which ported tests match
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on non-leaf tensors$"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        mg.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        mg.tensor([1.0]).register_hook(lambda g: None)


def _halve_grad_in_place(t):
    t.grad._data.__imul__(0.5)  # what DDP's mean does: divide(..., out=.grad)


@pytest.mark.parametrize("kind", ["returned", "kept"])
def test_an_early_grad_is_a_copy_of_what_a_tensor_hook_returned_or_kept(kind):
    # a hook on a non-leaf may return an array of its own, or keep the one it got; Clone passes
    # it on as it is, so the leaf's .grad, written in place by its post-accumulate hook, must not
    # be that array
    x = leaf([1.0, 1.0, 1.0])
    x.register_post_accumulate_grad_hook(_halve_grad_in_place)
    fixed, kept = mg.tensor(np.array([1.0, 2.0, 3.0])), []
    y = x.clone()
    y.register_hook((lambda g: fixed) if kind == "returned" else kept.append)
    (y * 2.0).sum().backward()
    if kind == "returned":
        np.testing.assert_array_equal(fixed.numpy(), [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(x.grad.numpy(), [0.5, 1.0, 1.5])
    else:
        np.testing.assert_array_equal(kept[0].numpy(), [2.0, 2.0, 2.0])
        np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_an_early_grad_on_one_device_with_gradients_in_flight_on_another():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

    z = mg.randn(3, device="cpu", requires_grad=True)
    v = z * 3.0
    x = mg.randn(3, device="strict", requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    ((x * 2.0).to("cpu").sum() + v.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(z.grad.numpy(), [3.0, 3.0, 3.0])


def test_backward_steps_keep_what_they_sent_when_a_hook_writes_grad():
    w = leaf([1.0, 1.0, 1.0])
    w.register_post_accumulate_grad_hook(_halve_grad_in_place)
    steps = list(mg.backward_steps((w * mg.tensor(np.array([1.0, 2.0, 3.0]))).sum()))
    np.testing.assert_array_equal(steps[1].accumulated[0][1].numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(steps[1].grad_inputs[0].numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w.grad.numpy(), [0.5, 1.0, 1.5])
