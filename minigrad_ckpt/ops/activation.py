"""Activation functions: relu, hardtanh, leaky_relu, gelu (exact and tanh), silu,
softmax (also scaled and causally masked, for attention) and log_softmax.

``relu`` and ``leaky_relu`` take the subgradient at 0 from the left branch
(``relu'(0) = 0``), as PyTorch does.
"""

from __future__ import annotations

import math

from ..backend import HALF, half_in_float32, is_array
from .base import Op
from .elementwise import BinaryElementwise, UnaryElementwise, horner, in_cache_sized_pieces
from .shape import TrilFill, fill_above_diagonal

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# Numerical Recipes' erfcc (Press et al., a Chebyshev fit): erfc(z) = t exp(-z^2 + t P(t) - 1.26551223),
# t = 1 / (1 + z / 2), within 1.2e-7 of erfc relatively for every z >= 0; P highest power first
_ERFCC_P = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418,
            0.37409196, 1.00002368)


class Relu(UnaryElementwise):
    """``max(x, 0)``; gradient 1 for ``x > 0`` and at NaN, else 0 (also at 0), as PyTorch's."""

    save_inputs = False
    save_output = True
    connected = True  # PyTorch's threshold_backward(grad, result): on the output's graph, derivative 0

    def forward(self, xp, x):
        return xp.maximum(x, 0)

    def derivative(self, xp, out, x):
        # a mask (multiplying by it keeps the gradient's dtype): 0 where out <= 0, so a NaN passes
        # the gradient on as PyTorch's threshold_backward does (out > 0 stopped it there)
        return ~(out <= 0)

    def reference(self, np, x):
        return np.where((x > 0) | np.isnan(x), x, 0).astype(x.dtype)  # NaN stays NaN, as PyTorch


class HardTanh(UnaryElementwise):
    """``x`` clamped to ``[min_val, max_val]``; gradient 1 strictly inside and at NaN, 0 at and beyond
    the bounds, as PyTorch's ``hardtanh_backward`` (``x <= min_val || x >= max_val ? 0 : grad``: a NaN is
    neither, so its gradient passes, where ``clamp``'s is 0).  The mask comes from the saved input in
    backward, so a checkpointed segment keeps nothing but the input for it."""

    min_val: float
    max_val: float
    connected = True  # PyTorch's hardtanh_backward(grad, self): on the input's graph, derivative 0

    def forward(self, xp, x):
        # where, not maximum/minimum: x itself wherever it is not beyond a bound, so -0.0 stays
        # -0.0 at min_val = 0 (PyTorch's hardtanh and relu6; NumPy's maximum answers 0.0) and NaN stays NaN
        low = xp.where(x < self.min_val, self.min_val, x)
        return xp.where(low > self.max_val, self.max_val, low)

    def derivative(self, xp, out, x):
        return ~((x <= self.min_val) | (x >= self.max_val))  # (not "inside": True at NaN)

    def reference(self, np, x):
        inside = (x > self.min_val) & (x < self.max_val)
        return np.where(inside, x, np.clip(x, self.min_val, self.max_val)).astype(x.dtype)


#: PyTorch's ``hardsigmoid_backward`` multiplies by ``1.0f / 6.0f``, a float32 constant, in every dtype
_ONE_SIXTH_F32 = 0.1666666716337204


class Hardsigmoid(UnaryElementwise):
    """``relu6(x + 3) / 6`` as PyTorch's kernel computes it (clamped, then divided by 6; NaN stays
    NaN).  Its derivative is PyTorch's ``hardsigmoid_backward``'s: 1/6 strictly inside (-3, 3), as
    the float32 ``1.0f / 6.0f`` even for float64 (so float64 gradients are PyTorch's to the bit, not
    3e-8 apart), 0 at and beyond +-3 and at NaN."""

    connected = True  # PyTorch's hardsigmoid_backward(grad, self): on the input's graph, derivative 0

    def forward(self, xp, x):
        return xp.minimum(xp.maximum(x + 3, 0), 6) / 6

    def times_derivative(self, xp, v, out, x):
        # PyTorch's (x > -3 && x < 3) ? grad / 6 : 0 -- a select, so an infinite grad outside gives 0, not NaN
        return xp.gradient_where((x > -3) & (x < 3), v * x.dtype.type(_ONE_SIXTH_F32))

    def reference(self, np, x):
        return (np.clip(x.astype(np.float64) + 3, 0, 6) / 6).astype(x.dtype)


