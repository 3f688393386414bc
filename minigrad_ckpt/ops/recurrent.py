"""The gate arithmetic of an LSTM step (three ops) and of a GRU step (one op), fused.

An LSTM step computes gate pre-activations ``gates = x W_ih^T + b_ih + h W_hh^T
+ b_hh`` (last axis ``4H``, PyTorch's order i, f, g, o) and then

    a  = [sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)]    LSTMGates(gates)
    c' = a_f * c + a_i * a_g                              LSTMCellState(a, c)
    h' = a_o * tanh(c')                                   LSTMCellOutput(a, c')

Written with one op per function that is four slices, three sigmoids, two
tanhs, three products and a sum -- thirteen recorded ops, each a Python call
and a tape node per step of a sequence.  As three ops, the activations are
computed once and saved once (``LSTMGates`` keeps its output, which its
backward reads), the two others are products whose backward needs no
transcendental function but one ``tanh(c')``.  (A first version with two ops
on the pre-activations recomputed five sigmoids and tanhs in backward and was
no faster than the thirteen ops: 0.99x.)  Why: the per-step op count of the
cells dominated pytorch/examples' ``time_sequence_prediction`` (see
docs/performance.md).

A GRU step is one op, ``GRUCell(xg, hg, h)`` with the input's and the hidden
state's projections ``xg``, ``hg`` (last axis ``3H``, order r, z, n):

    r = sigmoid(xr + hr),  z = sigmoid(xz + hz),  n = tanh(xn + r * hn)
    h' = (1 - z) * n + z * h

All are elementwise in the gate blocks, so their backward and jvp are written
with the namespace's functions only and are differentiable again (the op
battery runs gradgradcheck on them).  The gate arrays and the states must have
the same leading axes.
"""

from __future__ import annotations

from .base import Op, add_tangents
from .elementwise import UnaryElementwise


def _stable_sigmoid(np, x):
    return np.exp(-np.logaddexp(0, -x))


def _block(gates, k, h):
    return gates[..., k * h:(k + 1) * h]


class LSTMGates(UnaryElementwise):
    """The activated gates ``[sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)]`` of pre-activations
    (..., 4H); elementwise, so its Jacobian is diagonal and read off the output."""

    save_inputs = False
    save_output = True

    def forward(self, xp, gates):
        h = gates.shape[-1] // 4
        return xp.concatenate([xp.sigmoid(gates[..., :2 * h]), xp.tanh(_block(gates, 2, h)),
                               xp.sigmoid(_block(gates, 3, h))], axis=-1)

    def derivative(self, xp, out, gates):
        h = out.shape[-1] // 4
        s_if, t, s_o = out[..., :2 * h], _block(out, 2, h), _block(out, 3, h)
        return xp.concatenate([s_if * (1 - s_if), 1 - t * t, s_o * (1 - s_o)], axis=-1)

    def reference(self, np, gates):
        h = gates.shape[-1] // 4
        return np.concatenate([_stable_sigmoid(np, gates[..., :2 * h]), np.tanh(_block(gates, 2, h)),
                               _stable_sigmoid(np, _block(gates, 3, h))], axis=-1)


class LSTMCellState(Op):
    """``c' = a_f * c + a_i * a_g`` from the activated gates (..., 4H) and ``c`` (..., H)."""

    def forward(self, xp, acts, c):
        h = c.shape[-1]
        return _block(acts, 1, h) * c + _block(acts, 0, h) * _block(acts, 2, h)

    def backward(self, xp, gc, out, acts, c):
        h = c.shape[-1]
        a_i, a_f, a_g = _block(acts, 0, h), _block(acts, 1, h), _block(acts, 2, h)
        return xp.concatenate([gc * a_g, gc * c, gc * a_i, xp.zeros_like(gc)], axis=-1), gc * a_f

    def jvp(self, xp, tangents, out, acts, c):
        t_acts, t_c = tangents
        h = c.shape[-1]
        from_acts = None if t_acts is None else (
            _block(t_acts, 1, h) * c + _block(t_acts, 0, h) * _block(acts, 2, h)
            + _block(acts, 0, h) * _block(t_acts, 2, h))
        return add_tangents(from_acts, None if t_c is None else _block(acts, 1, h) * t_c)

    def reference(self, np, acts, c):
        h = c.shape[-1]
        return _block(acts, 1, h) * c + _block(acts, 0, h) * _block(acts, 2, h)


