"""Reductions and scans: sum, mean, max, min, prod, var, std, logsumexp, cumsum.

Attributes are normalized by :mod:`minigrad_ckpt.functional` before an op is
built: ``axes`` is a sorted tuple of non-negative axes (all axes for
``axis=None``), and ``in_shape`` is the input's shape, which backward needs to
broadcast the gradient back.

Conventions (documented in ``docs/ops.md``):

* ``max``/``min``: tied extreme values share the gradient evenly; a NaN is the extreme of its
  slice, and the slice's NaNs share the gradient (PyTorch's ``max()``).
* ``prod``: exact with zeros -- one zero in a slice gets the product of the
  others, every other element 0; two or more zeros give 0 everywhere.
* ``var``/``std`` follow NumPy's ``ddof``; for ``N - ddof <= 0`` the value is
  NumPy's (inf or nan) and so is the gradient.  ``std`` of a constant slice
  has gradient 0 (a subgradient), not ``0/0``.
* ``mean`` over an empty axis is NaN, like NumPy, with an empty gradient.
"""

from __future__ import annotations

from typing import Any

from ..backend import HALF, host_numpy, is_array
from .base import LinearOp, Op, builds_graph


class _Reduction(Op):
    axes: tuple[int, ...]
    keepdims: bool
    in_shape: tuple[int, ...]

    abstract = True

    def kept_shape(self) -> tuple[int, ...]:
        """The output shape with the reduced axes kept as size 1."""
        return tuple(1 if i in self.axes else n for i, n in enumerate(self.in_shape))

    def count(self) -> int:
        n = 1
        for a in self.axes:
            n *= self.in_shape[a]
        return n

    def expand(self, xp: Any, v: Any) -> Any:
        """``v`` (an output-shaped value) reshaped to broadcast against the input."""
        return v.reshape(self.kept_shape())


class Sum(_Reduction, LinearOp):
    save_inputs = False

    def forward(self, xp, x):
        # the array's method (through pairwise_sum), not xp.sum: the same add.reduce without
        # np.sum's Python-level wrapper (about 0.75 us a call on small arrays)
        return xp.pairwise_sum(x, self.axes, self.keepdims)

    def backward(self, xp, g, out, x):
        return xp.broadcast_to(self.expand(xp, g), self.in_shape)

    def reference(self, np, x):
        return np.sum(x, axis=self.axes, keepdims=self.keepdims)


def mean_value(xp: Any, x: Any, axes: tuple[int, ...], keepdims: bool, n: int) -> Any:
    """The mean of ``x`` over ``axes`` (``n`` values each): :class:`Mean`'s forward, also the
    fused losses' (``ops/regression_loss.py``)."""
    if n == 0:
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.sum(x, axis=axes, keepdims=keepdims) / n
    if x.dtype.kind == "f" and x.dtype.itemsize > 2:
        # NumPy's mean is this sum and division, without its Python-level wrappers; the sum
        # pairwise over every axis (NumPy's float32 sum over rows adds them one by one)
        return xp.pairwise_sum(x, axes, keepdims) / n
    return xp.mean(x, axis=axes, keepdims=keepdims)


def mean_share(g: Any, n: int) -> Any:
    """What each of the ``n`` averaged values receives of the mean's gradient ``g``: ``g / n``, as
    PyTorch's ``MeanBackward`` divides (``g * (1 / n)`` rounds twice: a last bit off for up to 60%
    of the values of ``g``); a float16 ``g`` in float32, rounded once, as PyTorch's half kernel
    (NumPy would round ``n`` to float16 first: 3001 to 3000, 70000 to inf)."""
    if not n:
        return g * 0
    if getattr(g, "dtype", None) is HALF and is_array(g):
        return (g.astype(host_numpy.float32) / n).astype(HALF)
    return g / n


def mean_tangent(xp: Any, t: Any, axes: tuple[int, ...], keepdims: bool, n: int) -> Any:
    """The mean's tangent: linear, the sum of ``t`` times ``1/n`` (an empty slice has nothing
    to move: its tangent is 0)."""
    return xp.pairwise_sum(t, axes, keepdims) * (1.0 / n if n else 0.0)