class Threshold(UnaryElementwise):
    """``x`` where ``x > threshold``, else ``value``; gradient 1 above the threshold and at NaN (which
    stays), 0 at and below it, as PyTorch's ``threshold_backward``."""

    threshold: float
    value: float
    connected = True  # PyTorch's threshold_backward(grad, self, threshold): on the input's graph, derivative 0

    def forward(self, xp, x):
        return xp.where(x <= self.threshold, x.dtype.type(self.value), x)

    def derivative(self, xp, out, x):
        return ~(x <= self.threshold)

    def reference(self, np, x):
        return np.where(x <= self.threshold, self.value, x).astype(x.dtype)


class Hardshrink(UnaryElementwise):
    """``x`` where ``|x| > lambd``, else 0; NaN stays; gradient 1 outside ``[-lambd, lambd]`` and at NaN,
    as PyTorch's ``hardshrink_backward``."""

    lambd: float
    connected = True  # PyTorch's hardshrink_backward(grad, self, lambd): on the input's graph, derivative 0

    def forward(self, xp, x):
        return xp.where((x >= -self.lambd) & (x <= self.lambd), x.dtype.type(0), x)

    def derivative(self, xp, out, x):
        return ~((x >= -self.lambd) & (x <= self.lambd))

    def reference(self, np, x):
        return np.where(np.abs(x) <= self.lambd, 0, x).astype(x.dtype)


