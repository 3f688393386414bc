"""The LSTM step's fused gate ops (ops/recurrent.py) against the step written op by op.

``LSTMCell``, ``LSTM`` (and so pytorch/examples' ``time_sequence_prediction``)
compute ``c' = sigmoid(f) c + sigmoid(i) tanh(g)`` and ``h' = sigmoid(o)
tanh(c')`` as two recorded ops.  Here every seam is compared with the same step
built from ``sigmoid``, ``tanh``, slices and products: values, gradients,
second derivatives, forward mode, float32, checkpointing, and the op count.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.func import jvp
from minigrad_ckpt.tape import Node


def _unfused_cell(cell: nn.LSTMCell, x, state):
    """The step as thirteen ops (how the cells were written before the fused ops)."""
    h, c = state
    g = nn.functional.linear(x, cell.weight_ih, cell.bias_ih) + nn.functional.linear(h, cell.weight_hh, cell.bias_hh)
    H = cell.hidden_size
    i, f = mg.sigmoid(g[..., :H]), mg.sigmoid(g[..., H:2 * H])
    cand, o = mg.tanh(g[..., 2 * H:3 * H]), mg.sigmoid(g[..., 3 * H:])
    c = f * c + i * cand
    return o * mg.tanh(c), c


def _setup(seed: int, n: int, d: int, hidden: int, dtype: str = "float64"):
    mg.manual_seed(seed)
    cell = nn.LSTMCell(d, hidden).to(dtype)
    rng = np.random.default_rng(seed)
    xs = [mg.tensor(rng.standard_normal((n, d)).astype(dtype), requires_grad=True) for _ in range(3)]
    h0 = mg.tensor(rng.standard_normal((n, hidden)).astype(dtype), requires_grad=True)
    c0 = mg.tensor(rng.standard_normal((n, hidden)).astype(dtype), requires_grad=True)
    return cell, xs, h0, c0


def _run(step, xs, h, c):
    for x in xs:
        h, c = step(x, (h, c))
    return (h * h).sum() + (c * mg.tanh(c)).sum()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_fused_cell_matches_the_op_by_op_step(seed, n, d, hidden):
    cell, xs, h0, c0 = _setup(seed, n, d, hidden)
    leaves = [*xs, h0, c0, *cell.parameters()]
    fused = _run(cell, xs, h0, c0)
    plain = _run(lambda x, s: _unfused_cell(cell, x, s), xs, h0, c0)
    np.testing.assert_allclose(fused.item(), plain.item(), rtol=1e-12)
    g_fused = mg.grad(fused, leaves, create_graph=True)
    g_plain = mg.grad(plain, leaves, create_graph=True)
    for a, b in zip(g_fused, g_plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    # second derivatives: the fused ops' backward is made of differentiable ops
    s_fused = sum((g * g).sum() for g in g_fused)
    s_plain = sum((g * g).sum() for g in g_plain)
    for a, b in zip(mg.grad(s_fused, leaves[:2]), mg.grad(s_plain, leaves[:2])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_forward_mode_through_the_fused_cell_matches_the_op_by_op_step():
    cell, xs, h0, c0 = _setup(3, 2, 3, 4)
    rng = np.random.default_rng(7)
    tangents = [mg.tensor(rng.standard_normal(t.shape)) for t in (xs[0], h0, c0)]

    def fused(x, h, c):
        return _run(cell, [x, x * 0.5], h, c)

    def plain(x, h, c):
        return _run(lambda xx, s: _unfused_cell(cell, xx, s), [x, x * 0.5], h, c)

    primals = [xs[0].detach(), h0.detach(), c0.detach()]
    (v1, t1), (v2, t2) = jvp(fused, primals, tangents), jvp(plain, primals, tangents)
    np.testing.assert_allclose(v1.item(), v2.item(), rtol=1e-12)
    np.testing.assert_allclose(t1.item(), t2.item(), rtol=1e-10)


def test_fused_cell_in_float32_and_inside_a_checkpoint():
    cell, xs, h0, c0 = _setup(5, 3, 2, 3, "float32")
    plain = _run(lambda x, s: _unfused_cell(cell, x, s), xs, h0, c0)
    inside = checkpoint(lambda a, b: _run(cell, xs, a, b), h0, c0)
    assert inside.dtype == mg.float32
    np.testing.assert_allclose(inside.item(), plain.item(), rtol=1e-5)
    g_in = mg.grad(inside, [h0, c0, cell.weight_hh])
    g_plain = mg.grad(plain, [h0, c0, cell.weight_hh])
    for a, b in zip(g_in, g_plain):
        assert a.dtype == mg.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layer", ["cell", "lstm"])
def test_an_lstm_step_records_two_gate_ops(layer):
    """The point of the fusion: a step records the two linears, their sum and two gate ops."""
    mg.manual_seed(0)
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    if layer == "cell":
        out = nn.LSTMCell(3, 4).double()(x)[0]
    else:
        out = nn.LSTM(3, 4).double()(mg.unsqueeze(x, 0))[0]
    names, stack, seen = [], [out._node], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node.op).__name__)
        stack.extend(e for e in node.inputs if isinstance(e, Node))
    assert names.count("LSTMCellState") == 1 and names.count("LSTMCellOutput") == 1
    assert "Sigmoid" not in names and "Tanh" not in names
