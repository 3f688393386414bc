"""``mg.grad`` with respect to an intermediate tensor runs only the nodes between the outputs and
that tensor; the nodes below it keep what they saved, so a second pass from the intermediate on runs
them (PyTorch's engine frees only what it executes).  This is the two-step backward of
``grad(loss, h)`` then ``grad(h, x, g)`` (or ``backward(h, g)``): sharded gradients, pipeline
stages, a gradient edge taken in forward.  It used to fail with "backward through the graph a
second time": the first pass freed the saved values of every node it reached, run or not.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = np.array([0.3, -1.2, 2.0])


def _expected_dout_dx() -> np.ndarray:
    """d/dx of sin(exp(sum(cos(sin(x))))), by hand."""
    t = np.cos(np.sin(X)).sum()
    return np.cos(np.exp(t)) * np.exp(t) * (-np.sin(np.sin(X))) * np.cos(X)


def _graph(h_of):
    x = mg.tensor(X, requires_grad=True)
    h = h_of(x)
    return x, h, mg.sin(mg.exp(h))


def _plain(x):
    return mg.cos(mg.sin(x)).sum()


def _checkpointed(x):
    return mg.utils.checkpoint.checkpoint(_plain, x, use_reentrant=False)


def _second_step_grad(x, h, g):
    return mg.autograd.grad(h, x, grad_outputs=g)[0]


def _second_step_backward(x, h, g):
    mg.autograd.backward(h, g)
    return x.grad


@pytest.mark.parametrize("h_of", [_plain, _checkpointed], ids=["plain", "checkpointed"])
@pytest.mark.parametrize("second", [_second_step_grad, _second_step_backward], ids=["grad", "backward"])
def test_a_pass_to_an_intermediate_leaves_the_nodes_below_it(h_of, second):
    x, h, out = _graph(h_of)
    (g,) = mg.autograd.grad(out, h)
    np.testing.assert_allclose(second(x, h, g).numpy(), _expected_dout_dx(), rtol=1e-12)


def test_a_gradient_edge_as_the_intermediate():
    x, h, out = _graph(_plain)
    edge = mg.autograd.graph.get_gradient_edge(h)
    (g,) = mg.autograd.grad(out, (edge,))
    (gx,) = mg.autograd.grad(edge, (x,), grad_outputs=(g,))
    np.testing.assert_allclose(gx.numpy(), _expected_dout_dx(), rtol=1e-12)


def test_sharded_intermediates_then_the_rest():
    """PyTorch's test_sharded_grad: d loss / d intermediates in groups, then backward from them."""
    leaves = [mg.zeros(2, 2, requires_grad=True) for _ in range(6)]
    inter = [v * i + v * v for i, v in enumerate(leaves)]
    loss = sum(v * i for i, v in enumerate(inter)).sum()
    d = [g for k in range(0, 6, 2) for g in mg.autograd.grad(loss, inter[k:k + 2])]
    mg.autograd.backward(inter, d)
    for i, v in enumerate(leaves):  # d/dv of i * (i v + v^2) at v = 0
        np.testing.assert_allclose(v.grad.numpy(), np.full((2, 2), i * i))


def test_the_nodes_a_pass_runs_are_still_freed():
    x, h, out = _graph(_plain)
    mg.autograd.grad(out, h)
    with pytest.raises(RuntimeError, match="second time"):
        mg.autograd.grad(out, h)
