"""A second backward adds into a leaf's ``.grad`` tensor itself, as PyTorch's ``AccumulateGrad``.

torch 2.13: after ``g = x.grad`` and another ``backward()``, ``g is x.grad`` and ``g`` holds the
total; a gradient zeroed by ``zero_grad(set_to_none=False)`` and the tensor a user assigned to
``.grad`` take the sum too.  With ``create_graph=True`` the sum is a new tensor (``g`` keeps its
value).  The engine made a new ``.grad`` tensor on every accumulation, so a reference kept to
``.grad`` (an optimizer's, a user's) silently missed every later backward.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

DTYPES = [mg.float32, mg.float64]
DEVICES = ["cpu", "strict"]


def _leaf(dtype, device, values=(1.0, 2.0, 3.0)):
    return mg.tensor(list(values), dtype=dtype, device=device, requires_grad=True)


def _plain(x):
    return (x * x).sum()


def _checkpointed(x):
    return mg.checkpoint.checkpoint(lambda a: (a.exp() * 0 + a * a).sum(), x, use_reentrant=False)


def _via_inputs(x):
    class Loss:  # backward(inputs=[x]) accumulates as backward() does
        def backward(self):
            (x * x).sum().backward(inputs=[x])
    return Loss()


def _post_hooked(x):  # a leaf with a post-accumulate hook gets its .grad in mid-pass
    if not x._post_hooks:
        x.register_post_accumulate_grad_hook(lambda p: None)
    return (x * x).sum()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("loss", [_plain, _checkpointed, _via_inputs, _post_hooked],
                         ids=["backward", "checkpoint", "inputs=", "post-accumulate hook"])
def test_a_second_backward_adds_into_the_same_grad_tensor(loss, dtype, device):
    x = _leaf(dtype, device)
    loss(x).backward()
    first = x.grad
    loss(x).backward()
    assert first is x.grad and first.dtype == dtype
    np.testing.assert_allclose(first.cpu().numpy(), [4.0, 8.0, 12.0], rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_gradient_zeroed_in_place_takes_the_next_backward(dtype):
    lin = mg.nn.Linear(2, 1).to(dtype)
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    x = mg.tensor([[1.0, 2.0]], dtype=dtype)
    lin(x).sum().backward()
    kept = lin.weight.grad
    opt.zero_grad(set_to_none=False)
    lin(x).sum().backward()
    assert kept is lin.weight.grad  # torch 2.13: True, kept == [[1, 2]]
    np.testing.assert_array_equal(kept.numpy(), [[1.0, 2.0]])


def test_an_assigned_grad_tensor_takes_the_sum_and_its_version_moves():
    x = _leaf(mg.float64, "cpu", (1.0, 2.0))
    mine = mg.tensor([10.0, 10.0], dtype=mg.float64)
    x.grad = mine
    before = mine.version()
    (x * x).sum().backward()
    assert x.grad is mine and mine.version() > before  # torch 2.13: mine [12, 14]
    np.testing.assert_array_equal(mine.numpy(), [12.0, 14.0])


def test_a_grad_made_with_create_graph_is_summed_into_in_place_by_a_plain_backward():
    x = _leaf(mg.float64, "cpu", (1.0, 2.0))
    (x * x).sum().backward(create_graph=True)
    g = x.grad
    (x * 3).sum().backward()
    assert g is x.grad and g.requires_grad  # torch 2.13: True, [5, 7], requires_grad True
    np.testing.assert_array_equal(g.detach().numpy(), [5.0, 7.0])


def test_with_create_graph_the_sum_is_a_new_tensor_on_the_tape():
    x = _leaf(mg.float64, "cpu", (1.0, 2.0))
    (x * x).sum().backward()
    g = x.grad
    (x * x * x).sum().backward(create_graph=True)
    assert g is not x.grad and x.grad.requires_grad  # torch 2.13: g stays [2, 4]
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(x.grad.detach().numpy(), [5.0, 16.0])
    (dx,) = mg.autograd.grad(x.grad.sum(), x)
    np.testing.assert_array_equal(dx.numpy(), [6.0, 12.0])


def test_a_retained_non_leaf_gradient_is_a_new_sum_each_time():
    x = _leaf(mg.float64, "cpu", (1.0, 2.0))
    h = x * 2
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    g = h.grad
    y.backward()
    assert g is not h.grad  # torch 2.13: False, g [4, 8], h.grad [8, 16]
    np.testing.assert_array_equal(g.numpy(), [4.0, 8.0])
    np.testing.assert_array_equal(h.grad.numpy(), [8.0, 16.0])