class Softshrink(UnaryElementwise):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between; NaN stays (the branch
    ``x - lambd``); gradient as :class:`Hardshrink`'s, PyTorch's ``softshrink_backward``."""

    lambd: float
    connected = True  # PyTorch's softshrink_backward(grad, self, lambd): on the input's graph, derivative 0

    def forward(self, xp, x):
        inner = xp.where(x <= self.lambd, x.dtype.type(0), x - self.lambd)
        return xp.where(x < -self.lambd, x + self.lambd, inner)

    def derivative(self, xp, out, x):
        return ~((x >= -self.lambd) & (x <= self.lambd))

    def reference(self, np, x):
        return np.where(x < -self.lambd, x + self.lambd, np.where(x <= self.lambd, 0, x - self.lambd)).astype(x.dtype)


class LeakyRelu(UnaryElementwise):
    """``x`` for ``x > 0``, else ``negative_slope * x``."""

    negative_slope: float
    connected = True  # PyTorch's leaky_relu_backward(grad, self): on the input's graph, derivative 0

    def forward(self, xp, x):
        return xp.where(x > 0, x, x * self.negative_slope)

    def times_derivative(self, xp, v, out, x):
        # 1 or the slope, written as a product so that it keeps v's dtype
        return xp.where(x > 0, v, v * self.negative_slope)

    def reference(self, np, x):
        return np.where(x > 0, x, x * self.negative_slope)


class PRelu(BinaryElementwise):
    """``prelu(x, weight)``: ``x`` for ``x > 0``, else ``weight * x`` (the weight broadcast to ``x``'s shape: one
    slope, or one per channel).  One op, as PyTorch's ``_prelu_kernel``, whose backward takes the input: the
    input's gradient stays on its graph, derivative 0 there (``xp.keep_connected``), so a second derivative in
    the input is zeros, not an unused input (a ``where`` of ``x`` and ``weight * x`` left it unconnected)."""

    partials_read = (("x", "y"), ("x",))

    def forward(self, xp, x, w):
        return xp.where(x > 0, x, w * x)

    def times_d_first(self, xp, v, out, x, w):
        return xp.keep_connected(xp.where(x > 0, v, v * w), x)  # (v has x's shape: w broadcasts to it)

    def times_d_second(self, xp, v, out, x, w):
        return xp.where(x > 0, 0, v * x)

    def reference(self, np, x, w):
        return np.where(x > 0, x, w * x)


def _normal_cdf_float32(xp, x):
    """``Phi(x) = erfc(-x / sqrt 2) / 2`` in float32, by :data:`_ERFCC_P`: one formula for every ``x``
    in about 30 array passes, where ``(1 + erf(x / sqrt 2)) / 2`` took 60 (erf's two branches on every
    value) and cancelled below 0 (GELU(-5) had no correct digit; PyTorch's float32 GELU, 1 + an erf
    within 1.5e-7 absolutely, loses them too).  GELU's float32 values are within 10 units in the last
    place for ``x >= -3`` (float64 evaluation of the same formula: 3; the rest is float32's rounding of
    ``x^2 / 2`` and of the polynomial) and about 130 relatively below, against float64's erf;
    ``-x^2 / 2`` is formed from ``x`` itself, not from a rounded ``x / sqrt 2``.  Arrays or Tensors
    (a derivative taken twice goes through the same operations, so the same values).

    Differentiated (Tensors), ``|x|`` is ``where(x > 0, x, -x)``, the same bits: ``abs`` has slope 0 at
    ``x = 0``, which made ``Phi'(0)`` 0 and GELU's second derivative there half its value; ``-x`` gives
    the slope of the branch taken there.  (On arrays ``abs``: one pass where ``where`` took three.)"""
    magnitude = xp.abs(x) if is_array(x) else xp.where(x > 0, x, -x)
    t = 1 / (1 + magnitude * (0.5 * _INV_SQRT_2))
    lower_tail = xp.exp(horner(_ERFCC_P, t) * t - 1.26551223 - x * x * 0.5) * t * 0.5  # Phi(-|x|)
    return xp.where(x > 0, 1 - lower_tail, lower_tail)


@in_cache_sized_pieces  # (a transformer's largest activations: its MLP's)
def _gelu(xp, x, approximate):
    """GELU's values: ``0.5 x (1 + tanh(c (x + 0.044715 x^3)))`` or ``0.5 x (1 + erf(x / sqrt 2))``
    (in float32 ``x Phi(x)``, :func:`_normal_cdf_float32`), term by term, each step in place in one new
    array (the same operations in the same order as new arrays: nine arrays made two, 21% less time)."""
    with xp.errstate(invalid="ignore", over="ignore"):  # -inf * 0 at -inf: NaN; x^3 past the largest:
        if approximate == "tanh":                       # inf, tanh 1 -- PyTorch's values, silently
            t = 0.044715 * x
            t *= x
            t *= x
            t += x
            t *= _SQRT_2_OVER_PI
            xp.tanh(t, out=t)
        elif x.dtype == "float32":
            return x * _normal_cdf_float32(xp, x)
        else:
            t = xp.erf(x * _INV_SQRT_2)
        t += 1
        half = 0.5 * x
        half *= t
        return half


@in_cache_sized_pieces
def _gelu_derivative(xp, x, approximate):
    """GELU's derivative: ``Phi(x) + x phi(x)``, or the tanh approximation's."""
    with xp.errstate(invalid="ignore", over="ignore"):  # as _gelu: +-inf and huge x, silently
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
            t = xp.tanh(inner)
            d_inner = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner
        cdf = _normal_cdf_float32(xp, x) if x.dtype == "float32" else 0.5 * (1 + xp.erf(x * _INV_SQRT_2))
        pdf = xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
        return cdf + x * pdf


class Gelu(UnaryElementwise):
    """Gaussian error linear unit: ``x * Phi(x)`` (``approximate="none"``) or
    the tanh approximation ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""

    approximate: str

    @half_in_float32  # erf's 1 + erf(x) cancels below -2: float16 lost 8% at -3
    def forward(self, xp, x):
        if x.ndim == 0:  # NumPy's arithmetic on 0-d arrays gives scalars, not writable in place
            return self.forward(xp, x.reshape(1)).reshape(())
        return _gelu(xp, x, self.approximate)

    @half_in_float32
    def derivative(self, xp, out, x):
        return _gelu_derivative(xp, x, self.approximate)

    def reference(self, np, x):
        x64 = x.astype(np.float64)
        if self.approximate == "tanh":
            r = 0.5 * x64 * (1 + np.tanh(_SQRT_2_OVER_PI * (x64 + 0.044715 * x64**3)))
        else:
            erf = np.vectorize(math.erf, otypes=[np.float64])
            r = 0.5 * x64 * (1 + erf(x64 * _INV_SQRT_2))
        return r.astype(x.dtype)


class Silu(UnaryElementwise):
    """``x * sigmoid(x)`` (also called swish)."""

    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):  # -inf * sigmoid(-inf) = -inf * 0: NaN, as PyTorch's, silently
            return x * xp.sigmoid(x)

    def derivative(self, xp, out, x):
        s = xp.sigmoid(x)
        with xp.errstate(invalid="ignore"):  # (the same at +-inf)
            return s * (1 + x * (1 - s))

    def reference(self, np, x):
        return x * np.exp(-np.logaddexp(0, -x))


