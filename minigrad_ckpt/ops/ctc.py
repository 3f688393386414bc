"""Connectionist temporal classification: the negative log-likelihood of a label sequence
under every alignment of it to the input frames (Graves et al., ICML 2006).

A target ``l = (l_1, ..., l_L)`` is *extended* with blanks, ``l' = (b, l_1, b, l_2, ..., l_L, b)``
(``2L + 1`` states).  An alignment visits one state per frame: it starts in state 0 or 1,
moves each frame by 0 or 1 state, or by 2 when that skips a blank between two different
labels, and ends in state ``2L`` or ``2L - 1``.  With ``E[t, s] = log_probs[t, l'_s]``:

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if skippable) + E[t, s]
    beta[t, s]  = logsumexp(beta[t+1, s],  beta[t+1, s+1],  beta[t+1, s+2]  if skippable) + E[t, s]
    nll = -logsumexp(alpha[T-1, 2L], alpha[T-1, 2L-1])

in log space (a probability of a long sequence underflows), vectorized over the batch and
the states: the only loop is over time.  ``alpha + beta - E + log p`` is the log of the
posterior probability that the alignment is in state ``s`` at frame ``t``, so the derivative
of ``nll`` with respect to ``log_probs[t, c]`` is minus the summed posterior of the states
labelled ``c`` -- the classic closed form, with no graph through the recursion.

The op's gradient is that *true* derivative.  PyTorch's kernel returns it plus
``exp(log_probs)`` on each sample's frames (its gradient assumes ``log_probs`` come from a
``log_softmax``, whose backward removes exactly that term); ``F.ctc_loss`` adds the term
where it calls this op, so its gradient is PyTorch's while this op stays checkable against
finite differences.

Attributes, all ``(N, S)`` arrays over the ``S = 2 max(L) + 1`` padded states unless said:
``labels`` (int: ``l'``, the blank beyond a sample's own states), ``skip`` (bool: state
``s`` may be entered from ``s - 2``), ``starts`` and ``ends`` (bool: the states an
alignment may start and end in), ``input_lengths`` (``(N,)`` int: frames beyond a sample's
length are not read) and ``zero_infinity`` (the derivative of an impossible sample -- a
target too long for its input, ``nll = inf`` -- is 0 instead of NaN; its value stays
``inf``, as in PyTorch's ``_ctc_loss``, and ``F.ctc_loss`` replaces it by 0).
:func:`ctc_states` builds them.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy as np
from .base import Array, Op


def ctc_states(targets: Any, target_lengths: Any, blank: int) -> dict[str, Any]:
    """The extended labels and the start/end/skip masks of padded targets (host arrays).

    ``targets`` (N, >= max L) int, ``target_lengths`` (N,) int; returns ``labels``,
    ``skip``, ``starts``, ``ends`` as host arrays of shape (N, 2 max(L) + 1).
    """
    tl = np.asarray(target_lengths, dtype=np.int64)
    n = tl.shape[0]
    width = 2 * (int(tl.max()) if n else 0) + 1
    s = np.arange(width)
    labels = np.full((n, width), blank, dtype=np.int64)
    k = s[1::2] // 2
    mine = k[None, :] < tl[:, None]
    labels[:, 1::2] = np.where(mine, np.asarray(targets, dtype=np.int64)[:, :k.size], blank)
    skip = np.zeros((n, width), dtype=bool)
    skip[:, 2:] = (labels[:, 2:] != labels[:, :-2]) & (s[2:] % 2 == 1)
    ends = (s[None, :] == 2 * tl[:, None]) | ((s[None, :] == 2 * tl[:, None] - 1) & (tl[:, None] > 0))
    starts = (s[None, :] == 0) | ((s[None, :] == 1) & (tl[:, None] > 0))
    return {"labels": labels, "skip": skip, "starts": starts, "ends": ends}


def _logsumexp3(xp, a, b, c):
    """``log(e^a + e^b + e^c)`` as PyTorch's kernel computes it (shifted by the maximum),
    ``-inf`` where all three are; both branches of the ``where`` stay finite, so the
    derivative is 0 (not NaN) at the unreachable states."""
    m = xp.maximum(xp.maximum(a, b), c)
    reachable = m != -xp.inf  # NaN counts as reachable, so it propagates (as in PyTorch's kernel)
    m = xp.where(reachable, m, 0.0)
    with xp.errstate(invalid="ignore"):  # a +inf input: inf - inf, NaN as PyTorch's kernel gives
        total = xp.where(reachable, xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m), 1.0)
    return xp.where(reachable, xp.log(total) + m, -xp.inf)


def _shift(xp, a, by: int):
    """``a`` moved ``by`` states up (``by > 0``: state ``s`` reads ``s - by``) or down, ``-inf`` filled."""
    pad = xp.full_like(a[:, :abs(by)], -xp.inf)
    if by > 0:
        return xp.concatenate([pad, a[:, :a.shape[1] - by]], axis=1)
    return xp.concatenate([a[:, -by:], pad], axis=1)[:, :a.shape[1]]


class CTCNegLogLikelihood(Op):
    """``-log p(target | log_probs)`` per sample: ``log_probs`` (T, N, C) -> (N,)."""

    labels: Array
    skip: Array
    starts: Array
    ends: Array
    input_lengths: Array
    zero_infinity: bool

    def _emissions(self, xp, log_probs):
        """``E[t, n, s] = log_probs[t, n, labels[n, s]]``: (T, N, S)."""
        t = log_probs.shape[0]
        index = xp.broadcast_to(self.labels[None], (t,) + self.labels.shape)
        return xp.take_along_axis(log_probs, index, axis=2)

    def _alphas(self, xp, e):
        """The forward variables (T, N, S); a sample's are held fixed after its last frame."""
        alpha = xp.where(self.starts, e[0], -xp.inf)
        out = [alpha]
        for t in range(1, e.shape[0]):
            skipped = xp.where(self.skip, _shift(xp, alpha, 2), -xp.inf)
            step = _logsumexp3(xp, alpha, _shift(xp, alpha, 1), skipped) + e[t]
            alpha = xp.where((t < self.input_lengths)[:, None], step, alpha)
            out.append(alpha)
        return xp.stack(out)

    def _betas(self, xp, e):
        """The backward variables (T, N, S), ``-inf`` from a sample's last frame on."""
        last = (self.input_lengths - 1)[:, None]
        beta = xp.full_like(e[0], -xp.inf)
        out = []
        for t in range(e.shape[0] - 1, -1, -1):
            # state s may go on to s + 2 where s + 2 may be entered from s
            skipped = _shift(xp, xp.where(self.skip, beta, -xp.inf), -2)
            step = _logsumexp3(xp, beta, _shift(xp, beta, -1), skipped) + e[t]
            beta = xp.where(t == last, xp.where(self.ends, e[t], -xp.inf), xp.where(t < last, step, -xp.inf))
            out.append(beta)
        return xp.stack(out[::-1])

    def _log_likelihood(self, xp, alphas):
        """``log p`` per sample (N,): the end states' forward variables at the last frame."""
        finals = xp.where(self.ends, alphas[-1], -xp.inf)
        m = finals.max(axis=1)
        reachable = m != -xp.inf
        m = xp.where(reachable, m, 0.0)
        with xp.errstate(invalid="ignore"):
            total = xp.where(reachable, xp.exp(finals - m[:, None]).sum(axis=1), 1.0)
        log_p = xp.where(reachable, xp.log(total) + m, -xp.inf)
        # no frame at all: only the empty target has an alignment (probability 1)
        empty = self.input_lengths == 0
        return xp.where(empty & self.ends[:, 0], 0.0, xp.where(empty, -xp.inf, log_p))

    def forward(self, xp, log_probs):
        if log_probs.shape[0] == 0:
            zero = xp.zeros(self.ends.shape[:1], dtype=log_probs.dtype)
            return xp.where(self.ends[:, 0], zero, zero + xp.inf)
        return -self._log_likelihood(xp, self._alphas(xp, self._emissions(xp, log_probs)))

    def _derivative(self, xp, log_probs):
        """``d nll_n / d log_probs[t, n, c]`` (T, N, C): minus the posterior of class ``c`` at frame
        ``t``, 0 beyond a sample's length; NaN on the frames of a sample with no alignment
        (its ``nll`` is ``inf``), 0 there with ``zero_infinity``."""
        e = self._emissions(xp, log_probs)
        alphas = self._alphas(xp, e)
        log_p = self._log_likelihood(xp, alphas)
        possible = log_p != -xp.inf  # a NaN stays NaN (zero_infinity zeroes infinite losses only)
        shift = xp.where(possible, log_p, 0.0)[:, None]
        ab = alphas + self._betas(xp, e)
        # an emission of -inf has no path through it: its posterior is 0 (ab is -inf too)
        live = e != -xp.inf
        posterior = xp.where(live, xp.exp(ab - xp.where(live, e, 0.0) - shift), 0.0)  # (T, N, S)
        onehot = (xp.arange(log_probs.shape[2]) == self.labels[:, :, None]).astype(log_probs.dtype)  # (N, S, C)
        per_class = xp.swapaxes(xp.matmul(xp.swapaxes(posterior, 0, 1), onehot), 0, 1)  # (T, N, C)
        frames = xp.arange(log_probs.shape[0])[:, None] < self.input_lengths  # (T, N)
        bad = 0.0 if self.zero_infinity else xp.nan
        zero = xp.zeros_like(log_probs)
        impossible = xp.where(frames[:, :, None], zero + bad, zero)
        return xp.where(possible[:, None], -per_class, impossible)

    def backward(self, xp, g, out, log_probs):
        if log_probs.shape[0] == 0:
            return xp.zeros_like(log_probs)
        return self._derivative(xp, log_probs) * g[:, None]

    def jvp(self, xp, tangents, out, log_probs):
        if log_probs.shape[0] == 0:
            return None
        return (self._derivative(xp, log_probs) * tangents[0]).sum(axis=(0, 2))

    def reference(self, np, log_probs):
        """A sample-by-sample, state-by-state loop in float64 with PyTorch's kernel's log-sum-exp."""
        lp = np.asarray(log_probs, dtype=np.float64)
        labels, skip, ends = (np.asarray(a) for a in (self.labels, self.skip, self.ends))
        starts, lengths = np.asarray(self.starts), np.asarray(self.input_lengths)
        width = labels.shape[1]
        out = np.zeros(labels.shape[0])
        for n in range(labels.shape[0]):
            if lengths[n] == 0:
                out[n] = 0.0 if ends[n, 0] else np.inf
                continue
            alpha = np.where(starts[n], lp[0, n, labels[n]], -np.inf)
            for t in range(1, int(lengths[n])):
                prev = alpha.copy()
                for s in range(width):
                    terms = [prev[s], prev[s - 1] if s >= 1 else -np.inf, prev[s - 2] if skip[n, s] else -np.inf]
                    alpha[s] = _reference_logsumexp(np, terms) + lp[t, n, labels[n, s]]
            out[n] = -_reference_logsumexp(np, [a for a, end in zip(alpha, ends[n]) if end])
        return out.astype(log_probs.dtype)


def _reference_logsumexp(np, terms):
    """PyTorch's kernel's ``log(sum(exp(x - m))) + m``, ``m`` the maximum (0 if it is -inf)."""
    m = max(terms, key=lambda v: np.inf if np.isnan(v) else v)
    m = 0.0 if m == -np.inf else m
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(sum(np.exp(v - m) for v in terms)) + m
