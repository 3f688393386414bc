"""The matrix exponential ``expm(A) = sum_k A^k / k!`` and its derivative.

Scaling and squaring: with ``X = A / 2^s`` small (``||X||_1 <= 1/2``), the Taylor series
to degree 18 is exact to far below rounding (the remainder is under ``0.5^19 / 19!``
relative), and ``expm(A) = expm(X)^(2^s)``.  The number of squarings ``s`` is an
attribute of the op, chosen once from ``||A||_1`` by the public function, so that the
forward, its derivative and every higher derivative are one and the same polynomial
map of ``A``.

The derivative in direction ``E`` (the Fréchet derivative ``L(A, E)``) follows the
same steps: each Taylor term ``T_k = T_{k-1} X / k`` has ``dT_k = (dT_{k-1} X +
T_{k-1} dX) / k``, and each squaring ``P -> P P`` has ``L -> L P + P L``.  It is
linear in ``E``, so it needs no rescaling of its own.  The backward is
``L(A^T, G)`` -- the adjoint of ``E -> L(A, E)`` for real matrices; ``expm`` is
holomorphic (a power series with real coefficients), so for complex ones the engine's
conjugation around it makes that ``L(A^H, G)``, the complex adjoint.  Both are
written with ``xp.matmul`` only, so under ``create_graph`` the backward is a graph of
matrix products: second derivatives come for free.
"""

from __future__ import annotations

import math
from typing import Any

from .base import Op

_DEGREE = 18


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def squarings(one_norm: float) -> int:
    """The ``s`` that brings ``||A||_1 / 2^s`` to at most 1/2 (0 for a non-finite norm: the
    NaN/inf then reaches the output through the series)."""
    s = 0
    if one_norm == one_norm and one_norm != float("inf"):
        # ||A|| 2^-s, not 0.5 2^s: beyond ||A|| = 2^1023 (every entry ~1e308) 2.0 ** s overflows
        while math.ldexp(one_norm, -s) > 0.5:
            s += 1
    return s


def expm_minus_identity_and_frechet(xp: Any, a: Any, e: Any, s: int) -> tuple[Any, Any]:
    """``(expm(a) - I, L(a, e))`` by scaling and squaring with ``s`` squarings (``e`` may be None).

    Carrying ``R = expm - I`` instead of ``expm`` needs no identity matrix -- a squaring is
    ``(I + R)^2 = I + 2R + R R`` and the derivative's ``L (I + R) + (I + R) L = 2L + L R + R L``
    -- so the same code runs on Tensors in the differentiable namespace, on their device.
    """
    scale = math.ldexp(1.0, -s)  # 2^-s, exact down to 2^-1074 (1 / 2.0 ** s overflows from s = 1024)
    x = a * scale
    dx = None if e is None else e * scale
    term = total = x  # T_1 = X
    dterm = dtotal = dx  # dT_1 = dX
    for k in range(2, _DEGREE + 1):
        if dx is not None:
            dterm = (xp.matmul(dterm, x) + xp.matmul(term, dx)) * (1.0 / k)
            dtotal = dtotal + dterm
        term = xp.matmul(term, x) * (1.0 / k)
        total = total + term
    for _ in range(s):
        if dtotal is not None:
            dtotal = 2 * dtotal + xp.matmul(dtotal, total) + xp.matmul(total, dtotal)
        total = 2 * total + xp.matmul(total, total)
    return total, dtotal


class MatrixExp(Op):
    """``expm(A)`` over the last two axes; ``squarings`` is ``s`` of the scaling and squaring."""

    squarings: int

    save_inputs = True

    def forward(self, xp, a):
        r, _ = expm_minus_identity_and_frechet(xp, a, None, self.squarings)
        return r + xp.eye(a.shape[-1], dtype=a.dtype)

    def backward(self, xp, g, out, a):
        return expm_minus_identity_and_frechet(xp, _mT(xp, a), g, self.squarings)[1]

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        return None if t is None else expm_minus_identity_and_frechet(xp, a, t, self.squarings)[1]

    def reference(self, np, a):
        # the plain Taylor sum in float64 without scaling, to convergence: another route than the
        # forward's (right for the moderate norms the battery draws; cancellation spoils it for
        # large negative eigenvalues)
        x = np.asarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)
        term = np.broadcast_to(np.eye(x.shape[-1]), x.shape).copy()
        total = term.copy()
        for k in range(1, 200):
            term = term @ x / k
            total = total + term
            if not np.abs(term).max(initial=0.0) > 1e-18 * np.abs(total).max(initial=0.0):
                break
        return total.astype(a.dtype)
