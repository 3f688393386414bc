"""Gradient hooks as PyTorch runs them (torch 2.13's answers in the comments):

- ``retain_grad``'s hook runs after every other hook of the tensor, whenever each was registered,
  so ``.grad`` is the gradient the hooks passed on (it was the raw one when ``retain_grad`` came
  first);
- every hook -- a leaf's tensor hooks, post-accumulate hooks, callbacks queued by a hook -- runs
  in the pass's grad mode (on exactly with ``create_graph``), whatever the caller's mode; a leaf's
  hooks ran after the pass in the caller's mode, so what they computed was recorded;
- a post-accumulate hook returns None (PyTorch raises otherwise), and ``backward(inputs=[x])``
  calls ``x``'s post-accumulate hooks as ``backward()`` does.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.backward import queue_callback


def _leaf(dtype=mg.float64, device="cpu"):
    return mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)


def _checkpointed(fn, x):
    return mg.checkpoint.checkpoint(fn, x, use_reentrant=False)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("retain_first", [True, False], ids=["retain_grad-first", "retain_grad-last"])
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
def test_retain_grad_sees_the_gradient_the_hooks_passed_on(retain_first, checkpointed, dtype, device):
    x = _leaf(dtype, device)
    kept = []

    def body(a):
        h = a * 2
        if retain_first:
            h.retain_grad()
        h.register_hook(lambda g: g + 100)
        h.register_hook(lambda g: g * 2)
        if not retain_first:
            h.retain_grad()
        kept.append(h)
        return (h * h).sum()

    (_checkpointed(body, x) if checkpointed else body(x)).backward()
    # torch 2.13: h.grad [208, 216] either way, x.grad [416, 432]
    np.testing.assert_allclose(kept[0].grad.cpu().numpy(), [208.0, 216.0])
    np.testing.assert_allclose(x.grad.cpu().numpy(), [416.0, 432.0])


def test_a_hook_registered_after_retain_grad_and_then_removed_leaves_the_gradient_raw():
    x = _leaf()
    h = x * 2
    h.retain_grad()
    handle = h.register_hook(lambda g: g * 10)
    handle.remove()
    (h * h).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [4.0, 8.0])


def _record_modes(x, seen):
    def tensor_hook(g):
        seen.append(("hook", mg.is_grad_enabled()))
        queue_callback(lambda: seen.append(("callback", mg.is_grad_enabled())))

    x.register_hook(tensor_hook)
    x.register_post_accumulate_grad_hook(lambda p: seen.append(("post", mg.is_grad_enabled())))


@pytest.mark.parametrize("caller_mode", [mg.enable_grad, mg.no_grad], ids=["enable_grad", "no_grad"])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("post_hooked", [False, True], ids=["no-post-hook", "post-hook"])
def test_every_hook_runs_in_the_grad_mode_of_the_pass(create_graph, caller_mode, post_hooked):
    x = _leaf()
    seen = []
    x.register_hook(lambda g: seen.append(("hook", mg.is_grad_enabled())))
    if post_hooked:  # the leaf is handed its gradient in mid-pass (else after the pass)
        _record_modes(x, seen)
    loss = (x * x).sum()
    with caller_mode():
        loss.backward(create_graph=create_graph)
    assert seen and all(mode is create_graph for _, mode in seen), seen
    assert x.grad.requires_grad is create_graph  # (torch 2.13: the same, in either caller mode)


def test_what_a_leaf_hook_computes_is_not_recorded():
    x, w = _leaf(), mg.tensor([3.0, 4.0], dtype=mg.float64, requires_grad=True)
    made = []
    x.register_hook(lambda g: made.append(g * w))
    (x * x).sum().backward()
    assert not made[0].requires_grad and made[0].grad_fn is None  # torch 2.13: False, None


def test_a_post_accumulate_hook_that_returns_a_value_is_an_error():
    x = _leaf()
    x.register_post_accumulate_grad_hook(lambda p: p.grad * 3)
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None."):
        (x * x).sum().backward()


@pytest.mark.parametrize("inputs", [lambda x: [x], lambda x: x], ids=["list", "tensor"])
def test_backward_with_inputs_calls_the_post_accumulate_hooks(inputs):
    x = _leaf()
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.numpy().copy()))
    (x * x).sum().backward(inputs=inputs(x))
    assert len(seen) == 1  # torch 2.13: one call, seeing [2, 4]
    np.testing.assert_array_equal(seen[0], [2.0, 4.0])
    mg.autograd.grad((x * x).sum(), x)  # grad() accumulates nothing: no call
    assert len(seen) == 1
