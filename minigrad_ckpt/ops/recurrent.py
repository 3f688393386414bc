"""The gate arithmetic of an LSTM step (two ops) and of a GRU step (one op), fused.

An LSTM step has the gate pre-activations as two projections ``xg = x W_ih^T +
b_ih`` and ``hg = h W_hh^T + b_hh`` (last axis ``4H``, PyTorch's order i, f, g,
o) and computes

    a  = [sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)]  of  xg + hg
    c' = a_f * c + a_i * a_g
    h' = a_o * tanh(c')

``LSTMStep(xg, hg, c)`` computes all of it but the last product and returns the
step's *record* ``[a_i, a_f, a_g, a_o, c', tanh(c')]``, shape ``(6, ..., H)``;
``LSTMStepOutput(record)`` is ``h' = a_o * tanh(c')``, and the layer takes ``c'``
as ``record[4]``.  Why the blocks lead: each is then one contiguous array, so every
pass over a gate (some forty a step, forward and backward) is one run of memory;
as the column blocks of a ``(..., 6H)`` record, NumPy went row by row -- a
product of two ``(97, 51)`` blocks took 6.3 us against 2.4 contiguous, and the
step's forward and backward together 240 against 185 us (H = 51, float64), the
same bits.  Written with one op per function that is four
slices, three sigmoids, two tanhs, three products and two sums -- fourteen
recorded ops per step of a sequence.  Why two ops and a slice: the record keeps
every value a backward reads, so no backward computes a transcendental function
(``tanh(c')`` was recomputed by the backward of an earlier three-op version, a
fifth of an LSTM step's elementwise time at H = 51, since NumPy's float64
``tanh`` costs fourteen times a product), and ``h'`` is an output no backward
reads, so writing into it in place is allowed, as in PyTorch (whose fused cell
saves ``c'`` but not ``h'``).  A first version with two ops on the
pre-activations recomputed five sigmoids and tanhs in backward and was no faster
than the fourteen ops: 0.99x.  Why fused at all: the per-step op count of the
cells dominated pytorch/examples' ``time_sequence_prediction`` (see
docs/performance.md).

``LSTMCellStep(x, h, c, w_ih, w_hh, b_ih, b_hh)`` is an ``LSTMCell`` step as one node: the
two projections, computed as ``Linear`` computes them, and ``LSTMStep``'s record, with the same
bits forward and backward (``nn.LSTM`` projects a whole sequence's inputs at once, so its steps
keep ``LSTMStep``).

A GRU step is one op, ``GRUCell(xg, hg, h)`` with the input's and the hidden
state's projections ``xg``, ``hg`` (last axis ``3H``, order r, z, n):

    r = sigmoid(xr + hr),  z = sigmoid(xz + hz),  n = tanh(xn + r * hn)
    h' = (1 - z) * n + z * h

All are elementwise in the gate blocks, so their backward and jvp are written
with the namespace's functions only and are differentiable again (the op
battery runs gradgradcheck on them).  The leading axes of the gate arrays and
the states broadcast against each other (the layers pass equal ones).
"""

from __future__ import annotations

from .base import Op, add_tangents
from .linalg import Linear, _matmul


def _stable_sigmoid(np, x):
    return np.exp(-np.logaddexp(0, -x))


def _block(gates, k, h):
    return gates[..., k * h:(k + 1) * h]


def _by_gate(a, h):
    """Projections (..., 4H) as (4, ..., H): gate k is ``a[..., kH:(k+1)H]`` (a view)."""
    lead = a.shape[:-1]
    return a.reshape(lead + (4, h)).transpose((len(lead),) + tuple(range(len(lead))) + (len(lead) + 1,))