class LSTMCellOutput(Op):
    """``h' = a_o * tanh(c')`` from the activated gates (..., 4H) and the new cell state (..., H)."""

    def forward(self, xp, acts, c):
        return _block(acts, 3, c.shape[-1]) * xp.tanh(c)

    def backward(self, xp, gh, out, acts, c):
        h = c.shape[-1]
        a_o, t = _block(acts, 3, h), xp.tanh(c)
        rest = xp.zeros_like(acts[..., :3 * h])
        return xp.concatenate([rest, gh * t], axis=-1), gh * a_o * (1 - t * t)

    def jvp(self, xp, tangents, out, acts, c):
        t_acts, t_c = tangents
        h = c.shape[-1]
        a_o, t = _block(acts, 3, h), xp.tanh(c)
        return add_tangents(None if t_acts is None else t * _block(t_acts, 3, h),
                            None if t_c is None else a_o * (1 - t * t) * t_c)

    def reference(self, np, acts, c):
        return _block(acts, 3, c.shape[-1]) * np.tanh(c)


class GRUCell(Op):
    """``h' = (1 - z) * n + z * h`` from the projections ``xg``, ``hg`` (..., 3H) and ``h`` (..., H)."""

    def forward(self, xp, xg, hg, h):
        r, z, n = _gru_gates(xp, xg, hg, h.shape[-1])
        return (1 - z) * n + z * h

    def backward(self, xp, g, out, xg, hg, h):
        size = h.shape[-1]
        r, z, n = _gru_gates(xp, xg, hg, size)
        d_n = g * (1 - z) * (1 - n * n)                 # through tanh's argument xn + r * hn
        d_r = d_n * _block(hg, 2, size) * (r * (1 - r))
        d_z = g * (h - n) * (z * (1 - z))
        return (xp.concatenate([d_r, d_z, d_n], axis=-1), xp.concatenate([d_r, d_z, d_n * r], axis=-1),
                g * z)

    def jvp(self, xp, tangents, out, xg, hg, h):
        tx, th_g, th = tangents
        size = h.shape[-1]
        r, z, n = _gru_gates(xp, xg, hg, size)
        pre = [add_tangents(None if tx is None else _block(tx, k, size),
                            None if th_g is None else _block(th_g, k, size)) for k in range(2)]
        t_r = None if pre[0] is None else r * (1 - r) * pre[0]
        t_z = None if pre[1] is None else z * (1 - z) * pre[1]
        t_arg = add_tangents(None if tx is None else _block(tx, 2, size),
                             None if th_g is None else r * _block(th_g, 2, size),
                             None if t_r is None else t_r * _block(hg, 2, size))
        return add_tangents(None if t_arg is None else (1 - z) * (1 - n * n) * t_arg,
                            None if t_z is None else (h - n) * t_z,
                            None if th is None else z * th)

    def reference(self, np, xg, hg, h):
        size = h.shape[-1]
        r = _stable_sigmoid(np, _block(xg, 0, size) + _block(hg, 0, size))
        z = _stable_sigmoid(np, _block(xg, 1, size) + _block(hg, 1, size))
        n = np.tanh(_block(xg, 2, size) + r * _block(hg, 2, size))
        return (1 - z) * n + z * h


def _gru_gates(xp, xg, hg, size):
    r = xp.sigmoid(_block(xg, 0, size) + _block(hg, 0, size))
    z = xp.sigmoid(_block(xg, 1, size) + _block(hg, 1, size))
    return r, z, xp.tanh(_block(xg, 2, size) + r * _block(hg, 2, size))