class Mean(_Reduction):
    save_inputs = False

    def forward(self, xp, x):
        return mean_value(xp, x, self.axes, self.keepdims, self.count())

    def backward(self, xp, g, out, x):
        return xp.broadcast_to(self.expand(xp, mean_share(g, self.count())), self.in_shape)

    def jvp(self, xp, tangents, out, x):
        return mean_tangent(xp, tangents[0], self.axes, self.keepdims, self.count())

    def reference(self, np, x):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sum(x, axis=self.axes, keepdims=self.keepdims) / self.count()


class _Extreme(_Reduction):
    """Max or min over ``axes``: tied extreme values share the gradient evenly."""

    abstract = True
    save_output = True

    def _ties(self, xp, x, out, dtype):
        """Where ``x`` is its slice's extreme, and how many share it.  A NaN in a slice makes
        the extreme NaN, which equals nothing: the NaNs are the extremes then (``x != x``;
        a slice without one has none of those)."""
        hit = (x == self.expand(xp, out)) | (x != x)
        return hit, xp.sum(hit, axis=self.axes, keepdims=True).astype(dtype)

    def backward(self, xp, g, out, x):
        hit, ties = self._ties(xp, x, out, g.dtype)
        return hit * (self.expand(xp, g) / ties)

    def jvp(self, xp, tangents, out, x):
        # the mean of the tangents at the tied extremes: the transpose of backward
        (t,) = tangents
        hit, ties = self._ties(xp, x, out, t.dtype)
        return xp.sum((t * hit) / ties, axis=self.axes, keepdims=self.keepdims)


class Max(_Extreme):
    """Maximum over ``axes``; tied maxima share the gradient evenly."""

    def forward(self, xp, x):
        return xp.max(x, axis=self.axes, keepdims=self.keepdims)

    def reference(self, np, x):
        return np.max(x, axis=self.axes, keepdims=self.keepdims)


class Min(_Extreme):
    """Minimum over ``axes``; tied minima share the gradient evenly."""

    def forward(self, xp, x):
        return xp.min(x, axis=self.axes, keepdims=self.keepdims)

    def reference(self, np, x):
        return np.min(x, axis=self.axes, keepdims=self.keepdims)


class Prod(_Reduction):
    """Product over ``axes``, with an exact gradient when some factors are 0.

    The first derivative of a factor ``x_i`` is the product of the others,
    computed as ``prod / x_i`` when no factor is 0: accurate, but its own
    derivative (``create_graph``) loses precision for factors near the smallest
    floats (below ~1e-150 in float64) -- a known limitation.  The product is recomputed
    without the zeros, so the output is not kept.
    """

    def forward(self, xp, x):
        return xp.prod(x, axis=self.axes, keepdims=self.keepdims)

    def backward(self, xp, g, out, x):
        if not self.axes:  # each element its own product (a 0-d input): the identity, 1 even at inf
            return g       # or NaN, where prod / x_i is NaN -- PyTorch's 0-d prod
        return self.expand(xp, g) * self._factor_derivatives(xp, x)

    def jvp(self, xp, tangents, out, x):
        if not self.axes:  # the identity, as backward
            return tangents[0]
        return xp.sum(self._factor_derivatives(xp, x) * tangents[0], axis=self.axes, keepdims=self.keepdims)

    def _factor_derivatives(self, xp, x):
        """``d(prod)/d(x_i)`` for every factor ``x_i``: the product of the others, zeros handled exactly."""
        is_zero = x == 0
        zeros = xp.sum(is_zero, axis=self.axes, keepdims=True)
        # product of the non-zero factors of each slice
        others = xp.prod(xp.where(is_zero, 1, x), axis=self.axes, keepdims=True)
        with xp.errstate(divide="ignore", invalid="ignore"):
            no_zero = others / xp.where(is_zero, 1, x)
        one_zero_here = xp.logical_and(zeros == 1, is_zero)
        # Entries that are 0 only because of a zero factor keep that factor in the
        # expression (``zsum``, the sum of the zero factors, is 0 in value), so a
        # second derivative with create_graph=True still sees it.
        zsum = xp.sum(xp.where(is_zero, x, 0), axis=self.axes, keepdims=True)
        two_zeros_here = xp.logical_and(zeros == 2, is_zero)
        beside_zero = self._finite_beside_zero(xp, x, no_zero)  # no test on the host: no device sync
        return xp.where(zeros == 0, no_zero, xp.where(one_zero_here, others, xp.where(
            zeros == 1, beside_zero * zsum, xp.where(two_zeros_here, others * (zsum - x), 0))))

    def _finite_beside_zero(self, xp, x, no_zero):
        """``no_zero`` where it is finite or another factor is inf/NaN, else 0: beside a single
        zero factor the derivative is that zero times the other factors, 0 unless one of them is
        inf or NaN.  ``prod / x_i`` is inf when the non-zero factors' product overflows
        ([1e200, 1e200, 0]) or ``x_i`` is itself inf, and inf times the zero would be NaN."""
        bad = xp.logical_not(xp.isfinite(x))
        bad_others = xp.sum(bad, axis=self.axes, keepdims=True) > xp.where(bad, 1, 0)
        return xp.where(xp.logical_or(bad_others, xp.isfinite(no_zero)), no_zero, 0)

    def reference(self, np, x):
        return np.prod(x, axis=self.axes, keepdims=self.keepdims)


