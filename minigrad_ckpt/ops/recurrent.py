"""The gate arithmetic of an LSTM step, fused into two ops.

An LSTM step computes gate pre-activations ``gates = x W_ih^T + b_ih + h W_hh^T
+ b_hh`` (last axis ``4H``, PyTorch's order i, f, g, o) and then

    c' = sigmoid(f) * c + sigmoid(i) * tanh(g)        LSTMCellState(gates, c)
    h' = sigmoid(o) * tanh(c')                        LSTMCellOutput(gates, c')

Written with one op per function that is four slices, three sigmoids, two
tanhs, three products and a sum -- thirteen recorded ops, each a Python call,
a tape node and a saved array per step of a sequence.  As two ops it is two
nodes that save only their inputs (``gates``, shared by both, and the cell
states) and recompute the sigmoids in backward, which costs less than keeping
them.  Why: the per-step op count of the cells dominated pytorch/examples'
``time_sequence_prediction`` (1.3x PyTorch's step before, see
docs/performance.md).

Both are elementwise in the gate blocks, so their backward and jvp are written
with the namespace's functions only and are differentiable again (the op
battery runs gradgradcheck on them).  ``gates`` and ``c`` must have the same
leading axes.
"""

from __future__ import annotations

from .base import Op, add_tangents


def _stable_sigmoid(np, x):
    return np.exp(-np.logaddexp(0, -x))


def _block(gates, k, h):
    return gates[..., k * h:(k + 1) * h]


class LSTMCellState(Op):
    """``c' = sigmoid(f) * c + sigmoid(i) * tanh(g)`` from the gates (..., 4H) and ``c`` (..., H)."""

    def forward(self, xp, gates, c):
        h = c.shape[-1]
        i, f, g = xp.sigmoid(_block(gates, 0, h)), xp.sigmoid(_block(gates, 1, h)), xp.tanh(_block(gates, 2, h))
        return f * c + i * g

    def backward(self, xp, gc, out, gates, c):
        h = c.shape[-1]
        i, f, g = xp.sigmoid(_block(gates, 0, h)), xp.sigmoid(_block(gates, 1, h)), xp.tanh(_block(gates, 2, h))
        d_gates = xp.concatenate([gc * g * (i * (1 - i)), gc * c * (f * (1 - f)), gc * i * (1 - g * g),
                                  xp.zeros_like(gc)], axis=-1)
        return d_gates, gc * f

    def jvp(self, xp, tangents, out, gates, c):
        t_gates, t_c = tangents
        h = c.shape[-1]
        i, f, g = xp.sigmoid(_block(gates, 0, h)), xp.sigmoid(_block(gates, 1, h)), xp.tanh(_block(gates, 2, h))
        from_gates = None if t_gates is None else (
            g * (i * (1 - i)) * _block(t_gates, 0, h) + c * (f * (1 - f)) * _block(t_gates, 1, h)
            + i * (1 - g * g) * _block(t_gates, 2, h))
        return add_tangents(from_gates, None if t_c is None else f * t_c)

    def reference(self, np, gates, c):
        h = c.shape[-1]
        i, f = _stable_sigmoid(np, _block(gates, 0, h)), _stable_sigmoid(np, _block(gates, 1, h))
        return f * c + i * np.tanh(_block(gates, 2, h))


class LSTMCellOutput(Op):
    """``h' = sigmoid(o) * tanh(c')`` from the gates (..., 4H) and the new cell state (..., H)."""

    def forward(self, xp, gates, c):
        return xp.sigmoid(_block(gates, 3, c.shape[-1])) * xp.tanh(c)

    def backward(self, xp, gh, out, gates, c):
        h = c.shape[-1]
        o, t = xp.sigmoid(_block(gates, 3, h)), xp.tanh(c)
        rest = xp.zeros_like(gates[..., :3 * h])
        return xp.concatenate([rest, gh * t * (o * (1 - o))], axis=-1), gh * o * (1 - t * t)

    def jvp(self, xp, tangents, out, gates, c):
        t_gates, t_c = tangents
        h = c.shape[-1]
        o, t = xp.sigmoid(_block(gates, 3, h)), xp.tanh(c)
        return add_tangents(None if t_gates is None else t * (o * (1 - o)) * _block(t_gates, 3, h),
                            None if t_c is None else o * (1 - t * t) * t_c)

    def reference(self, np, gates, c):
        return _stable_sigmoid(np, _block(gates, 3, c.shape[-1])) * np.tanh(c)