def _lstm_record(xp, xg, hg, c):
    """The record ``[a_i, a_f, a_g, a_o, c', tanh(c')]`` (6, ..., H), each block written in place."""
    h, pre = c.shape[-1], xp.add(xg, hg)
    lead = pre.shape[:-1]
    if lead != c.shape[:-1]:  # the state broadcasts against the projections (or they against it)
        lead = xp.broadcast_shapes(lead, c.shape[:-1])
        pre = pre.reshape((1,) * (len(lead) + 1 - pre.ndim) + pre.shape)
    record = xp.empty((6,) + lead + (h,), dtype=xp.result_type(pre, c))
    c_new = record[4]
    # the gates in the projections' dtype, as op by op: beside a wider state they are widened afterwards
    gates = record[:4] if record.dtype == pre.dtype else xp.empty((4,) + lead + (h,), dtype=pre.dtype)
    # the sum where the projections lie, then one copy into the blocks: NumPy buffers a ufunc over strided
    # operands, and the sum straight into the blocks took 21.7 us against 16.2 (97 x 204, float64)
    xp.copyto(gates, _by_gate(pre, h))
    xp.sigmoid(gates[:2], out=gates[:2])
    xp.tanh(gates[2], out=gates[2])
    xp.sigmoid(gates[3], out=gates[3])
    xp.multiply(gates[1], c, out=c_new)
    xp.add(c_new, gates[0] * gates[2], out=c_new)
    xp.tanh(c_new, out=record[5])
    if gates.dtype != record.dtype:
        xp.copyto(record[:4], gates)
    return record


class LSTMStep(Op):
    """The record ``[a_i, a_f, a_g, a_o, c', tanh(c')]`` (6, ..., H) of an LSTM step from the
    projections ``xg``, ``hg`` (..., 4H) and the cell state ``c`` (..., H)."""

    save_inputs = (2,)
    save_output = True

    def forward(self, xp, xg, hg, c):
        return _lstm_record(xp, xg, hg, c)

    def backward(self, xp, g, record, xg, hg, c):
        d_pre, d_c = _lstm_step_grads(xp, g, record, c)
        return d_pre, d_pre, d_c

    def jvp(self, xp, tangents, record, xg, hg, c):
        t_xg, t_hg, t_c = tangents
        return _lstm_step_tangent(xp, add_tangents(t_xg, t_hg), t_c, record, c)

    def reference(self, np, xg, hg, c):
        h = c.shape[-1]
        pre = xg + hg
        sigmoid = lambda x: _stable_sigmoid(np, x)  # noqa: E731
        a_i, a_f, a_o = sigmoid(_block(pre, 0, h)), sigmoid(_block(pre, 1, h)), sigmoid(_block(pre, 3, h))
        a_g = np.tanh(_block(pre, 2, h))
        c_new = a_f * c + a_i * a_g
        return np.stack(np.broadcast_arrays(a_i, a_f, a_g, a_o, c_new, np.tanh(c_new)))


def _lstm_step_tangent(xp, t_pre, t_c, record, c):
    """The tangent of an LSTM step's record from those of its pre-activations (..., 4H) and of ``c``."""
    h = c.shape[-1]
    a_i, a_f, a_g, a_o, t = record[0], record[1], record[2], record[3], record[5]
    t_kept = None if t_c is None else a_f * t_c
    if t_pre is None:  # only the cell state moves: the gates stand still
        if t_kept is None:
            return None
        zero = xp.zeros_like(t_kept)
        return xp.stack([zero, zero, zero, zero, t_kept, (1 - t * t) * t_kept])
    t_i, t_f = _block(t_pre, 0, h) * (a_i * (1 - a_i)), _block(t_pre, 1, h) * (a_f * (1 - a_f))
    t_g, t_o = _block(t_pre, 2, h) * (1 - a_g * a_g), _block(t_pre, 3, h) * (a_o * (1 - a_o))
    t_new = add_tangents(t_f * c + t_i * a_g + a_i * t_g, t_kept)
    return xp.stack([t_i, t_f, t_g, t_o, t_new, (1 - t * t) * t_new])


def _lstm_step_grads(xp, g, record, c):
    """The gradients an LSTM step's record ``g`` sends to its pre-activations (..., 4H) and to ``c``."""
    a_i, a_f, a_g, a_o, t = record[0], record[1], record[2], record[3], record[5]
    d_c = g[4] + g[5] * (1 - t * t)  # c' reaches the loss itself and through tanh(c')
    d_pre = xp.concatenate([(g[0] + d_c * a_g) * (a_i * (1 - a_i)),
                            (g[1] + d_c * c) * (a_f * (1 - a_f)),
                            (g[2] + d_c * a_i) * (1 - a_g * a_g),
                            g[3] * (a_o * (1 - a_o))], axis=-1)
    return d_pre, d_c * a_f


