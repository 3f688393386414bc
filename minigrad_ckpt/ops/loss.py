"""Fused softmax cross-entropy: one node for ``log_softmax`` + pick + reduce; and binary
cross-entropy's elementwise loss (:class:`BinaryCrossEntropy`), one op for PyTorch's gradients.

The composite form (``log_softmax``, an index gather, a mask, a sum and a
division) records half a dozen nodes; a classifier's loss is computed every
step, so the common case -- class-index targets, no class weights, no label
smoothing -- is one op.  Its gradient is the classic ``softmax(x) - onehot``,
scaled by the upstream gradient and the reduction.

Attributes: ``rows`` and ``target`` (device index arrays: sample ``i`` has
class ``target[i]``; ignored samples point at class 0), ``valid`` (float mask
of the samples that count), ``reduction`` (``"mean"``, ``"sum"``, ``"none"``).
"""

from __future__ import annotations

from .base import Array, Op
from .elementwise import BinaryElementwise


class SoftmaxCrossEntropy(Op):
    rows: Array
    target: Array
    valid: Array | None
    reduction: str

    #: The rows of ``exp(x - max)`` the forward holds at once: about this many bytes.
    chunk_bytes = 1 << 22

    # The logits are a language model's largest arrays (1024 positions x 50257 classes: 206 MB of
    # float32).  The forward needs only each row's sum of exp(x - max), so it forms a few rows at a
    # time in one small array; the backward's gradient is itself of the logits' size, and is written
    # in place in the one array.  The same operations on each element, and each row summed whole, as
    # ``exp(x - max)`` written as new arrays: the same bits (tests/test_cross_entropy_in_place.py).
    def forward(self, xp, x):
        if x.nbytes <= self.chunk_bytes:  # a usual batch: whole, in the fewest array calls (on a GPU,
            with xp.errstate(invalid="ignore"):  # kernel launches); a row of -inf or with +inf: NaN, silently
                shifted = x - x.max(axis=1, keepdims=True)
            lse = xp.log(xp.exp(shifted).sum(axis=1))
            return self._reduce(xp, lse - shifted[self.rows, self.target])
        n = x.shape[0]
        top = x.max(axis=1, keepdims=True)
        sums = xp.empty((n,), dtype=x.dtype)
        step = max(1, self.chunk_bytes // max(1, x[:1].nbytes))
        rows = xp.empty((min(step, n),) + x.shape[1:], dtype=x.dtype)  # exp(x - max) of a few rows
        with xp.errstate(invalid="ignore"):  # a row of -inf (masked out) or with +inf: NaN, silently
            picked = x[self.rows, self.target] - top[self.rows, 0]
            for start in range(0, n, step):
                shifted = rows[:min(step, n - start)]
                xp.subtract(x[start:start + step], top[start:start + step], out=shifted)
                xp.exp(shifted, out=shifted)
                sums[start:start + step] = shifted.sum(axis=1)
        return self._reduce(xp, xp.log(sums) - picked)

    def _reduce(self, xp, per_sample):
        """The reduction of per-sample values (losses, or their tangents: it is linear)."""
        if self.valid is not None:
            # select, not multiply: an ignored sample's loss may be inf (inf * 0 is NaN);
            # PyTorch skips ignored targets, so they add exactly 0
            per_sample = xp.where(self.valid != 0, per_sample * self.valid, 0)
        if self.reduction == "none":
            return per_sample
        total = per_sample.sum()
        if self.reduction == "sum":
            return total
        if self.valid is None:
            return total * self._mean_weight()
        with xp.errstate(invalid="ignore", divide="ignore"):  # every target ignored: 0/0
            return total / self.valid.sum()

    def backward(self, xp, g, out, x):
        n = x.shape[0]
        with xp.errstate(invalid="ignore"):  # (as forward)
            p = x - x.max(axis=1, keepdims=True)
        scale = self._scale(xp, g, n)
        if getattr(p, "flags", None) is None or xp.result_type(p, scale) != p.dtype:
            # Tensors (a gradient of the gradient), or a scale that widens the product: new arrays
            return self._gradient_of_new_arrays(xp, scale, n, xp.exp(p))
        xp.exp(p, out=p)
        p /= p.sum(axis=1, keepdims=True)
        p *= scale if scale.ndim == 0 else scale.reshape((n, 1))
        # minus the one-hot target: 0 off the targets (p - 0 is p, bit for bit), each row's scale at its
        # target -- one position per row, so the subtraction in place meets no position twice
        p[self.rows, self.target] -= scale
        if self.valid is not None:
            p[self.valid == 0] = 0  # an ignored row is exactly 0
        return p

    def _scale(self, xp, g, n):
        """d(loss)/d(loss_i), one per sample (or one for all)."""
        if self.reduction == "none":
            scale = g if self.valid is None else g * self.valid
        elif self.valid is None:
            # An empty batch's gradient is empty whatever the weight: take 0, not the forward's
            # NaN, or d(gradient)/dg would be 0 * NaN where its Jacobian is empty (exactly 0).
            scale = g if self.reduction == "sum" else g * (self._mean_weight() if n else 0.0)
        else:
            with xp.errstate(invalid="ignore", divide="ignore"):
                weight = 1.0 if self.reduction == "sum" else 1.0 / self.valid.sum()
                # every target ignored: weight is 1/0, and an ignored row's 0 * inf is NaN. Select
                # 0 there, as for the loss: the final select hides a NaN from this gradient, but
                # not from its derivative (d/dx of p * scale is 0 * NaN under create_graph)
                scale = g * xp.where(self.valid != 0, self.valid * weight, 0)
        return scale

    def _gradient_of_new_arrays(self, xp, scale, n, e):
        """The gradient from ``e = exp(x - max)`` as new arrays (what works on Tensors too)."""
        p = e / e.sum(axis=1, keepdims=True)
        # minus the one-hot target; each row has exactly one target, so the
        # scatter is a plain assignment (unique=True), not an accumulation
        onehot = xp.index_add(p.shape, (self.rows, self.target), scale, unique=True)
        grad = p * (scale if scale.ndim == 0 else scale.reshape((n, 1))) - onehot
        if self.valid is None:
            return grad
        return xp.where((self.valid != 0).reshape((n, 1)), grad, 0)  # an ignored row is exactly 0

    def _mean_weight(self):
        """``1 / N`` when every sample counts: a Python float (weakly typed, so
        float32 stays float32), NaN for an empty batch as PyTorch gives."""
        n = self.rows.shape[0]
        return 1.0 / n if n else float("nan")

    def jvp(self, xp, tangents, out, x):
        # d loss_i = <softmax(x_i), t_i> - t_i[target_i], then the reduction's weights
        t = tangents[0]
        with xp.errstate(invalid="ignore"):  # (as forward: a masked row's tangent is NaN, silently)
            p = xp.exp(x - x.max(axis=1, keepdims=True))
        p = p / p.sum(axis=1, keepdims=True)
        return self._reduce(xp, (p * t).sum(axis=1) - t[self.rows, self.target])

    def reference(self, np, x):
        x64 = x.astype(np.float64)
        m = x64.max(axis=1, keepdims=True)
        logp = x64 - m - np.log(np.exp(x64 - m).sum(axis=1, keepdims=True))
        rows, t = np.asarray(self.rows), np.asarray(self.target)
        valid = np.ones(rows.shape, np.float64) if self.valid is None else np.asarray(self.valid, np.float64)
        losses = np.where(valid != 0, -logp[rows, t] * valid, 0.0)  # ignored: exactly 0, as PyTorch
        if self.reduction == "none":
            out = losses
        elif self.reduction == "sum":
            out = losses.sum()
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = losses.sum() / valid.sum()
        return np.asarray(out).astype(x.dtype)



#: PyTorch's floor under ``p (1 - p)`` in binary cross-entropy's gradient: ``1e-12`` as a C
#: ``float`` (9.99999996e-13), so that ``d/dp`` at ``p = 0, y = 1`` is torch's -1.000000004e12.
_BCE_EPSILON = 9.999999960041972e-13


class BinaryCrossEntropy(BinaryElementwise):
    """``-[y log p + (1 - y) log(1 - p)]`` elementwise, each log clamped at -100 (PyTorch's
    ``binary_cross_entropy`` before its reduction).

    The partials are PyTorch's formulas, not the clamped logs' derivatives (those are 0 where
    a clamp holds, so ``p = 0, y = 1`` got no push towards 1): ``d/dp = (p - y) / max(p (1 - p),
    1e-12)`` -- ``-1e12`` at ``p = 0, y = 1``, 0 where ``p == y`` -- and ``d/dy = -logit(p) =
    log((1 - p) / p)``, infinite at ``p = 0`` and ``p = 1`` as PyTorch's.  Both operands are
    arrays of one shape (``F.binary_cross_entropy`` makes them so).
    """

    quiet = True  # log(0) in forward and d/dy, by design
    partials_read = (("x", "y"), ("x",))  # d/dp = (p - y) / max(p (1 - p), eps), d/dy = -logit(p)

    def forward(self, xp, p, y):
        with xp.errstate(divide="ignore"):
            log_p = xp.maximum(xp.log(p), -100)
            log_q = xp.maximum(xp.log(1 - p), -100)
        # = -(y log p + (1 - y) log q), with the target as the only other operand
        return -(log_q + y * (log_p - log_q))

    def d_first(self, xp, out, p, y):
        return (p - y) / xp.maximum(p * (1 - p), _BCE_EPSILON)

    def d_second(self, xp, out, p, y):
        return -xp.log(p / (1 - p))

    def reference(self, np, p, y):
        with np.errstate(divide="ignore"):
            log_p, log_q = np.maximum(np.log(p), -100), np.maximum(np.log(1 - p), -100)
        return -(log_q + y * (log_p - log_q))  # forward's order (a target of inf: +inf, not inf - inf)
