"""The log-sum-exp of a linear layer's rows, a few rows at a time: the memory-bounded heart of
``F.linear_cross_entropy`` with ``options`` (PyTorch 2.13's chunked path).

A language model's head turns ``N`` positions of ``d`` features into ``N x C`` logits (4096 x 32768
float32: 512 MiB), and cross entropy then needs, per row, only ``logsumexp(logits)`` and the logit of
the target.  :class:`LinearLogSumExp` forms the logits ``x[rows] @ w.T + b`` of ``chunk_rows`` rows
at a time, keeps each row's log-sum-exp (``N`` numbers, its output), and lets each chunk go.  Its
backward forms each chunk's logits again and sends ``softmax * g`` on to ``x``, ``w`` and ``b``
chunk by chunk -- the ``(N, C)`` logits never exist whole, in either pass.  The target's logit is
the caller's (``sum(x * w[target]) + b[target]``: ``N x d``, the input's size).

Attribute: ``chunk_rows`` (rows per chunk, at least 1).
"""

from __future__ import annotations

from .base import Op, add_tangents


class LinearLogSumExp(Op):
    """``logsumexp(x @ w.T + b, axis=1)`` for ``x`` (N, d), ``w`` (C, d), ``b`` (C,) or None,
    ``chunk_rows`` rows of logits at a time."""

    chunk_rows: int

    save_output = True  # backward's softmax is exp(logits - lse): the saved lse, no second max
    uses_needs_input_grad = True

    def forward(self, xp, x, w, b):
        n = x.shape[0]
        out = xp.empty((n,), dtype=x.dtype)
        for start in range(0, n, self.chunk_rows):
            z = self._logits(xp, x[start:start + self.chunk_rows], w, b)
            with xp.errstate(invalid="ignore", over="ignore"):
                top = z.max(axis=1, keepdims=True)
                z -= top
                xp.exp(z, out=z)
                lse = xp.log(z.sum(axis=1)) + top[:, 0]
            # an infinite largest logit is the log-sum-exp itself (logsumexp's rule): z - top was
            # inf - inf there, NaN (a float32 product past float32's range, or a row of -inf)
            out[start:start + self.chunk_rows] = xp.where(xp.isinf(top[:, 0]), top[:, 0], lse)
        return out

    def _logits(self, xp, x, w, b):
        """One chunk's logits (a new array: the caller may write into it)."""
        z = xp.matmul(x, w.T)
        return z if b is None else z + b

    def _softmax(self, xp, x, w, b, lse):
        """One chunk's ``softmax(logits)`` from the saved log-sum-exp."""
        return xp.exp(self._logits(xp, x, w, b) - lse.reshape((lse.shape[0], 1)))

    def backward(self, xp, g, out, x, w, b, needs_input_grad=(True, True, True)):
        # d lse_i / d logits_ic = softmax_ic: each chunk's (rows, C) softmax times g, sent on at once
        if getattr(x, "flags", None) is not None and getattr(g, "flags", None) is not None:
            return self._backward_in_place(xp, g, out, x, w, b, needs_input_grad)
        n, step = x.shape[0], self.chunk_rows
        gx_parts, gw, gb = [], None, None
        for start in range(0, n, step):
            rows = slice(start, start + step)
            p = self._softmax(xp, x[rows], w, b, out[rows])
            p = p * g[rows].reshape((p.shape[0], 1))
            if needs_input_grad[0]:
                gx_parts.append(xp.matmul(p, w))
            if needs_input_grad[1]:
                part = xp.matmul(p.T, x[rows])
                gw = part if gw is None else gw + part
            if b is not None and needs_input_grad[2]:
                part = p.sum(axis=0)
                gb = part if gb is None else gb + part
        gx = None
        if needs_input_grad[0]:
            gx = xp.concatenate(gx_parts, axis=0) if gx_parts else xp.zeros(x.shape, dtype=x.dtype)
        if needs_input_grad[1] and gw is None:  # no rows: no gradient reaches the weight
            gw = xp.zeros(w.shape, dtype=w.dtype)
        if b is not None and needs_input_grad[2] and gb is None:
            gb = xp.zeros(b.shape, dtype=b.dtype)
        return gx, gw, gb

    def _backward_in_place(self, xp, g, out, x, w, b, needs_input_grad):
        """``backward`` on arrays, into arrays made once: a new (C, d) sum per chunk was a fresh
        allocation (and its pages) each time, 3x the time of the chunk's products."""
        n, step = x.shape[0], self.chunk_rows
        gx = xp.empty(x.shape, dtype=x.dtype) if needs_input_grad[0] else None
        gw = xp.zeros(w.shape, dtype=w.dtype) if needs_input_grad[1] else None
        gb = xp.zeros(b.shape, dtype=b.dtype) if b is not None and needs_input_grad[2] else None
        part = xp.empty(w.shape, dtype=w.dtype) if gw is not None and n > step else gw
        for start in range(0, n, step):
            rows = slice(start, start + step)
            p = self._logits(xp, x[rows], w, b)
            p -= out[rows].reshape((p.shape[0], 1))
            xp.exp(p, out=p)
            p *= g[rows].reshape((p.shape[0], 1))
            if gx is not None:
                xp.matmul(p, w, out=gx[rows])
            if gw is not None:
                xp.matmul(p.T, x[rows], out=part)
                if part is not gw:
                    gw += part
            if gb is not None:
                gb += p.sum(axis=0)
        return gx, gw, gb

    def jvp(self, xp, tangents, out, x, w, b):
        # d lse_i = sum_c softmax_ic d(logits_ic), d(logits) = tx w^T + x tw^T + tb, a chunk at a time
        tx, tw, tb = tangents
        parts = []
        for start in range(0, x.shape[0], self.chunk_rows):
            rows = slice(start, start + self.chunk_rows)
            p = self._softmax(xp, x[rows], w, b, out[rows])
            dz = add_tangents(None if tx is None else xp.matmul(tx[rows], w.T),
                              None if tw is None else xp.matmul(x[rows], tw.T), tb)
            if dz is not None:
                parts.append((p * dz).sum(axis=1))
        if not parts:
            return xp.zeros((0,), dtype=x.dtype)
        return xp.concatenate(parts, axis=0)

    def reference(self, np, x, w, b):
        z = np.matmul(x.astype(np.float64), w.T.astype(np.float64))
        if b is not None:
            z = z + b
        top = z.max(axis=1, keepdims=True) if z.shape[1] else np.zeros((z.shape[0], 1))
        top = np.where(np.isinf(top), 0.0, top)  # logsumexp's rule (PyTorch's): an infinite max shifts by nothing
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.log(np.exp(z - top).sum(axis=1)) + top[:, 0]).astype(x.dtype)