class Mish(UnaryElementwise):
    """``x tanh(softplus(x))`` and PyTorch's ``mish_backward``, ``g (tanh(sp) + x sigmoid(x) (1 -
    tanh(sp)^2))``, in one op: a composition's chain rule met ``inf - inf`` under an infinite gradient
    (NaN, PyTorch: inf).  The softplus is ``logaddexp(0, x)``, stable for any ``x`` (PyTorch's
    ``log1p(exp(x))`` agrees with it to an ulp).  float16 in float32, rounded once -- the gradient's
    product included."""

    @half_in_float32
    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):  # -inf * tanh(0): NaN, as PyTorch's
            return x * xp.tanh(xp.logaddexp(0, x))

    @half_in_float32
    def times_derivative(self, xp, v, out, x):
        with xp.errstate(invalid="ignore", over="ignore"):  # +-inf: inf * 0, NaN as PyTorch's; a huge v: inf
            tanh_sp = xp.tanh(xp.logaddexp(0, x))
            return v * (tanh_sp + x * xp.sigmoid(x) * (1 - tanh_sp * tanh_sp))

    def reference(self, np, x):
        return x * np.tanh(np.logaddexp(0, x))


class Hardswish(UnaryElementwise):
    """``x relu6(x + 3) / 6``, PyTorch's kernel: ``x * min(max(x + 3, 0), 6) / 6`` (from 3 on that is
    ``x * 6 / 6``, which is not ``x`` for 14% of float32 values; -0.0 up to -3, NaN at -inf).  Its
    derivative, PyTorch's ``hardswish_backward``: 0 up to -3 (selected: an infinite gradient gives 0),
    ``x / 3 + 1/2`` inside, 1 from 3 on and at NaN.  float16 is computed in float32 and rounded once."""

    connected = True  # PyTorch's hardswish_backward(grad, self): on the input's graph

    @half_in_float32
    def forward(self, xp, x):
        with xp.errstate(invalid="ignore", over="ignore"):  # -inf * 0: NaN; x * 6 past the largest: inf (PyTorch's)
            return x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6

    @half_in_float32
    def times_derivative(self, xp, v, out, x):
        # (the product is taken everywhere, selected inside: silent where it overflows or is inf * 0,
        # as PyTorch's -- its value there is PyTorch's too, or not selected)
        with xp.errstate(invalid="ignore", over="ignore"):
            inside = v * (x / 3 + 0.5)
        return xp.where(x <= -3, 0, xp.where(x < 3, inside, v))

    def reference(self, np, x):
        with np.errstate(invalid="ignore"):
            return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


class Softmax(Op):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the max for stability."""

    axis: tuple[int, ...]

    save_inputs = False
    save_output = True

    # float16 in float32, rounded once, forward and backward (PyTorch's half softmax kernels compute
    # in float): step by step its values were up to 8 units in the last place off, its gradients 50
    @half_in_float32
    def forward(self, xp, x):
        if x.size == 0:  # an empty axis: nothing to normalize (the max would have no value)
            return x + 0
        with xp.errstate(invalid="ignore"):  # a row of -inf (masked out) or with +inf: NaN, silently
            e = x - xp.max(x, axis=self.axis, keepdims=True)  # one new array, written in place
        if e.dtype.kind in "fc":
            xp.exp(e, out=e)
        else:  # integers: the exponential is a float array (NumPy's)
            e = xp.exp(e)
        e /= xp.sum(e, axis=self.axis, keepdims=True)
        return e

    def backward(self, xp, g, out, x):
        return self._times_jacobian(xp, g, out)

    def jvp(self, xp, tangents, out, x):
        return self._times_jacobian(xp, tangents[0], out)

    @half_in_float32
    def _times_jacobian(self, xp, v, out):
        return _softmax_times_jacobian(xp, v, out, self.axis)

    def reference(self, np, x):
        if x.size == 0:
            return x.copy()
        x64 = x.astype(np.float64)
        e = np.exp(x64 - np.max(x64, axis=self.axis, keepdims=True))
        return (e / np.sum(e, axis=self.axis, keepdims=True)).astype(x.dtype)


def _softmax_times_jacobian(xp, v, out, axis):
    """``J v`` for softmax's ``J = diag(s) - s s^T`` (``s = out``): symmetric, so also ``J^T v``."""
    sv = v * out
    return sv - out * xp.sum(sv, axis=axis, keepdims=True)