class Var(_Reduction):
    """Variance with NumPy's ``ddof`` (divides by ``max(N - ddof, 0)``; a real ``ddof`` such as
    1.3 divides by ``N - 1.3``, as NumPy and PyTorch's ``correction`` do).  Of complex numbers:
    the mean of ``|x - mean|^2``, real (NumPy's); its gradient ``2 (x - mean) / n`` is then the
    gradient of this convention as it stands (docs/complex.md)."""

    ddof: float

    def forward(self, xp, x):
        if x.dtype == xp.float16:  # in float32, rounded to float16: PyTorch's half accumulates in float
            with xp.errstate(over="ignore"):
                return self.forward(xp, x.astype(xp.float32)).astype(xp.float16)
        mean_square, scale = _scaled_variance(self, xp, x)
        with xp.errstate(over="ignore", under="ignore"):  # where the variance itself is out of range
            # (v * s) * s, not v * s^2: s^2 alone can overflow where the variance does not
            return mean_square * scale * scale

    def backward(self, xp, g, out, x):
        if x.dtype == xp.float16:  # in float32, as the forward
            return self.backward(xp, g.astype(xp.float32), None, x.astype(xp.float32)).astype(xp.float16)
        d = x - _kept_mean(xp, x, self.axes) if self.count() else x
        n = self.denominator()
        with xp.errstate(divide="ignore", invalid="ignore"):
            # n == 0 (ddof >= N): NumPy's inf/nan, not a Python ZeroDivisionError
            return self.expand(xp, g) * d * (2.0 / n if n else xp.inf)

    def denominator(self) -> float:
        return max(self.count() - self.ddof, 0)

    def jvp(self, xp, tangents, out, x):
        d = x - _kept_mean(xp, x, self.axes) if self.count() else x
        n = self.denominator()
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _real_dot(xp, d, tangents[0], self) * (2.0 / n if n else xp.inf)

    def reference(self, np, x):
        # in extended precision (x86's 80-bit long double: exponents to +-4932), where the squares of
        # float32 and float64 values neither underflow nor overflow, then rounded to x's precision
        wide = x.astype(np.result_type(x.dtype, np.longdouble))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            m = np.sum(wide, axis=self.axes, keepdims=True) / max(self.count(), 1)
            d = wide - m
            s = np.sum((d * np.conj(d)).real if x.dtype.kind == "c" else d * d, axis=self.axes,
                       keepdims=self.keepdims)
            v = s / s.dtype.type(max(self.count() - self.ddof, 0))
            return v.astype(np.zeros(0, x.dtype).real.dtype)


