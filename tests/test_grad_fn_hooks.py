"""PyTorch's hooks on the graph's nodes: ``grad_fn.register_prehook`` / ``register_hook`` (and the
``AccumulateGrad`` of ``next_functions``), ``grad_fn.metadata``, and a tensor hook's handle as a context
manager -- each an AttributeError (or TypeError) before.

Expected values and call orders: torch 2.13 on the same programs (small enough to read off):
``y = x * 2; y.grad_fn.register_prehook(lambda go: (go[0] * 10,)); y.sum().backward()`` -> ``x.grad == [20, 20]``;
tensor hooks, then ``retain_grad``'s, then the node's pre-hooks; ``AccumulateGrad``'s pre-hook after the
leaf's tensor hooks, its hook (``((), (grad,))``) after the post-accumulate hooks.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _values(gs):
    return [None if g is None else g.tolist() for g in gs]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_prehook_sees_the_gradient_after_the_tensor_hooks_and_may_replace_it(device, dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = x * 2
    calls = []
    y.grad_fn.register_prehook(lambda go: (calls.append(("pre", _values(go))), (go[0] * 10,))[1])
    y.register_hook(lambda g: (calls.append(("tensor", g.tolist())), g * 2)[1])  # registered later, runs first
    y.retain_grad()
    y.sum().backward()
    assert calls == [("tensor", [1.0, 1.0]), ("pre", [[2.0, 2.0]])]
    assert y.grad.tolist() == [2.0, 2.0]  # retain_grad's hook runs before the node's pre-hooks
    assert x.grad.tolist() == [40.0, 40.0] and x.grad.dtype == dtype


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_post_hook_sees_each_input_gradient_at_its_shape_and_may_replace_them(device, dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, device=device, requires_grad=True)
    y = x * w  # x is broadcast: its gradient reaches the hook summed to (2,)
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append((_values(gi), _values(go))))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
    y.sum().backward()
    assert seen == [([[4.0, 6.0], [[1.0, 2.0], [1.0, 2.0]]], [[[1.0, 1.0], [1.0, 1.0]]])]
    assert x.grad.tolist() == [40.0, 60.0] and w.grad is None


def test_a_post_hook_gets_none_for_a_constant_and_for_what_mg_grad_does_not_ask():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    y = x * w
    y.grad_fn.register_hook(lambda gi, go: seen.append(_values(gi)))
    mg.autograd.grad(y.sum(), x, retain_graph=True)
    z = x * 2
    z.grad_fn.register_hook(lambda gi, go: seen.append(_values(gi)))
    z.sum().backward()
    assert seen == [[[3.0, 4.0], None], [[2.0, 2.0], None]]


def test_hooks_of_a_custom_function_node_and_their_handles():
    class Square(mg.autograd.Function):  # PyTorch's setup_context style
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            return 2 * ctx.saved_tensors[0] * g

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = Square.apply(x)
    calls = []
    pre = y.grad_fn.register_prehook(lambda go: calls.append(("pre", _values(go))))
    with y.grad_fn.register_hook(lambda gi, go: calls.append(("post", _values(gi), _values(go)))):
        y.sum().backward(retain_graph=True)
    pre.remove()
    pre.remove()  # twice is harmless
    y.sum().backward()
    assert calls == [("pre", [[1.0, 1.0]]), ("post", [[2.0, 4.0]], [[1.0, 1.0]])]


def test_hooks_with_create_graph_get_tensors_on_the_graph():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * x,))  # recorded: part of the gradient's history
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.requires_grad
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 2.0]) * [1.0, 2.0])
    g.sum().backward()  # through exp's node again, hook and all: d(e^x x)/dx = e^x x * x + e^x (torch 2.13)
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) * [2.0, 5.0])


def test_what_a_hook_returns_is_checked():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match=r"incorrect number of values \(got 2, but expected 1\)"):
        y.sum().backward()
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match=r"incorrect number of values \(got 2, but expected 1\)"):
        y.sum().backward()
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0].sum(),))
    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        y.sum().backward()


def test_hooks_on_a_node_inside_a_checkpoint_segment():
    x = mg.tensor([0.5, 1.0], dtype=mg.float64, requires_grad=True)
    nodes = []

    def f(t):
        h = t.sin()
        nodes.append(h.grad_fn)
        return h * 3

    out = mg.checkpoint.checkpoint(f, x)
    seen = []
    nodes[0].register_prehook(lambda go: seen.append(_values(go)))
    nodes[0].register_hook(lambda gi, go: (gi[0] * 2,))
    out.sum().backward()
    assert seen == [[[3.0, 3.0]]]
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.cos([0.5, 1.0]))


def test_accumulate_grad_hooks_run_around_the_accumulation_of_the_leaf():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    calls = []
    acc.register_hook(lambda gi, go: calls.append(("acc post", gi, _values(go), x.grad.tolist())))
    x.register_post_accumulate_grad_hook(lambda t: calls.append(("post-accumulate", t.grad.tolist())))
    acc.register_prehook(lambda go: (calls.append(("acc pre", _values(go))), (go[0] + 1,))[1])
    x.register_hook(lambda g: (calls.append(("tensor", g.tolist())), g * 3)[1])
    (x * 2).sum().backward()
    assert calls == [("tensor", [2.0, 2.0]), ("acc pre", [[6.0, 6.0]]), ("post-accumulate", [7.0, 7.0]),
                     ("acc post", (), [[7.0, 7.0]], [7.0, 7.0])]
    calls.clear()
    # no accumulation: torch 2.13 runs no AccumulateGrad, so neither its pre-hook nor its hook (the tensor hook runs)
    assert mg.autograd.grad((x * 2).sum(), x)[0].tolist() == [6.0, 6.0]
    assert [c[0] for c in calls] == ["tensor"]


def test_the_old_data_parallel_idiom_an_accumulate_grad_hook_per_parameter():
    model = mg.nn.Linear(3, 2)
    ready = []
    accs = []  # kept alive, as DDP kept them
    for name, p in model.named_parameters():
        acc = p.view_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, name=name: ready.append(name))
        accs.append(acc)
    model(mg.ones(4, 3)).sum().backward()
    assert sorted(ready) == ["bias", "weight"]


def test_grad_fn_metadata_is_a_dict_of_the_users():
    y = mg.tensor([1.0], requires_grad=True) * 2
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["stage"] = 3
    assert y.grad_fn.metadata == {"stage": 3}


def test_a_tensor_hook_handle_is_a_context_manager():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with x.register_hook(lambda g: g * 5):
        (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [18.0, 18.0]  # torch 2.13: 15 + 3


def test_the_count_of_nodes_with_hooks_follows_registration_removal_and_death():
    # The backward loop reads node.backward_hooks only while some node has hooks (tape.node_hook_count):
    # the count must come back to where it was, or every later pass leaves its fast path.
    import gc

    from minigrad_ckpt import tape

    gc.collect()  # nodes with hooks that earlier tests left in cycles go now, not in the middle
    start = tape.node_hook_count[0]
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).tanh()
    seen = []
    h1 = y.grad_fn.register_hook(lambda gi, go: seen.append(1))
    h2 = y.grad_fn.register_hook(lambda gi, go: seen.append(2))
    assert tape.node_hook_count[0] == start + 1
    y.sum().backward(retain_graph=True)
    assert seen == [1, 2]
    h1.remove()
    h2.remove()
    assert tape.node_hook_count[0] == start
    y.sum().backward()
    assert seen == [1, 2]
    z = (x * 2).exp()
    z.grad_fn.register_hook(lambda gi, go: None)
    assert tape.node_hook_count[0] == start + 1
    del z
    gc.collect()
    assert tape.node_hook_count[0] == start


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_node_hook_registered_by_a_tensor_hook_during_backward_runs(device, dtype):
    # torch 2.13: the hook runs when its node's turn comes (no node had hooks when the pass began)
    x = mg.tensor([1.0, -2.0], dtype=dtype, device=device, requires_grad=True)
    y = x.exp()
    z = y.exp()
    seen = []
    z.register_hook(lambda g: y.grad_fn.register_hook(lambda gi, go: seen.append(_values(gi))) and None)
    z.sum().backward()
    expected = (np.exp(np.exp([1.0, -2.0])) * np.exp([1.0, -2.0])).tolist()
    assert len(seen) == 1 and np.allclose(seen[0][0], expected, rtol=1e-5)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_an_accumulate_grad_pre_hook_runs_only_where_the_leaf_accumulates(device, dtype):
    # torch 2.13: mg.grad runs no AccumulateGrad -> [3, 3] and no call; backward(inputs=) and backward() -> [30, 30]
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (calls.append(go[0].tolist()), (go[0] * 10,))[1])
    assert mg.autograd.grad(y.sum(), x, retain_graph=True)[0].tolist() == [3.0, 3.0] and calls == []
    assert mg.autograd.grad(y.sum(), x, retain_graph=True, create_graph=True)[0].tolist() == [3.0, 3.0] and calls == []
    y.sum().backward(inputs=[x], retain_graph=True)
    assert x.grad.tolist() == [30.0, 30.0] and x.grad.dtype == dtype
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [30.0, 30.0] and calls == [[3.0, 3.0]] * 2


@pytest.mark.parametrize("device, dtype", SEAMS[:3])  # (strict-f32 holds no other dtype to return)
def test_a_post_hook_returning_another_dtype_is_refused(device, dtype):
    # torch 2.13: RuntimeError "hook '<lambda>' has changed the type of value (was torch.FloatTensor got
    # torch.DoubleTensor)" -- as a tensor hook's; the engine cast it silently before
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = x * 3
    other = mg.float32 if dtype == mg.float64 else mg.float64
    y.grad_fn.register_hook(lambda gi, go: (gi[0].to(other), None))
    with pytest.raises(RuntimeError, match="changed the type of value"):
        y.exp().sum().backward()


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("create_graph", [False, True])
def test_anomaly_mode_checks_what_a_post_hook_sends_on(device, dtype, create_graph):
    # torch 2.13 checks a node's outputs for NaN after its post hooks: "Function 'ExpBackward0' returned nan
    # values in its 0th output."; the engine checked the op's own gradients, before the hooks
    x = mg.tensor([0.5, -1.0], dtype=dtype, device=device, requires_grad=True)
    nan = mg.tensor([float("nan")] * 2, dtype=dtype, device=device)
    with mg.autograd.detect_anomaly():
        y = x.exp()
        y.grad_fn.register_hook(lambda gi, go: (nan,))
        with pytest.raises(RuntimeError, match="NaN"):
            mg.autograd.grad(y.sum(), x, create_graph=create_graph)
