"""Fused softmax cross-entropy: one node for ``log_softmax`` + pick + reduce.

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

from .base import Op


class SoftmaxCrossEntropy(Op):
    def forward(self, xp, x):
        shifted = x - xp.max(x, axis=1, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(shifted), axis=1))
        losses = (lse - shifted[self.rows, self.target]) * self.valid
        if self.reduction == "none":
            return losses
        total = xp.sum(losses)
        if self.reduction == "sum":
            return total
        with xp.errstate(invalid="ignore", divide="ignore"):
            return total / xp.sum(self.valid)

    def backward(self, xp, g, out, x):
        e = xp.exp(x - xp.max(x, axis=1, keepdims=True))
        p = e / xp.sum(e, axis=1, keepdims=True)
        if self.reduction == "none":
            scale = g * self.valid
        elif self.reduction == "sum":
            scale = g * self.valid
        else:
            with xp.errstate(invalid="ignore", divide="ignore"):
                scale = g * (self.valid / xp.sum(self.valid))
        onehot = xp.index_add(x.shape, (self.rows, self.target), scale)
        return p * scale.reshape((x.shape[0], 1)) - onehot

    def reference(self, np, x):
        x64 = x.astype(np.float64)
        m = x64.max(axis=1, keepdims=True)
        logp = x64 - m - np.log(np.exp(x64 - m).sum(axis=1, keepdims=True))
        rows, t, valid = np.asarray(self.rows), np.asarray(self.target), np.asarray(self.valid, np.float64)
        losses = -logp[rows, t] * valid
        if self.reduction == "none":
            out = losses
        elif self.reduction == "sum":
            out = losses.sum()
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = losses.sum() / valid.sum()
        return np.asarray(out).astype(x.dtype)
