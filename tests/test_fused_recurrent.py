"""The recurrent steps' fused gate ops (ops/recurrent.py) against the steps written op by op.

``LSTMCell``, ``LSTM`` (and so pytorch/examples' ``time_sequence_prediction``)
compute ``c' = sigmoid(f) c + sigmoid(i) tanh(g)`` and ``h' = sigmoid(o)
tanh(c')`` as three recorded ops; ``GRUCell`` and ``GRU`` their step as one.  Here
every seam is compared with the same step built from ``sigmoid``, ``tanh``,
slices and products: values, gradients, second derivatives, forward mode,
float32, checkpointing, and the op count.
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


def _unfused_gru(cell: nn.GRUCell, x, h):
    xg = nn.functional.linear(x, cell.weight_ih, cell.bias_ih)
    hg = nn.functional.linear(h, cell.weight_hh, cell.bias_hh)
    H = cell.hidden_size
    r = mg.sigmoid(xg[..., :H] + hg[..., :H])
    z = mg.sigmoid(xg[..., H:2 * H] + hg[..., H:2 * H])
    n = mg.tanh(xg[..., 2 * H:] + r * hg[..., 2 * H:])
    return (1 - z) * n + z * h


def _gru_run(step, xs, h):
    for x in xs:
        h = step(x, h)
    return (h * mg.tanh(h)).sum()


def _setup(seed: int, n: int, d: int, hidden: int, dtype: str = "float64", kind: type = nn.LSTMCell):
    mg.manual_seed(seed)
    cell = kind(d, hidden).to(dtype)
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


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_fused_gru_matches_the_op_by_op_step(seed, n, d, hidden):
    cell, xs, h0, _ = _setup(seed, n, d, hidden, kind=nn.GRUCell)
    leaves = [*xs, h0, *cell.parameters()]
    fused = _gru_run(cell, xs, h0)
    plain = _gru_run(lambda x, h: _unfused_gru(cell, x, h), xs, h0)
    np.testing.assert_allclose(fused.item(), plain.item(), rtol=1e-12)
    g_fused = mg.grad(fused, leaves, create_graph=True)
    g_plain = mg.grad(plain, leaves, create_graph=True)
    for a, b in zip(g_fused, g_plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    s_fused = sum((g * g).sum() for g in g_fused)
    s_plain = sum((g * g).sum() for g in g_plain)
    for a, b in zip(mg.grad(s_fused, leaves[:2]), mg.grad(s_plain, leaves[:2])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)
    rng = np.random.default_rng(seed)
    primals = [xs[0].detach(), h0.detach()]
    tangents = [mg.tensor(rng.standard_normal(t.shape)) for t in primals]
    (v1, t1) = jvp(lambda x, h: _gru_run(cell, [x, 2 * x], h), primals, tangents)
    (v2, t2) = jvp(lambda x, h: _gru_run(lambda xx, hh: _unfused_gru(cell, xx, hh), [x, 2 * x], h), primals, tangents)
    np.testing.assert_allclose(t1.item(), t2.item(), rtol=1e-10, atol=1e-12)


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


@pytest.mark.parametrize("layer", ["lstm_cell", "lstm", "gru_cell", "gru"])
def test_a_recurrent_step_records_its_fused_gate_ops(layer):
    """The point of the fusion: an LSTM step records the two linears, their sum and three
    gate ops; a GRU step the two linears and one."""
    mg.manual_seed(0)
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    make = {"lstm_cell": nn.LSTMCell, "lstm": nn.LSTM, "gru_cell": nn.GRUCell, "gru": nn.GRU}[layer]
    if layer.endswith("cell"):
        out = make(3, 4).double()(x)
        out = out[0] if isinstance(out, tuple) else out
    else:
        out = make(3, 4).double()(mg.unsqueeze(x, 0))[0]
    names, stack, seen = [], [out._node], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node.op).__name__)
        stack.extend(e for e in node.inputs if isinstance(e, Node))
    if layer.startswith("lstm"):
        assert [names.count(op) for op in ("LSTMGates", "LSTMCellState", "LSTMCellOutput")] == [1, 1, 1]
    else:
        assert names.count("GRUCell") == 1
    assert "Sigmoid" not in names and "Tanh" not in names