class Std(_Reduction):
    """Standard deviation; a constant slice has gradient 0 (a subgradient)."""

    ddof: float

    save_output = True

    def forward(self, xp, x):
        if x.dtype == xp.float16:  # as Var's
            return self.forward(xp, x.astype(xp.float32)).astype(xp.float16)
        mean_square, scale = _scaled_variance(self, xp, x)
        with xp.errstate(invalid="ignore", over="ignore"):
            return xp.sqrt(mean_square) * scale

    def backward(self, xp, g, out, x):
        if x.dtype == xp.float16:  # in float32, as the forward
            return self.backward(xp, g.astype(xp.float32), out.astype(xp.float32),
                                 x.astype(xp.float32)).astype(xp.float16)
        d = x - _kept_mean(xp, x, self.axes) if self.count() else x
        s = self.expand(xp, out)
        with xp.errstate(divide="ignore", invalid="ignore"):
            local = d / (s * Var.denominator(self))
            return self.expand(xp, g) * xp.where(s == 0, 0, local)

    def jvp(self, xp, tangents, out, x):
        d = x - _kept_mean(xp, x, self.axes) if self.count() else x
        s = self.expand(xp, out)
        with xp.errstate(divide="ignore", invalid="ignore"):
            local = xp.where(s == 0, 0, d / (s * Var.denominator(self)))
            return _real_dot(xp, local, tangents[0], self)

    def reference(self, np, x):
        wide = Var.reference(self, np, x.astype(np.result_type(x.dtype, np.longdouble)))
        with np.errstate(invalid="ignore"):
            return np.sqrt(wide).astype(np.zeros(0, x.dtype).real.dtype)


def _scaled_variance(op: _Reduction, xp: Any, x: Any) -> tuple[Any, Any]:
    """``(v, s)`` with the variance ``sum(|x - mean|^2) / (N - ddof) = v * s^2`` (real, also for complex
    ``x``): ``s`` is a power of two near each slice's largest ``|x - mean|``, divided out before squaring,
    so that the squares neither underflow nor overflow where the standard deviation ``sqrt(v) * s`` is
    representable (float32 ``[1e-25, -1e-25, 3e-25, 0]`` had std 0, ``[1e20, -1e20, 3e20, 0]`` inf;
    PyTorch's, accumulated in double, 1.7e-25 and 1.7e20).  Dividing by a power of two is exact: where
    nothing under- or overflowed, the results are the unscaled ones bit for bit."""
    n = op.count()
    complex_ = x.dtype.kind == "c"
    with xp.errstate(divide="ignore", invalid="ignore"):
        if n == 0:
            total = xp.sum(x, axis=op.axes, keepdims=op.keepdims)
            return (xp.real(total) if complex_ else total) / 0, 1
        d = x - _kept_mean(xp, x, op.axes)
        scale = _power_of_two_scale(xp, xp.max(xp.abs(d), axis=op.axes, keepdims=True))
        d = d / scale
        sq = xp.real(d * xp.conj(d)) if complex_ else d * d
        total = xp.pairwise_sum(sq, op.axes, op.keepdims)
        if d.dtype == xp.float32 or d.dtype == xp.complex64:
            total = _less_the_mean_error(xp, total, d, op, n)
        v = total / sq.dtype.type(max(n - op.ddof, 0))
    return v, (scale if op.keepdims else scale.reshape(v.shape))