class ScaledSoftmax(Op):
    """``softmax(scale * x)`` along the last axis, with the entries above the ``k``-th
    diagonal of the last two axes (``j > i + k``) left out -- weight 0 -- when ``causal``:
    attention's scores to weights as one op.

    Value for value it is ``Softmax(TrilFill(x * scale, k, -inf))`` (the same operations
    in the same order, forward and backward), but written into one array in place where
    the three ops make five, and saving only its output.

    A row with nothing to attend to (every entry ``-inf``: masked out whole) is all 0 when
    ``zero_empty_rows``, as in PyTorch's ``scaled_dot_product_attention`` (its
    ``_safe_softmax``), where the plain softmax gives ``0 / 0 = NaN``; its gradient is then
    0 too (the backward multiplies by the output). ``zero_empty_rows=False`` keeps the NaN
    (PyTorch's ``MultiheadAttention`` when it returns the weights).
    """

    scale: float
    causal: bool
    k: int = 0
    zero_empty_rows: bool = True

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        s = x * self.scale  # a new array: the steps below write into it
        if s.size == 0:
            return s
        if self.causal:
            fill_above_diagonal(xp, s, self.k, -math.inf)
        top = xp.max(s, axis=-1, keepdims=True)
        if self.zero_empty_rows:  # no device sync: two steps of one number per row
            # a row of -inf only is shifted by 0, so it is exp(-inf) = 0 and not 0/0; divided
            # by 1: every other row's sum is already >= 1 (exp(0) at its max), kept as it is
            top = xp.where(top == -math.inf, top.dtype.type(0), top)
        with xp.errstate(invalid="ignore"):  # a row of -inf kept as NaN (or holding +inf): silently
            s -= top
        xp.exp(s, out=s)
        total = xp.sum(s, axis=-1, keepdims=True)
        s /= xp.maximum(total, total.dtype.type(1)) if self.zero_empty_rows else total
        return s

    # The Jacobian is symmetric (as Softmax's); each mode applies its three factors in the
    # order the three ops would, so that both modes round as they do.
    def backward(self, xp, g, out, x):
        v = _softmax_times_jacobian(xp, g, out, -1)
        if not is_array(v):  # Tensors (a gradient with create_graph): new arrays, differentiable
            return (xp.tril(v, self.k) if self.causal else v) * self.scale
        # v is this backward's own array: masked and scaled in place, the same bits as tril's new
        # array and the product's (attention's scores: tril's where took 1.0 ms, the fill 0.4)
        if self.causal:  # 0 there already, unless g held inf or NaN where the mask is
            fill_above_diagonal(xp, v, self.k, 0)
        v *= self.scale
        return v

    def jvp(self, xp, tangents, out, x):
        t = tangents[0] * self.scale
        return _softmax_times_jacobian(xp, xp.tril(t, self.k) if self.causal else t, out, -1)

    def reference(self, np, x):
        s = x.astype(np.float64) * self.scale
        if self.causal:
            s = TrilFill(k=self.k, value=-math.inf).reference(np, s)
        with np.errstate(invalid="ignore"):
            w = Softmax(axis=(s.ndim - 1,)).reference(np, s)
        if self.zero_empty_rows:
            w = np.where(np.all(s == -math.inf, axis=-1, keepdims=True), 0.0, w)
        return w.astype(x.dtype)


def _log_softmax(xp, x, axis):
    with xp.errstate(invalid="ignore"):  # a row of -inf (masked out) or with +inf: NaN, silently
        shifted = x - xp.max(x, axis=axis, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))


_log_softmax_in_float32 = half_in_float32(_log_softmax)


class LogSoftmax(Op):
    """``x - logsumexp(x)`` along ``axis``: exact for logits of ±1e4 in float32."""

    axis: tuple[int, ...]

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        if x.size == 0:  # an empty axis: nothing to normalize
            return x + 0
        if x.dtype is HALF and self.axis != (x.ndim - 1,):  # (identity: the test runs on every call)
            # PyTorch's half log_softmax along another dim than the last is its float one rounded once:
            # step by step in float16, values near 0 were up to 2000 units in the last place off (along
            # the last dim its kernel rounds in between, and the float16 steps are within a unit or two)
            return _log_softmax_in_float32(xp, x, self.axis)
        return _log_softmax(xp, x, self.axis)

    # the gradient and the tangent of float16 in float32, rounded once, as PyTorch's half backward
    # (along any dim): step by step in float16 a tenth of the gradients were a unit or more off
    @half_in_float32
    def backward(self, xp, g, out, x):
        return g - xp.exp(out) * xp.sum(g, axis=self.axis, keepdims=True)

    @half_in_float32
    def _tangent(self, xp, t, out):
        return t - xp.sum(xp.exp(out) * t, axis=self.axis, keepdims=True)

    def jvp(self, xp, tangents, out, x):
        return self._tangent(xp, tangents[0], out)

    def reference(self, np, x):
        if x.size == 0:
            return x.copy()
        x64 = x.astype(np.float64)
        m = np.max(x64, axis=self.axis, keepdims=True)
        # (x - m) - log(sum): adding m to the log-sum first rounds it away near the float's max
        return ((x64 - m) - np.log(np.sum(np.exp(x64 - m), axis=self.axis, keepdims=True))).astype(x.dtype)