class LSTMCellStep(Op):
    """An ``LSTMCell`` step as one node: ``LSTMStep``'s record from the input ``x`` (N, I), the
    state ``h``, ``c`` (N, H) and the cell's weights, the projections ``x W_ih^T + b_ih`` and
    ``h W_hh^T + b_hh`` computed as ``Linear`` computes them -- the same bits as the three nodes
    (two ``Linear`` and an ``LSTMStep``) it replaces, forward and backward.  Why one node: in
    pytorch/examples' ``time_sequence_prediction`` (two cells, 100 steps, H = 51) each recorded
    node costs its bookkeeping twice, forward and backward, beside arithmetic of a few
    microseconds, and the two biases' gradient is one sum, not two (see docs/performance.md)."""

    save_inputs = (0, 1, 2, 3, 4)
    save_output = True
    uses_needs_input_grad = True
    # every gradient reads c (the gates' from the record and c); x's reads W_ih, h's W_hh, W_ih's x,
    # W_hh's h: a cell's first step from zeros needs no h gradient, so W_hh may change before
    # backward, as in PyTorch
    grad_reads = ((2, 3), (2, 4), (2,), (0, 2), (1, 2), (2,), (2,))

    def forward(self, xp, x, h, c, w_ih, w_hh, b_ih, b_hh):
        return _lstm_record(xp, _projection(xp, x, w_ih, b_ih), _projection(xp, h, w_hh, b_hh), c)

    def backward(self, xp, g, record, x, h, c, w_ih, w_hh, b_ih, b_hh, needs_input_grad=(True,) * 7):
        need = needs_input_grad
        d_pre, d_c = _lstm_step_grads(xp, g, record, c)
        gb = xp.pairwise_sum(d_pre, (0,)) if need[5] or need[6] else None  # (Linear's: over the rows)
        return (_matmul(xp, d_pre, w_ih) if need[0] else None, _matmul(xp, d_pre, w_hh) if need[1] else None,
                d_c if need[2] else None, xp.matmul(d_pre.T, x) if need[3] else None,
                xp.matmul(d_pre.T, h) if need[4] else None, gb if need[5] else None, gb if need[6] else None)

    def jvp(self, xp, tangents, record, x, h, c, w_ih, w_hh, b_ih, b_hh):
        tx, th, tc, tw_ih, tw_hh, tb_ih, tb_hh = tangents
        t_pre = add_tangents(None if tx is None else _matmul(xp, tx, w_ih.T),
                             None if tw_ih is None else _matmul(xp, x, tw_ih.T), tb_ih,
                             None if th is None else _matmul(xp, th, w_hh.T),
                             None if tw_hh is None else _matmul(xp, h, tw_hh.T), tb_hh)
        return _lstm_step_tangent(xp, t_pre, tc, record, c)

    def reference(self, np, x, h, c, w_ih, w_hh, b_ih, b_hh):
        def projection(a, w, b):
            out = np.matmul(a, w.T)
            return out if b is None else out + b
        return LSTMStep().reference(np, projection(x, w_ih, b_ih), projection(h, w_hh, b_hh), c)


_projection = Linear().forward  # (xp, a, w, b): a @ w.T + b, Linear's own arithmetic


class LSTMStepOutput(Op):
    """``h' = a_o * tanh(c')`` read off an LSTM step's record (6, ..., H)."""

    save_output = False

    def forward(self, xp, record):
        return record[3] * record[5]

    def backward(self, xp, g, out, record):
        if getattr(g, "flags", None) is None:  # Tensors (a gradient of a gradient): the namespace's ops only
            one = (1,) + g.shape  # blocks joined by concatenate: NumPy's stack is Python around it (17 -> 12 us)
            zero = xp.zeros_like(g).reshape(one)
            return xp.concatenate([zero, zero, zero, (g * record[5]).reshape(one), zero,
                                   (g * record[3]).reshape(one)])
        # arrays: the two products written into their blocks of zeros, no temporaries and no joining
        # copy (14.6 -> 9.2 us at (97, 51) float64, the same bits)
        d = xp.zeros((6,) + g.shape, dtype=xp.result_type(g, record))
        xp.multiply(g, record[5], out=d[3])
        xp.multiply(g, record[3], out=d[5])
        return d

    def jvp(self, xp, tangents, out, record):
        (t,) = tangents
        return t[3] * record[5] + record[3] * t[5]

    def reference(self, np, record):
        return record[3] * record[5]


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