def _kept_mean(xp: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """The mean over ``axes``, kept as size 1, summed pairwise over every axis (float32 ``var(0)`` of a
    tall array: NumPy's row-by-row mean moved every deviation; float64 is NumPy's mean bit for bit)."""
    if x.dtype == xp.float16:
        return xp.mean(x, axis=axes, keepdims=True)
    n = 1
    for a in axes:
        n *= x.shape[a]
    m = xp.pairwise_sum(x, axes, True) / n
    if x.dtype == xp.float32 or x.dtype == xp.complex64:
        # one step of refinement: the deviations from the rounded mean are (nearly) exact, and their
        # mean is the sum's rounding error -- var's gradient 2 (x - mean) / n at 1e4 + N(0, 1) came
        # out an ulp of the mean (1e-3) off in every element, 13 times PyTorch's error
        with xp.errstate(invalid="ignore", over="ignore"):
            fix = xp.pairwise_sum(x - m, axes, True) / n
        m = xp.where(xp.isfinite(fix), m + fix, m)
    return m


def _less_the_mean_error(xp: Any, total: Any, d: Any, op: _Reduction, n: int) -> Any:
    """``sum |d|^2 - |sum d|^2 / n``: the corrected two-pass variance (Chan, Golub and LeVeque).  A
    float32 mean is off by an ulp of the mean, which adds its square to every ``|d|^2``: the float32
    variance of 1e4 + N(0, 1) came out 10 ulps off, where PyTorch's, accumulated in double, is
    within one.  (Not below 0, where a constant slice's rounding would put it; float64 keeps the
    plain sum, bit for bit.)"""
    drift = xp.pairwise_sum(d, op.axes, op.keepdims)
    drift = xp.real(drift * xp.conj(drift)) if d.dtype.kind == "c" else drift * drift
    return xp.maximum(total - drift / n, 0)


def _power_of_two_scale(xp: Any, m: Any) -> Any:
    """``2 ** floor(log2(m))`` where ``m`` is positive and finite, else 1 (a slice of equal values, or
    one holding inf or NaN, whose result the unscaled arithmetic already gives)."""
    usable = xp.logical_and(m > 0, xp.isfinite(m))
    return xp.where(usable, xp.exp2(xp.floor(xp.log2(xp.where(usable, m, 1)))), 1)


def _real_dot(xp: Any, a: Any, t: Any, op: _Reduction) -> Any:
    """``sum(a * t)`` over the op's axes, of complex numbers as pairs of reals (``Re sum(conj(a) t)``):
    the tangent of a real reduction whose gradient is ``a``."""
    if a.dtype.kind == "c" or getattr(t, "dtype", a.dtype).kind == "c":
        return xp.real(xp.sum(xp.conj(a) * t, axis=op.axes, keepdims=op.keepdims))
    return xp.pairwise_sum(a * t, op.axes, op.keepdims)


class LogSumExp(_Reduction):
    """``log(sum(exp(x)))`` over ``axes``, shifted by the max so ±1e4 logits are fine."""

    save_output = True

    def forward(self, xp, x):
        m = _shift(xp, x, self.axes)
        with xp.errstate(divide="ignore"):
            s = xp.log(xp.pairwise_sum(xp.exp(x - m), self.axes, True)) + m
        return s if self.keepdims else s.reshape(tuple(
            n for i, n in enumerate(self.in_shape) if i not in self.axes))

    def backward(self, xp, g, out, x):
        return self.expand(xp, g) * self._softmax(xp, x)

    def jvp(self, xp, tangents, out, x):
        return xp.pairwise_sum(self._softmax(xp, x) * tangents[0], self.axes, self.keepdims)

    def _softmax(self, xp: Any, x: Any) -> Any:
        """The slice's softmax, ``d out / d x``: normalized from the max-shifted exponentials, not
        ``exp(x - out)``, which loses ``out``'s rounding -- at x = (1e300, 1e300) (float32: 3e7)
        ``out`` rounds to ``x`` and each weight came out 1, not 1/2 (the gradient doubled).  An
        all ``-inf`` slice has weights 0 (its shift is 0 and every exponential 0).  A slice holding
        ``+inf`` has NaN weights, as PyTorch's, silently (NumPy would warn of ``inf - inf``)."""
        with xp.errstate(invalid="ignore"):
            e = xp.exp(x - _shift(xp, x, self.axes))
            s = xp.pairwise_sum(e, self.axes, True)
            return e / xp.where(s == 0, 1, s)

    def reference(self, np, x):
        x64 = x.astype(np.result_type(x.dtype, np.float64))  # complex stays complex
        m = _shift(np, x64, self.axes)
        with np.errstate(divide="ignore"):
            r = np.log(np.sum(np.exp(x64 - m), axis=self.axes, keepdims=True)) + m
        if not self.keepdims:
            r = np.squeeze(r, axis=self.axes)
        return r.astype(x.dtype)


def _shift(xp: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """The slice maxima logsumexp shifts by (0 where not finite, and over an empty slice, whose
    sum is 0 and log -inf).

    For complex ``x``, the maxima of the real parts: a real shift bounds every ``|exp(x - m)|``
    by 1 as well, and leaves the phase of the sum alone, so the result's imaginary part is the
    principal ``Arg(sum(exp(x)))`` (PyTorch's).  Shifting by a complex ``m`` added ``Im(m)``
    to the argument of ``sum(exp(x - m))``, a logarithm off by ``2 pi i`` for some inputs."""
    if any(x.shape[a] == 0 for a in axes) or (not axes and x.size == 0):
        return xp.zeros(tuple(1 if i in axes or not axes else n for i, n in enumerate(x.shape)), dtype=x.dtype)
    m = xp.max(xp.real(x) if x.dtype.kind == "c" else x, axis=axes, keepdims=True)
    return xp.where(xp.isfinite(m), m, 0)


def running_sum(xp: Any, v: Any, axis: int | None) -> Any:
    """``cumsum`` along ``axis``; of float16, accumulated in float32 and each prefix rounded to
    float16 (PyTorch's accumulate type for half): NumPy's float16 running sum stalls at 2048 for a
    row of ones (2048 + 1 rounds back to 2048), and a prefix beyond 65504 stayed inf after the sum
    came back in range (PyTorch: ``[6e4, inf, 5e4]`` for ``[6e4, 1e4, -2e4]``)."""
    if v.dtype == xp.float16:
        with xp.errstate(over="ignore"):  # (a prefix beyond 65504 is inf, as PyTorch's)
            return xp.cumsum(v, axis=axis, dtype=xp.float32).astype(xp.float16)
    if (v.dtype == xp.float32 or v.dtype == xp.complex64) and v.ndim:
        return _compensated_running_sum(xp, v, axis)
    return xp.cumsum(v, axis=axis)


def _compensated_running_sum(xp: Any, v: Any, axis: int | None) -> Any:
    """float32 (complex64) ``cumsum`` to about half an ulp of the exact prefix, in float32 only
    (no float64 array: the float32-only devices): PyTorch's CPU kernel accumulates in double, where
    NumPy's float32 running sum of 1e5 mixed-sign values drifted 1e-3 relative to the exact one.
    Where a step is not finite, plain ``s``."""
    if axis is None:
        v, axis = v.reshape(-1), 0
    high, low = _running_sum_pair(xp, v, axis, depth=3)
    return high + low


def _running_sum_pair(xp: Any, v: Any, axis: int, depth: int) -> tuple[Any, Any]:
    """The running sum of ``v`` as ``high + low``, ``high`` float32's rounding of it, ``low`` what
    that rounding left out.

    Each step ``s[k] = s[k-1] + v[k]`` loses an error that Knuth's two-sum recovers exactly from the
    three values; the running sum of those errors is the correction.  Where the terms share a sign the
    errors do too (1e6 float32 tenths: each step loses up to 4e-3, together -958), and a plain
    float32 running sum of them drifts as the first did (the total came out 6 short of 1e5): so the
    correction is itself summed this way, ``depth`` levels deep, each ``n * eps`` times smaller than
    the one above, and the rounding of adding it is kept in ``low``, which rounds ``high + low``
    correctly (without it, one prefix in 400 was an ulp off)."""
    s = xp.cumsum(v, axis=axis)
    first, but_last = [slice(None)] * v.ndim, [slice(None)] * v.ndim
    first[axis], but_last[axis] = slice(0, 1), slice(None, -1)
    before = xp.concatenate([xp.zeros_like(s[tuple(first)]), s[tuple(but_last)]], axis=axis)
    lost = _two_sum_error(xp, before, v, s)
    if not depth:
        return s, xp.cumsum(lost, axis=axis)
    c_high, c_low = _running_sum_pair(xp, lost, axis, depth - 1)
    high = s + c_high
    return high, _two_sum_error(xp, s, c_high, high) + c_low


def _two_sum_error(xp: Any, a: Any, b: Any, total: Any) -> Any:
    """What rounding lost in ``total = a + b`` (Knuth's two-sum, exact); 0 where it is not finite."""
    with xp.errstate(invalid="ignore", over="ignore"):
        part = total - a
        lost = (a - (total - part)) + (b - part)
        return xp.where(xp.isfinite(lost), lost, 0)


def running_product(xp: Any, v: Any, axis: int | None) -> Any:
    """``cumprod`` along ``axis``; of float32, to about half an ulp of the exact prefix products, in
    float32 only: PyTorch's CPU kernel accumulates in double, where NumPy's float32 running product
    of 1000 factors near 1 drifted 1e-6 relative (20 times PyTorch's error).  Each step's rounding
    error is recovered exactly (Dekker's product: float32 halves of 12 bits, whose products are
    exact), and ``p (1 + sum of the relative errors)`` puts the lost digits back (their products,
    of order ulp squared, are negligible).  Where a step is tiny, 0, not finite or out of Dekker's
    range, plain ``p``."""
    p = xp.cumprod(v, axis=axis)
    if v.dtype != xp.float32 or not v.ndim:
        return p
    flat = axis is None
    if flat:
        v, axis = v.reshape(-1), 0
    q = p.reshape(-1) if flat else p
    first, but_last = [slice(None)] * v.ndim, [slice(None)] * v.ndim
    first[axis], but_last[axis] = slice(0, 1), slice(None, -1)
    before = xp.concatenate([xp.ones_like(q[tuple(first)]), q[tuple(but_last)]], axis=axis)
    with xp.errstate(invalid="ignore", over="ignore", divide="ignore"):
        (bh, bl), (vh, vl) = _split_float32(before), _split_float32(v)
        lost = ((bh * vh - q) + bh * vl + bl * vh) + bl * vl
        # (below 2**-100 the halves' products could underflow, and the error be inexact)
        rel = xp.where(xp.abs(q) > 2.0 ** -100, lost / q, 0)
        rel = xp.where(xp.isfinite(rel), rel, 0)
        out = q + q * xp.cumsum(rel, axis=axis)
    out = xp.where(xp.isfinite(q), out, q)
    return out.reshape(p.shape) if flat else out


def _split_float32(a: Any) -> tuple[Any, Any]:
    """Dekker's split of float32 ``a`` into two halves of 12 bits, whose products are exact."""
    t = a * 4097.0  # 2**12 + 1
    high = t - (t - a)
    return high, a - high


class CumSum(LinearOp):
    """Running sum along ``axis`` (``None``: over the flattened input)."""

    axis: int | None
    in_shape: tuple[int, ...]

    save_inputs = False

    def forward(self, xp, x):
        return running_sum(xp, x, self.axis)

    def backward(self, xp, g, out, x):
        if self.axis is None:
            return xp.flip(running_sum(xp, xp.flip(g, 0), 0), 0).reshape(self.in_shape)
        return xp.flip(running_sum(xp, xp.flip(g, self.axis), self.axis), self.axis)

    def reference(self, np, x):
        return np.cumsum(x, axis=self.axis)


class CumProd(Op):
    """Running product along ``axis`` (``None``: over the flattened input).

    ``d out_j / d x_i = prod_{k <= j, k != i} x_k`` for ``i <= j``.  Without
    zeros that is ``out_j / x_i``, so the gradient is a reversed cumulative
    sum of ``g * out`` divided by ``x``.  With zeros, only positions up to a
    slice's first zero ``z`` get a gradient: before ``z`` the same formula
    over ``j < z``; at ``z`` the running product with ``x_z`` replaced by 1.
    Those masks drop terms that are 0 only because they hold a zero factor, whose
    own derivatives are not 0: where a graph is built (``create_graph``, nested
    forward mode) and a factor is 0, both rules read the whole Jacobian
    :func:`_running_product_jacobian` instead (O(n^2) a slice, as PyTorch's
    ``cumprod_backward`` in grad mode).
    """

    save_output = True
    axis: int | None
    in_shape: tuple

    def forward(self, xp, x):
        return running_product(xp, x, self.axis)

    def backward(self, xp, g, out, x):
        if (x.size if self.axis is None else x.shape[self.axis]) <= 1:  # a running product of one
            # factor is the identity: its gradient is 1 even at inf or NaN, where out / x is NaN
            return g.reshape(self.in_shape)  # (PyTorch's cumprod_backward, for a dim of size 1)
        if self.axis is None:
            x, g, out = x.reshape((-1,)), g.reshape((-1,)), out.reshape((-1,))
        ax = 0 if self.axis is None else self.axis
        if builds_graph(xp) and xp.any(x == 0):
            jac = _running_product_jacobian(xp, x, ax)  # [..., i, j] = d out_j / d x_i
            grad = xp.moveaxis(xp.sum(jac * xp.expand_dims(xp.moveaxis(g, ax, -1), -2), axis=-1), -1, ax)
            return grad.reshape(self.in_shape) if self.axis is None else grad

        def rev_cumsum(v):
            return xp.flip(running_sum(xp, xp.flip(v, ax), ax), ax)

        is_zero = x == 0
        zeros_so_far = xp.cumsum(is_zero, ax)
        before = zeros_so_far == 0
        at_first = xp.logical_and(is_zero, zeros_so_far == 1)
        with xp.errstate(divide="ignore", invalid="ignore"):
            part_before = rev_cumsum(xp.where(before, g * out, 0)) / xp.where(before, x, 1)
        # at the first zero: sum over j >= z of g_j * prod_{k <= j, k != z} x_k
        ones_at_z = xp.cumprod(xp.where(at_first, 1, x), ax)
        part_at = rev_cumsum(xp.where(zeros_so_far >= 1, g * ones_at_z, 0))
        grad = xp.where(before, part_before, xp.where(at_first, part_at, 0))
        return grad.reshape(self.in_shape) if self.axis is None else grad

    def jvp(self, xp, tangents, out, x):
        # d out_j = sum_{i <= j} t_i prod_{k <= j, k != i} x_k: out_j * cumsum(t / x)_j
        # before the first zero z; after it only the term i = z survives, until a second zero
        (t,) = tangents
        if t is None:
            return None
        if self.axis is None:
            x, t, o = x.reshape((-1,)), t.reshape((-1,)), out.reshape((-1,))
        else:
            o = out
        ax = 0 if self.axis is None else self.axis
        if builds_graph(xp) and xp.any(x == 0):
            jac = _running_product_jacobian(xp, x, ax)
            r = xp.moveaxis(xp.sum(jac * xp.expand_dims(xp.moveaxis(t, ax, -1), -1), axis=-2), -1, ax)
            return r.reshape(out.shape) if self.axis is None else r
        is_zero = x == 0
        zeros_so_far = xp.cumsum(is_zero, ax)
        before = zeros_so_far == 0
        at_first = xp.logical_and(is_zero, zeros_so_far == 1)
        with xp.errstate(divide="ignore", invalid="ignore"):
            ratio = xp.where(before, t / xp.where(before, x, 1), 0)
        part_before = o * xp.cumsum(ratio, ax)
        # terms i = z (the first zero): t_z * prod_{k <= j, k != z} x_k for j >= z
        t_z = xp.sum(xp.where(at_first, t, 0), axis=ax, keepdims=True)
        part_at = t_z * xp.where(zeros_so_far >= 1, xp.cumprod(xp.where(at_first, 1, x), ax), 0)
        r = xp.where(before, part_before, part_at * (zeros_so_far == 1))
        return r.reshape(out.shape) if self.axis is None else r

    def reference(self, np, x):
        return np.cumprod(x, axis=self.axis)


def _running_product_jacobian(xp: Any, x: Any, ax: int) -> Any:
    """``J[..., i, j] = d out_j / d x_i`` of ``out = cumprod(x, ax)``, with ``ax`` moved last: the
    product of ``x_k`` for ``k <= j, k != i`` where ``i <= j``, else 0 -- written as products only
    (no division), so that every factor, a zero one too, stays in the expression and its
    derivative is exact to any order.  It is ``prod_{k < i} x_k`` times ``prod_{i < k <= j} x_k``;
    the second is a running product along ``k`` of ``x_k`` with the factors ``k <= i`` set to 1."""
    xm = xp.moveaxis(x, ax, -1)
    n = xm.shape[-1]
    k = xp.arange(n)
    after_i = xp.cumprod(xp.where(k > xp.expand_dims(k, -1), xp.expand_dims(xm, -2), 1), axis=-1)
    before_i = xp.cumprod(xp.concatenate([xp.ones_like(xm[..., :1]), xm[..., :-1]], axis=-1), axis=-1)
    return xp.where(k >= xp.expand_dims(k, -1), xp.expand_dims(before_i, -1) * after_i, 0)
