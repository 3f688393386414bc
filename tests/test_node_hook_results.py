"""What a node's hooks return (``grad_fn.register_prehook``, ``grad_fn.register_hook``, an ``AccumulateGrad``'s
pre-hook), checked and followed as PyTorch does, and where ``mg.grad`` takes a requested intermediate's gradient
relative to its node's pre-hooks.  The expected values are torch 2.13's (CPU), noted beside each."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _square(device="cpu", dtype=mg.float32):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    return x, x * x


def _refused(hook_kind, hook, error, words):
    x, y = _square()
    if hook_kind == "pre":
        y.grad_fn.register_prehook(hook)
    elif hook_kind == "post":
        y.grad_fn.register_hook(hook)
    else:
        y.grad_fn.next_functions[0][0].register_prehook(hook)
    with pytest.raises(error, match=words):
        y.sum().backward()


@pytest.mark.parametrize("kind", ["pre", "post", "accumulate"])
def test_a_hook_returns_a_tuple_not_a_list(kind):
    # torch 2.13: TypeError "expected tuple, but hook returned 'list'" (the engine took the list)
    hook = (lambda gi, go: [gi[0] * 2, gi[1]]) if kind == "post" else (lambda go: [go[0] * 2])
    _refused(kind, hook, TypeError, "expected tuple, but hook returned 'list'")


def test_what_a_hook_returns_is_checked_in_pytorchs_words():
    # torch 2.13: a node pre-hook's number is TypeError "expected tuple, but hook returned 'int'" (the engine's
    # was a RuntimeError), a number in the tuple is TypeError "expected Variable, but hook returned 'int'",
    # a Tensor where the gradient was None "can't replace a None gradient with a non-None value" (the engine
    # dropped it), a gradient of another shape "hook '<lambda>' has changed the size of value"
    _refused("pre", lambda go: 5, TypeError, "expected tuple, but hook returned 'int'")
    _refused("accumulate", lambda go: 5, TypeError, "expected tuple, but hook returned 'int'")
    _refused("post", lambda gi, go: gi[0], TypeError, "expected tuple, but hook returned 'Tensor'")
    _refused("post", lambda gi, go: (3, gi[1]), TypeError, "expected Variable, but hook returned 'int'")
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2  # the engine's and PyTorch's MulBackward0 both have two inputs: the number's gradient is None
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        y.sum().backward()
    _refused("post", lambda gi, go: (gi[0][:1], gi[1]), RuntimeError, "hook '.*<lambda>' has changed the size of value")


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("create_graph", [False, True])
def test_a_pre_hook_returning_none_sends_no_gradient(device, dtype, create_graph):
    # torch 2.13: y.grad_fn.register_prehook(lambda go: (None,)) leaves x.grad None, and a later pre-hook
    # gets (None,); the engine read the None as "no change" and sent the gradient on
    x, y = _square(device, dtype)
    z = mg.exp(y)
    seen = []
    y.grad_fn.register_prehook(lambda go: (None,))
    y.grad_fn.register_prehook(lambda go: seen.append(go))
    z.sum().backward(create_graph=create_graph)
    assert x.grad is None and seen == [(None,)]


def test_a_pre_hook_returning_none_inside_a_checkpoint_and_under_grad():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    w = mg.tensor([3.0, 4.0], dtype=mg.float64, requires_grad=True)

    def block(a):
        y = a * a
        y.grad_fn.register_prehook(lambda go: (None,))
        return mg.sin(y) + a

    loss = checkpoint(block, x).sum() + (w * x).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.0 + w.numpy())  # only the paths the hook left
    (gx,) = mg.grad((block(x) * w).sum(), x)
    np.testing.assert_allclose(gx.numpy(), w.numpy())


def test_an_accumulate_grad_pre_hook_returning_none_leaves_grad_and_calls_the_post_hook():
    # torch 2.13: x.grad stays None, the post-accumulate hook runs (seeing None)
    x, y = _square()
    seen = []
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (None,))
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad))
    y.sum().backward()
    assert x.grad is None and seen == [None]
    x, y = _square()  # a leaf without post-accumulate hooks takes the other way to .grad
    x.grad = mg.tensor([5.0, 5.0])
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (None,))
    (y * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_requested_intermediate_is_taken_before_its_nodes_pre_hooks(device, dtype):
    # torch 2.13: autograd.grad(z, y) captures y's gradient after y's tensor hooks, before y.grad_fn's
    # pre-hooks, which run only when the node runs: grad(z.sum(), y) is [3, 3] with no pre-hook call, where
    # the engine answered [30, 30] and called it; backward(inputs=[y]) gives y.grad [2, 2] (the engine's 20)
    calls = []
    x, y = _square(device, dtype)
    z = y * 2
    y.grad_fn.register_prehook(lambda go: (calls.append("pre"), (go[0] * 10,))[1])
    y.register_hook(lambda g: g + 1)
    (gy,) = mg.grad(z.sum(), y, retain_graph=True)
    assert gy.tolist() == [3.0, 3.0] and calls == []
    gy, gx = mg.grad(z.sum(), [y, x])  # the node runs now: its pre-hook changes what x gets
    assert gx.tolist() == [60.0, 120.0] and calls == ["pre"]
    x, y = _square(device, dtype)
    z = y * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    z.sum().backward(inputs=[y])
    assert y.grad.tolist() == [2.0, 2.0] and x.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_requested_intermediate_whose_node_runs_is_taken_before_its_tensor_hooks(device, dtype, create_graph):
    # torch 2.13: with x requested too, y's node runs, and autograd.grad(z.sum(), [y, x]) captures y's gradient
    # before y's tensor hook (g + 1), which then runs with the node: ([2, 2], [60, 120]); the engine gave [3, 3].
    # backward(inputs=[y, x]) sums into y.grad after the hook, as retain_grad does: [3, 3] in both
    x, y = _square(device, dtype)
    z = y * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    y.register_hook(lambda g: g + 1)
    gy, gx = mg.grad(z.sum(), [y, x], retain_graph=True, create_graph=create_graph)
    assert gy.tolist() == [2.0, 2.0] and gx.tolist() == [60.0, 120.0]
    z.sum().backward(inputs=[y, x])
    assert y.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [60.0, 120.0]


def test_a_step_through_a_node_whose_pre_hook_took_the_gradient_reports_none_arriving():
    x, y = _square()
    y.grad_fn.register_prehook(lambda go: (None,))
    steps = {s.op: s for s in mg.backward_steps(mg.exp(y).sum())}
    assert steps["Mul"].grad_output is None and steps["Mul"].grad_inputs == (None, None)
    assert steps["Exp"].grad_output.tolist() == [1.0, 1.0] and x.grad is None
