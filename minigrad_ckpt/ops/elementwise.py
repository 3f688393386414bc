"""Elementwise ops: arithmetic, powers, exponentials, trigonometry, clip, where.

Broadcasting is NumPy's.  Each backward returns gradients of the broadcast
shape and lets the engine sum them down to each input's shape.

**Each derivative is written once.**  An elementwise op subclasses
:class:`UnaryElementwise` and states its local derivative ``f'(x)``
(``derivative``), or :class:`BinaryElementwise` and states its two partials
(``d_first``, ``d_second``).  Reverse mode (``backward``: the upstream
gradient times the derivative), forward mode (``jvp``: the tangent times the
derivative) and, because both are written with ``xp`` functions, every
higher derivative follow from that one statement, so they can never disagree.
An op whose derivative is best stated as a product with a mask (``relu``,
ties of ``maximum``) overrides the product instead (``times_derivative``,
``times_d_first``, ``times_d_second``).  For real numbers the Jacobian of an
elementwise op is diagonal, so reverse and forward mode multiply by the same
number; :meth:`UnaryElementwise.backward` and :meth:`BinaryElementwise.backward`
are the one place where that is used (complex inputs would conjugate there).

Three documented conventions live here:

* **Kinks** take the subgradient 0: ``abs'(0) = 0``; ``clip`` passes the
  gradient to ``x`` on the closed interval ``[lo, hi]``; ``maximum``/``minimum``
  split it evenly (1/2 each) between tied operands.
* **Singular points** (``sqrt`` and ``log`` at 0, ``x / y`` at ``y == 0``,
  ``x ** p`` at ``x == 0``): where the upstream gradient is exactly zero the
  gradient is zero, never ``0 * inf = nan``.  This is what keeps
  ``where(x > 0, sqrt(x), x)`` NaN-free at ``x == 0``: ``where`` hands the
  unselected branch a zero gradient, and a zero gradient stays zero.  Only
  the singular points are masked, so second derivatives through a zero
  upstream gradient (``d/da d/db [a * log(b)]`` at ``a = 0``) stay exact.
  An op declares ``singular = True`` and the base class applies the rule
  (:func:`times_local`), in both modes.
* **Masks select**: a derivative that is a boolean mask (``relu``,
  ``threshold``, ``hardtanh``, the shrinks) passes the gradient where it is
  True and gives +0.0 elsewhere whatever the gradient is -- PyTorch's
  ``threshold_backward`` (``mask ? grad : 0``), never ``inf * 0 = nan`` or
  ``-2 * 0 = -0.0`` (:func:`gradient_where`).
"""

from __future__ import annotations

import cmath
import math
import operator
from typing import Any, ClassVar

from ..backend import HALF, half_in_float32, host_numpy, register_kernel, rounded_to_half
from .base import FunctionOp, Op, add_tangents
from .complex_numbers import complex_from_parts

__all__ = ["UnaryElementwise", "BinaryElementwise", "times_local", "divided_by_local", "horner",
           "in_cache_sized_pieces"]

_CONST = (int, float, bool)  # Python scalars: weakly typed constants, never differentiated
#: What a ``quiet`` or ``singular`` op's derivative is evaluated under (infinities, overflow).
_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}
_LN2 = math.log(2.0)


def _is_number(a: Any) -> bool:
    """Whether a derivative's factor is a Python number, complex too (``1 / c`` of ``z / c``): it stays
    one, weakly typed -- put into an array it would be a 0-d complex128 (or float64) that widens the
    product.  A Python ``complex`` exactly, not NumPy's complex128 scalar (a 0-d derivative on the CPU),
    which takes the array path as the strict device's 0-d array does: a complex product rounds
    differently in NumPy's scalar math than in its array loop.  (``float`` covers NumPy's float64
    scalars, whose product rounds alike either way.)"""
    return isinstance(a, _CONST) or a.__class__ is complex


def times_local(xp: Any, v: Any, local: Any) -> Any:
    """``v * local`` for a local derivative that may be infinite: where it is not
    finite and ``v`` is exactly 0 the result is 0 (never ``0 * inf = nan``).

    Only the singular points are masked, and the mask sits on ``local``, not
    on the product: where the derivative is finite the result is ``v * local``
    in value and, under ``create_graph=True``, in its derivatives too -- a
    mask on every ``v == 0`` would make the mixed second derivative of
    ``a * log(b)`` at ``a = 0`` vanish.  At a singular point the masked
    factor is 0, so the second-order backward through this product
    multiplies only finite numbers and stays NaN-free as well.  A Python
    number, complex too, stays one (weakly typed: float32 stays float32).
    """
    if _is_number(local):
        return v * local if cmath.isfinite(local) else xp.where(v != 0, v * local, v * 0)
    ok = xp.logical_or(xp.isfinite(local), v != 0)
    return v * xp.where(ok, local, 0)


def divided_by_local(xp: Any, v: Any, denominator: Any) -> Any:
    """``v`` times a local derivative ``1 / denominator``, taken as ``v / denominator``: the
    reciprocal of a subnormal overflows to inf where the quotient is finite (``log``'s gradient
    at ``5e-324`` times ``g = 5e-324`` was inf, PyTorch's ``g / x`` is 1; entropy's ``t * log(t)``
    at a subnormal ``t`` had an infinite gradient).  The singular rule of :func:`times_local`:
    where ``denominator`` is 0 or NaN and ``v`` is exactly 0 the result is 0, the mask on the
    denominator (replaced by inf), so second derivatives through ``v`` stay exact."""
    if _is_number(denominator):  # (z / (2 - 1j): a number stays one, complex64 stays complex64)
        return v / denominator if denominator != 0 and denominator == denominator else xp.where(
            v != 0, v / denominator, v * 0)
    singular = xp.logical_or(denominator == 0, xp.isnan(denominator))
    ok = xp.logical_or(xp.logical_not(singular), v != 0)
    return v / xp.where(ok, denominator, xp.inf)


def _times(xp: Any, v: Any, local: Any, singular: bool) -> Any:
    """``v`` times a local derivative, by the rule the op declares (see :func:`times_local`).
    A derivative that is the number 1 or -1 (``x + y``, ``-x``) passes ``v`` on as it is; one that is
    the number 0 (a step function, ``x ** 0``) gives zeros, not ``v * 0``: an infinite or NaN ``v``
    gives 0 there too (and +0.0), as PyTorch's ``zeros_like(grad)``.  A mask (a boolean derivative:
    relu, hardtanh, threshold, the shrinks) selects likewise (:func:`gradient_where`)."""
    if local.__class__ is int:
        if local == 1 or local == -1:
            return v if local == 1 else -v
        if local == 0:
            return xp.zeros_like(v)
    if getattr(getattr(local, "dtype", None), "kind", None) == "b":
        return xp.gradient_where(local, v)
    return times_local(xp, v, local) if singular else v * local


# an unsigned word per float size (read once: a dict look-up, not a dtype construction, per call)
_WORD_OF_SIZE = {t(0).itemsize: t for t in (host_numpy.uint16, host_numpy.uint32, host_numpy.uint64)}


@register_kernel
def gradient_where(xp, mask, v):
    """``v`` where ``mask``, else +0.0: PyTorch's ``threshold_backward`` and its kin (``mask ? grad :
    0``), where ``v * mask`` would give NaN for an infinite or NaN ``v`` (``inf * 0``) and -0.0 for a
    negative one.  NumPy's ``where`` branches per element -- 18 against 1.7 ms for the product on a
    (64, 64, 24, 24) float32 gradient and a random mask -- so on the CPU ``v``'s bits, read as an
    unsigned word, are multiplied by the mask's 0 or 1 bytes: exact, and one ufunc of the two operands,
    so the result is laid out as ``where``'s is (the devices' path).  A layout of its own (the mask's,
    which a convolution's channels-last output gives) changed the order a later sum over it adds in:
    a conv-relu bias gradient a unit off the strict device's, and 10x slower to compute."""
    word = _WORD_OF_SIZE.get(v.dtype.itemsize) if xp.name == "numpy" and v.dtype.kind == "f" else None
    if (word is None or mask.__class__ is not host_numpy.ndarray or v.__class__ is not host_numpy.ndarray
            or v.shape != mask.shape or not v.ndim):  # (NumPy's ufuncs answer a 0-d array with a scalar)
        return xp.where(mask, v, 0)
    return host_numpy.multiply(v.view(word), mask.view(host_numpy.uint8), dtype=word).view(v.dtype)


def horner(coeffs: tuple[float, ...], x: Any) -> Any:
    """The polynomial ``coeffs[0] x^k + ... + coeffs[k]`` (highest power first) at ``x``,
    by Horner's rule; the result has ``x``'s type and dtype.

    Each step writes into the one array the first made: ``r * x + c`` as new arrays, the same
    operations in the same order (``r`` already has their dtype: ``x``'s, or what a Python float
    beside it makes), cost two arrays of ``x``'s size a step, most of GELU's time in erf's four
    polynomials.  Tensors (a derivative taken twice) make new ones: the product saves ``r``."""
    r = x * 0
    if getattr(r, "flags", None) is None:  # a Tensor (NumPy's scalars have flags and rebind in place)
        r = r + coeffs[0]
        for c in coeffs[1:]:
            r = r * x + c
        return r
    if r.dtype.kind in "fc":
        r += coeffs[0]
    else:  # integers and booleans: + a float makes the float array
        r = r + coeffs[0]
    for c in coeffs[1:]:
        r *= x
        r += c
    return r


#: A kernel of many passes over its array (erf's ~60) evaluates a large host array this many
#: elements at a time, so its temporaries stay in the cache between passes: erf of 3M float32
#: values 60 -> 50 ms, float64 120 -> 68 ms (16K elements; 4K and 64K measured slower or no faster).
_CACHE_PIECE = 1 << 14


def in_cache_sized_pieces(kernel: Any) -> Any:
    """Run the elementwise kernel ``kernel(xp, x, *options)`` on a large C-contiguous host array ``x``
    a piece at a time, each piece's values written into one result array.

    Elementwise: every value goes through the same operations as on the whole array, so the
    result is the same bits; only the memory the passes touch shrinks to a piece.  Anything else
    -- a small array, another layout, a device's array (one kernel launch beats many), Tensors (a
    derivative taken twice) -- is ``kernel`` itself."""

    def pieced(xp: Any, x: Any, *options: Any) -> Any:
        if x.__class__ is not host_numpy.ndarray or x.size < 4 * _CACHE_PIECE or not x.flags.c_contiguous:
            return kernel(xp, x, *options)
        flat = x.reshape(-1)
        out = None
        for start in range(0, flat.size, _CACHE_PIECE):
            piece = kernel(xp, flat[start:start + _CACHE_PIECE], *options)
            if out is None:
                out = host_numpy.empty(flat.shape, piece.dtype)
            out[start:start + _CACHE_PIECE] = piece
        return out.reshape(x.shape)

    pieced.__name__, pieced.__qualname__, pieced.__doc__ = kernel.__name__, kernel.__qualname__, kernel.__doc__
    pieced.__wrapped__ = kernel
    return pieced


# ------------------------------------------------------------ the base classes
@register_kernel
def keep_connected(xp, value, like):
    """``value``, which a backward or jvp computed from ``like`` piecewise constantly (the gradient times a
    mask of ``like``'s signs): on arrays ``value`` itself; on Tensors also a function of ``like`` with
    derivative 0 (:class:`KeepConnected`), so a gradient made with ``create_graph`` stays on ``like``'s graph,
    as PyTorch's ``threshold_backward`` keeps it (``xp.keep_connected``)."""
    return value


@register_kernel
def zero_gradient_on_graph(xp, like):
    """The gradient of an input ``like`` that an op reads only to stay on its graph (derivative 0): on arrays
    none (``None``, nothing to add); on Tensors zeros that are a function of ``like`` (:class:`KeepConnected`),
    so a gradient made with ``create_graph`` is on ``like``'s graph, as PyTorch's backwards that take their
    input keep it."""
    return None


class KeepConnected(Op):
    """``value`` (derivative 1), as a function of ``like`` too, with derivative 0 (inputs ``value, like``,
    of one shape): the differentiable twin of :func:`keep_connected`, registered so that a tape holding
    one (a gradient made with ``create_graph``) is stored by a snapshot as any other."""

    save_inputs = False

    def forward(self, xp, value, like):
        return value.copy()  # (an output of its own, as every op's that is not a view)

    def backward(self, xp, g, out, value, like):
        return g, xp.zeros_like(g)  # (g has like's shape: the node's output is value)

    def jvp(self, xp, tangents, out, value, like):
        t_value, t_like = tangents
        if t_value is None:  # a zero that stays on like's graph where like moves (PyTorch's ZeroTensor tangent)
            return None if t_like is None else xp.keep_connected(xp.zeros_like(t_like), like)
        return xp.keep_connected(t_value, like)

    def reference(self, np, value, like):
        return value.copy()


class UnaryElementwise(FunctionOp):
    """An elementwise ``f(x)`` stated by its local derivative ``f'(x)``.

    A subclass names its array function ``fn`` (``forward`` is ``xp.<fn>(x)``,
    ``reference`` NumPy's: :class:`~.base.FunctionOp`) or writes them, and
    defines ``derivative(xp, out, x)`` (it may read ``out = f(x)`` if it
    declares ``save_output``, ``x`` unless it declares ``save_inputs = False``).  ``backward`` is ``g * f'(x)``,
    ``jvp`` is ``t * f'(x)``.  Class settings: ``singular = True`` where
    ``f'`` is infinite somewhere (a zero gradient or tangent stays zero there,
    :func:`times_local`); ``quiet = True`` to evaluate ``f'`` with NumPy's
    floating-point warnings off (it overflows where ``f`` does not).  A
    derivative best written as a product (a mask) overrides
    :meth:`times_derivative` instead.
    """

    abstract = True
    singular: ClassVar[bool] = False
    quiet: ClassVar[bool] = False
    #: ``f'`` is piecewise constant and PyTorch differentiates ``f`` by one op of the gradient and the input
    #: (``threshold_backward``, ``hardtanh_backward``, ``leaky_relu_backward``), of derivative 0 in the input:
    #: a gradient (or tangent) made on the graph stays on the input's graph, a second derivative through it is
    #: zeros where a mask alone would leave it unconnected (None) -- ``xp.keep_connected`` does that here.
    connected: ClassVar[bool] = False
    #: Neither singular nor quiet nor connected nor a product of its own: backward is ``g * f'(x)``
    #: as it stands (set for each class; one call less on the hottest ops).
    _plain: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._plain = not (cls.singular or cls.quiet or cls.connected) and (
            cls.times_derivative is UnaryElementwise.times_derivative)

    def derivative(self, xp: Any, out: Any, x: Any) -> Any:
        """``f'(x)``, elementwise (an array, or a Python number for a constant)."""
        raise NotImplementedError(f"{self.name} states neither derivative nor times_derivative")

    def times_derivative(self, xp: Any, v: Any, out: Any, x: Any) -> Any:
        """``v * f'(x)``: the one linear map both modes apply."""
        if self.quiet or self.singular:
            with xp.errstate(**_QUIET):
                return _times(xp, v, self.derivative(xp, out, x), self.singular)
        return _times(xp, v, self.derivative(xp, out, x), False)

    def backward(self, xp, g, out, x):
        # The Jacobian is diagonal, so J^T g = J g: the same product as jvp.  (For
        # complex numbers this is the one place that changes: g * conj(f'(x)).)
        if self._plain:
            return g * self.derivative(xp, out, x)
        if self.connected:
            return xp.keep_connected(self.times_derivative(xp, g, out, x), out if x is None else x)
        return self.times_derivative(xp, g, out, x)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        if t is None:
            return None
        if self._plain:
            return t * self.derivative(xp, out, x)
        if self.connected:
            return xp.keep_connected(self.times_derivative(xp, t, out, x), out if x is None else x)
        return self.times_derivative(xp, t, out, x)


class BinaryElementwise(FunctionOp):
    """An elementwise ``f(x, y)`` stated by its two partial derivatives.

    A subclass names its array function ``fn`` or writes ``forward`` and
    ``reference`` (as for :class:`UnaryElementwise`), and defines
    ``d_first(xp, out, x, y)`` (``df/dx``, with respect to the first input)
    and ``d_second(xp, out, x, y)`` (``df/dy``).  A Python number as an input is a constant: it gets no
    gradient, and its partial is never computed.  ``backward`` is ``(g df/dx,
    g df/dy)``, ``jvp`` is ``tx df/dx + ty df/dy``.  ``singular`` and ``quiet``
    are as for :class:`UnaryElementwise`, and a partial best written as a
    product overrides :meth:`times_d_first` / :meth:`times_d_second`.
    """

    abstract = True
    singular: ClassVar[bool] = False
    quiet: ClassVar[bool] = False
    #: What each partial reads, ``(d_first's, d_second's)``, named ``"out"``, ``"x"``, ``"y"``,
    #: where a subclass states it: with a Python number as one operand only the other partial
    #: is taken, so ``x * 2`` keeps nothing for backward and ``x ** 2`` keeps only ``x``
    #: (``Op.reads_beside_number``).
    partials_read: ClassVar[tuple[tuple[str, ...], tuple[str, ...]] | None] = None
    _plain: ClassVar[bool] = True  # as for UnaryElementwise

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls._plain = not (cls.singular or cls.quiet) and (
            cls.times_d_first is BinaryElementwise.times_d_first
            and cls.times_d_second is BinaryElementwise.times_d_second)
        reads = cls.partials_read
        if reads is not None and cls.save_inputs is True:
            first, second = reads
            cls.reads_beside_number = {1: (cls.save_output and "out" in first, "x" in first),
                                        0: (cls.save_output and "out" in second, "y" in second)}
            cls.grad_reads = tuple(tuple(i for i, name in enumerate("xy") if name in part) for part in reads)
        # after grad_reads is set: Op's makes read_by_some_gradient from it (before, it read the
        # inherited None, and each record of a product whose inputs both need gradients made it again)
        super().__init_subclass__(**kwargs)

    def d_first(self, xp: Any, out: Any, x: Any, y: Any) -> Any:
        """``df/dx``, the partial derivative with respect to the first input."""
        raise NotImplementedError(f"{self.name} states neither d_first nor times_d_first")

    def d_second(self, xp: Any, out: Any, x: Any, y: Any) -> Any:
        """``df/dy``, the partial derivative with respect to the second input."""
        raise NotImplementedError(f"{self.name} states neither d_second nor times_d_second")

    def times_d_first(self, xp: Any, v: Any, out: Any, x: Any, y: Any) -> Any:
        """``v * df/dx``."""
        if self.quiet or self.singular:
            with xp.errstate(**_QUIET):
                return _times(xp, v, self.d_first(xp, out, x, y), self.singular)
        return _times(xp, v, self.d_first(xp, out, x, y), False)

    def times_d_second(self, xp: Any, v: Any, out: Any, x: Any, y: Any) -> Any:
        """``v * df/dy``."""
        if self.quiet or self.singular:
            with xp.errstate(**_QUIET):
                return _times(xp, v, self.d_second(xp, out, x, y), self.singular)
        return _times(xp, v, self.d_second(xp, out, x, y), False)

    def backward(self, xp, g, out, x, y):
        # The Jacobian is diagonal in each input: each gradient is g times the partial,
        # as in jvp.  (For complex numbers this is the one place that changes: conj.)
        if self._plain:
            return (None if isinstance(x, _CONST) else g * self.d_first(xp, out, x, y),
                    None if isinstance(y, _CONST) else g * self.d_second(xp, out, x, y))
        return (None if isinstance(x, _CONST) else self.times_d_first(xp, g, out, x, y),
                None if isinstance(y, _CONST) else self.times_d_second(xp, g, out, x, y))

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        if self._plain:
            return add_tangents(None if tx is None else tx * self.d_first(xp, out, x, y),
                                None if ty is None else ty * self.d_second(xp, out, x, y))
        return add_tangents(None if tx is None else self.times_d_first(xp, tx, out, x, y),
                            None if ty is None else self.times_d_second(xp, ty, out, x, y))


# ----------------------------------------------------------------- binary ops
# Add, Sub and Mul (Neg and Square below too) write ``forward`` out with an operator: the
# hottest ops look nothing up; their ``fn`` names the reference's NumPy function.
class Add(BinaryElementwise):
    fn = "add"
    save_inputs = False

    def forward(self, xp, x, y):
        return x + y

    def times_d_first(self, xp, v, out, x, y):
        return v  # d/dx = 1: the gradient passes on as it is (no copy)

    def times_d_second(self, xp, v, out, x, y):
        return v

    def backward(self, xp, g, out, x, y):
        # the inherited rule written in: nothing is saved (x and y are None here), and each
        # input gets g as it is (a constant's share is dropped by its None edge): per_op -4.2%
        return g, g


class Sub(BinaryElementwise):
    fn = "subtract"
    save_inputs = False

    def forward(self, xp, x, y):
        try:  # (free until raised)
            return x - y
        except TypeError:  # NumPy's refusal of two bool arrays, reached by ``mask - mask`` of one dtype
            if x.dtype.kind == "b" and y.dtype.kind == "b":
                raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                   "Use the `^` or `logical_xor()` operator instead.") from None
            raise

    def times_d_first(self, xp, v, out, x, y):
        return v  # d/dx = 1, d/dy = -1

    def times_d_second(self, xp, v, out, x, y):
        return -v

    def backward(self, xp, g, out, x, y):
        return g, -g  # as Add's: nothing saved, the partials written in


class Mul(BinaryElementwise):
    fn = "multiply"
    partials_read = (("y",), ("x",))  # d/dx = y, d/dy = x
    drops_beside_constant = True

    def forward(self, xp, x, y):
        return x * y

    def d_first(self, xp, out, x, y):
        return y

    def d_second(self, xp, out, x, y):
        return x

    def backward(self, xp, g, out, x, y):
        # the inherited rule with the partials written in: two calls fewer per product (per_op -0.5%);
        # an operand not kept (None) means the other needs no gradient (tape._record: ``x * mask``)
        return (None if isinstance(x, _CONST) or y is None else g * y,
                None if isinstance(y, _CONST) or x is None else g * x)


class Div(BinaryElementwise):
    """``x / y``; singular at ``y == 0``."""

    singular = True
    partials_read = (("y",), ("x", "y"))  # d/dx = 1/y, d/dy = -(x/y)/y

    def forward(self, xp, x, y):
        # (NumPy's complex division by 0 signals "invalid" and "overflow", not "divide")
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return x / y

    def d_first(self, xp, out, x, y):
        return 1 / y if not isinstance(y, _CONST) or y != 0 else math.inf

    def times_d_first(self, xp, v, out, x, y):
        # g / y, as PyTorch's grad / conj(y): at a complex 0 the reciprocal is inf+nanj and g * (1 / y)
        # was nan+nanj where PyTorch's quotient is infinite; 1 / y also overflows for a subnormal y; and
        # by a number, g * (1 / y) was a last bit off PyTorch's g / y for a third of the values
        with xp.errstate(**_QUIET):
            if isinstance(y, _CONST):  # (a Python number stays one: float32 stays float32)
                return v / y if y != 0 and y == y else xp.where(v != 0, v / y, v * 0)  # (the singular rule)
            return divided_by_local(xp, v, y)

    def jvp(self, xp, tangents, out, x, y):
        # PyTorch's tangent of a quotient, (x_t - y_t * out) / y: as x_t / y + y_t * (-(x / y) / y),
        # the sum of the two partials' terms, half the tangents were a unit off its (and of the
        # tangents of softsign, normalize, cosine_similarity, which divide)
        tx, ty = tangents
        if ty is None or isinstance(y, _CONST):
            return None if tx is None else self.times_d_first(xp, tx, out, x, y)
        with xp.errstate(**_QUIET):
            moved = ty * out
            return divided_by_local(xp, -moved if tx is None else tx - moved, y)

    def d_second(self, xp, out, x, y):
        # (x / y) / y, as PyTorch's: y * y overflows (|y| > 1e154) or underflows (|y| < 1e-162; float32
        # at 1e19 and 1e-23) where the quotient does not -- x / x at 1e-200 had d/dy -inf, not -1e200
        return -(x / y) / y

    def reference(self, np, x, y):
        return np.divide(x, y)


def _in_float32(method: Any) -> Any:
    """An op's ``forward``, ``backward`` or ``jvp`` with its float16 arrays (tangents too) taken in
    float32, and each array it returns rounded to float16 once."""
    def widened(self: Op, xp: Any, *args: Any) -> Any:
        if not any(map(_holds_half, args)):  # (another dtype: the op it extends, as it is)
            return method(self, xp, *args)
        return _to_half(method(self, xp, *map(_to_float32, args)))
    widened.__name__, widened.__qualname__ = method.__name__, method.__qualname__
    return widened


def _holds_half(v: Any) -> bool:
    return any(map(_holds_half, v)) if v.__class__ is tuple else getattr(v, "dtype", None) is HALF


def _to_float32(v: Any) -> Any:
    if v.__class__ is tuple:
        return tuple(map(_to_float32, v))
    return v.astype(host_numpy.float32) if getattr(v, "dtype", None) is HALF else v


def _to_half(v: Any) -> Any:
    if v.__class__ is tuple:
        return tuple(map(_to_half, v))
    if getattr(v, "dtype", None) != host_numpy.float32:
        return v
    return rounded_to_half(v)


class MulInFloat32(Mul):
    """``x * number`` of a float16 ``x`` as PyTorch's half kernel computes it: in float32 (its "opmath"
    type), the number as it is, rounded to float16 once -- the gradient ``g * number`` and the tangent
    likewise.  NumPy would round the number to float16 first (``x * 70000`` is inf, ``x * 0.1`` a last
    bit off for a third of the values).  ``mg.multiply`` records it beside a number; of other dtypes it
    is :class:`Mul`.  PyTorch's node is its ``MulBackward0``."""

    grad_fn_name = "MulBackward0"
    forward = _in_float32(Mul.forward)
    backward = _in_float32(Mul.backward)
    jvp = _in_float32(Mul.jvp)


class DivInFloat32(Div):
    """``x / number`` of a float16 ``x``, as :class:`MulInFloat32` (``x / 65536.0`` is not ``x / inf``);
    the gradient is ``g / number`` in float32, rounded once.  PyTorch's node is its ``DivBackward0``."""

    grad_fn_name = "DivBackward0"
    forward = _in_float32(Div.forward)
    backward = _in_float32(Div.backward)
    jvp = _in_float32(Div.jvp)


class Pow(BinaryElementwise):
    """``x ** y``.  ``d/dx`` is 0 where ``y == 0`` (so ``0 ** 0`` has gradient 0);
    ``d/dy`` is 0 where ``x == 0`` and ``y >= 0``; negative bases give NaN for
    ``d/dy`` (``log`` of a negative number).  Both are infinite at some points
    (``x ** -1`` at 0), where a zero gradient stays zero.

    A real tensor to the Python number -0.5 is ``1 / sqrt(x)``, as PyTorch's (its ``rsqrt``):
    ``-0.0 ** -0.5`` is ``-inf`` and ``-inf ** -0.5`` NaN there (C's ``pow`` gives +inf and 0),
    and every other value is ``1 / sqrt(x)``'s rounding, which ``pow`` misses by an ulp at times.
    """

    save_output = True
    singular = True
    partials_read = (("x", "y"), ("out", "x", "y"))  # d/dx = y x^(y-1), d/dy = out log x (0 at 0^y)

    def forward(self, xp, x, y):
        if type(y) is int and y >= 0 and x.dtype.kind == "f":  # x ** 2: nothing to silence (saves the errstate)
            return x ** y if y != 3 else power_by_number(xp, x, y)
        with xp.errstate(divide="ignore", invalid="ignore"):
            if y.__class__ in (float, int) and x.dtype.kind == "f":  # (x is an array where y is a number)
                return power_by_number(xp, x, y)
            out = x ** y
            return _complex_zero_to_negative_powers(xp, out, x, y) if out.dtype.kind == "c" else out

    def d_first(self, xp, out, x, y):
        if isinstance(y, _CONST):
            if y == 0:
                return 0
            # y * x ** (y - 1) with the power as PyTorch's pow_backward takes it: its own pow kernel's
            # (``x ** 2`` sends back ``2 * (x * x * x)`` for ``x ** 4``, ``x ** 0.5`` ``0.5 * rsqrt(x)``)
            with xp.errstate(divide="ignore", invalid="ignore"):
                real = getattr(x, "dtype", None) is not None and x.dtype.kind == "f"  # (not a number base)
                return y * (power_by_number(xp, x, y - 1) if real else x ** (y - 1))
        return xp.where(y == 0, 0, y * x ** (y - 1))

    def times_d_first(self, xp, v, out, x, y):
        product = super().times_d_first(xp, v, out, x, y)
        if isinstance(y, _CONST):
            return product  # (x ** 0: the number 0, zeros whatever v holds)
        return xp.where(y == 0, 0, product)  # 0 where y == 0 even for an inf or NaN v, as PyTorch's

    def d_second(self, xp, out, x, y):
        if isinstance(x, complex):  # a constant base: log taken on the host (a Python number)
            return out * (cmath.log(x) if x != 0 else 0.0)
        if isinstance(x, _CONST):
            if x < 0 and out.dtype.kind == "c":  # a complex power of a negative base: log(-2) = log 2 + i pi
                return out * cmath.log(x)
            if x == 0 and out.dtype.kind != "c":  # 0 ** y is constant for y >= 0; for y < 0 it is inf
                return xp.where(y >= 0, 0, -out)  # and inf * log 0 = -inf, as PyTorch's (NaN at y NaN)
            return out * (math.log(x) if x > 0 else (0.0 if x == 0 else math.nan))
        if out.dtype.kind == "c":  # a complex power: the principal logarithm (log(-2) = log 2 + i pi);
            # 0 ** y -> 0 as Re(y) > 0, so the derivative there is 0 as for real y >= 0
            base = x if x.dtype.kind == "c" else x + 0j
            ry = _real_part(xp, y)
            return xp.where(xp.logical_and(x == 0, ry >= 0), 0, out * xp.log(base))
        return xp.where(xp.logical_and(x == 0, y >= 0), 0, out * xp.log(x))

    def reference(self, np, x, y):
        if y.__class__ in (int, float) and y in _POWERS_BY_PRODUCTS and x.dtype.kind == "f":  # (see above)
            with np.errstate(divide="ignore", invalid="ignore"):
                return power_by_number(np, x, y)
        out = np.power(x, y)  # with PyTorch's inf+nanj at a complex 0 to a power of negative real part
        return _complex_zero_to_negative_powers(np, out, x, y) if out.dtype.kind == "c" else out


# PyTorch's pow kernel (PowKernel.cpp) of a real tensor to these Python numbers is not C's ``pow``
# but products, quotients and roots, each correctly rounded; ``pow`` misses them by an ulp at times
# (``x ** 3`` for a third of the float32 values).  Its half kernel takes them in float32.
_POWERS_BY_PRODUCTS = {
    2: lambda xp, x: x * x,
    3: lambda xp, x: x * x * x,
    0.5: lambda xp, x: xp.sqrt(x),
    -0.5: lambda xp, x: 1 / xp.sqrt(x),
    -1: lambda xp, x: 1 / x,
    -2: lambda xp, x: 1 / (x * x),
}


def power_by_number(xp: Any, x: Any, y: Any) -> Any:
    """``x ** y`` of a real floating array ``x`` and a Python number ``y``, as PyTorch computes it:
    ``x * x * x`` for 3, ``1 / (x * x)`` for -2, ``1 / sqrt(x)`` for -0.5 (so ``-0.0 ** -0.5`` is
    ``-inf``, where C's ``pow`` gives +inf), ``x ** y`` for other exponents; a float16 ``x`` in
    float32, rounded once.  The caller silences NumPy's warnings where it needs to."""
    by_products = _POWERS_BY_PRODUCTS.get(y)
    if by_products is None:
        return x ** y
    if x.dtype is HALF:
        return by_products(xp, x.astype(host_numpy.float32)).astype(HALF)
    return by_products(xp, x)


def _complex_zero_to_negative_powers(xp: Any, out: Any, x: Any, y: Any) -> Any:
    """``out = x ** y`` with PyTorch's ``inf+nanj`` where a complex power has base 0 and ``Re(y) < 0``
    (``|0 ** y|`` is infinite, its phase undefined): NumPy's complex power answers ``nan+nanj`` there,
    torch 2.13's ``z ** -1``, ``z ** -0.5`` and ``z ** (-1 + 1j)`` at ``z = 0j`` are ``inf+nanj``."""
    real_y = y.real if isinstance(y, (int, float, complex)) else _real_part(xp, y)
    pole = xp.logical_and(x == 0, real_y < 0)
    return xp.where(pole, complex(math.inf, math.nan), out)


def _real_part(xp: Any, y: Any) -> Any:
    """``Re(y)`` of an exponent: an array, or a Python number (a complex constant's gradient is
    computed and dropped, as any constant's: only int, float and bool are skipped by type)."""
    if isinstance(y, complex):
        return y.real
    return xp.real(y) if y.dtype.kind == "c" else y


def _share(xp: Any, v: Any, loses: Any, tie: Any) -> Any:
    """PyTorch's ``where(tie, grad / 2, grad).masked_fill_(loses, 0)``: ``v``, half of it where the
    operands tie, +0.0 where this operand loses whatever ``v`` is (a sum of products with masks gave
    ``inf * 0 = NaN`` and -0.0 there, and NaN for an infinite ``v`` at a tie)."""
    return xp.gradient_where(~loses, xp.where(tie, v * 0.5, v))


class _Extremum(BinaryElementwise):
    """Elementwise maximum or minimum (``fn``): the operand that wins gets the gradient, tied
    operands share it evenly.  ``beats(a, b)`` is where ``a`` wins over ``b``.  Where either
    is NaN (the result is NaN) each operand gets the whole gradient, as PyTorch's backward
    gives it (its comparisons are all false there, so neither is masked out)."""

    abstract = True
    beats: ClassVar[Any] = None

    def times_d_first(self, xp, v, out, x, y):
        return _share(xp, v, self.beats(y, x), x == y)

    def times_d_second(self, xp, v, out, x, y):
        return _share(xp, v, self.beats(x, y), x == y)


class Maximum(_Extremum):
    """Elementwise maximum; tied elements share the gradient evenly."""

    fn = "maximum"
    beats = staticmethod(operator.gt)


class Minimum(_Extremum):
    """Elementwise minimum; tied elements share the gradient evenly."""

    fn = "minimum"
    beats = staticmethod(operator.lt)


# ------------------------------------------------------------------ unary ops
#: PyTorch's words for ``-`` of a bool tensor (its RuntimeError; NumPy's is a TypeError)
BOOL_NEGATION_REFUSED = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                         "invert a mask, use the `~` or `logical_not()` operator instead.")


class Neg(UnaryElementwise):
    fn = "negative"
    save_inputs = False

    def forward(self, xp, x):
        try:  # (free until raised)
            return -x
        except TypeError:  # NumPy's refusal of a bool array: PyTorch's RuntimeError, with its message
            if x.dtype.kind == "b":
                raise RuntimeError(BOOL_NEGATION_REFUSED) from None
            raise

    def derivative(self, xp, out, x):
        return -1


class Exp(UnaryElementwise):
    fn = "exp"
    save_inputs = False
    save_output = True

    def derivative(self, xp, out, x):
        return out


class Log(UnaryElementwise):
    fn = "log"
    ignore = ("divide", "invalid")
    singular = True

    def derivative(self, xp, out, x):
        return 1 / x

    def times_derivative(self, xp, v, out, x):
        # g / x, never g * (1 / x): 1 / x overflows for a subnormal x, and at a complex 0 the
        # reciprocal is inf+nanj, so the product was nan+nanj where PyTorch's g / conj(x) is infinite
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, x)


class Log1p(UnaryElementwise):
    """``log(1 + x)``; of a complex ``x`` by PyTorch's formula (:func:`_complex_log1p_parts`), which
    keeps the digits NumPy's complex ``log1p`` loses near 0."""

    fn = "log1p"
    ignore = ("divide", "invalid")
    singular = True

    def forward(self, xp, x):
        with xp.errstate(**self._errstate):
            if x.dtype.kind == "c":
                return xp.complex_from_parts(*_complex_log1p_parts(xp, x))
            return xp.log1p(x)

    def reference(self, np, x):
        with np.errstate(**self._errstate):
            if np.asarray(x).dtype.kind == "c":
                return complex_from_parts(np, *_complex_log1p_parts(np, x))
            return np.log1p(x)

    def derivative(self, xp, out, x):
        return 1 / (1 + x)

    def times_derivative(self, xp, v, out, x):
        # g / (1 + x), as PyTorch's: at a complex -1 the product with the reciprocal was nan+nanj
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, 1 + x)


def _complex_log1p_parts(xp: Any, z: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of ``log(1 + z)`` of a complex ``z``, ``log|1 + z|`` and
    ``atan2(y, 1 + x)``, as PyTorch computes them (c10's complex ``log1p``): for ``|z| < 0.5`` the
    real part is ``0.5 log1p(x (2 + x) + y^2)`` (``x`` itself where that underflows to 0), never
    ``log|1 + z|`` of the rounded ``1 + z`` -- NumPy's, whose real part of ``log1p(1e-20 + 1e-20j)``
    is 0 (and ``1e-8 - 3e-8j``'s 0 in complex64)."""
    x, y = xp.real(z), xp.imag(z)
    r = x * (2 + x) + y * y
    near = xp.where(r == 0, x, 0.5 * xp.log1p(r))
    far = xp.log(xp.hypot(x + 1, y))
    return xp.where(xp.abs(z) < 0.5, near, far), xp.arctan2(y, x + 1)


class Sqrt(UnaryElementwise):
    """``sqrt``; its derivative at 0 is ``+inf`` (0 for a zero upstream gradient)."""

    fn = "sqrt"
    ignore = ("invalid",)
    save_inputs = False
    save_output = True
    singular = True

    def derivative(self, xp, out, x):
        return 0.5 / out

    def times_derivative(self, xp, v, out, x):
        # g / (2 sqrt(x)), as Log's g / x: at a complex 0 the product with 0.5 / out was nan+nanj
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, 2 * out)


class Rsqrt(UnaryElementwise):
    """``1 / sqrt(x)`` (PyTorch's ``rsqrt``), float16 computed in float32 and rounded once.  The
    gradient is PyTorch's ``(-0.5 * g) * r**3`` in its order (``r * r * r``, the cube of float16's
    ``r`` in float32, rounded once): differentiated as ``reciprocal(sqrt(x))`` it was a unit in
    the last place off for a third of the values.  Singular at 0 (a zero gradient stays zero)."""

    save_inputs = False
    save_output = True
    singular = True

    @half_in_float32
    def forward(self, xp, x):
        # silent, as PyTorch's: rsqrt(-1) is NaN, rsqrt(0) inf, 1 / sqrt(5e-324) overflows
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return 1 / xp.sqrt(x)

    def times_derivative(self, xp, v, out, x):
        with xp.errstate(**_QUIET):
            return times_local(xp, -0.5 * v, _cube(xp, out))

    def reference(self, np, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1 / np.sqrt(x)


@half_in_float32  # PyTorch's pow(r, 3) of a float16 r: r * r * r in float32, rounded once
def _cube(xp: Any, r: Any) -> Any:
    return r * r * r


def abs_slope(xp: Any, x: Any) -> Any:
    """``d|x|/dx`` of a real array as PyTorch's backward takes it (``sgn``): -1, 0 or 1, 0 at 0
    (the subgradient) and 0 at NaN, where NumPy's ``sign`` is NaN.  ``abs``, the 1-norm and
    ``l1_loss`` all send the gradient through it."""
    return xp.where(x != x, 0, xp.sign(x))


class Abs(UnaryElementwise):
    """``abs``; subgradient 0 at 0, and 0 at NaN (:func:`abs_slope`)."""

    fn = "abs"

    def derivative(self, xp, out, x):
        return abs_slope(xp, x)


class Sin(UnaryElementwise):
    fn = "sin"

    def derivative(self, xp, out, x):
        return xp.cos(x)


class Cos(UnaryElementwise):
    fn = "cos"

    def derivative(self, xp, out, x):
        return -xp.sin(x)


class Tanh(UnaryElementwise):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.tanh(x)

    def derivative(self, xp, out, x):
        if out.dtype is HALF:  # 1 - out^2 cancels: in float16, tanh'(3.07) was 0.00879 (PyTorch's 0.00877);
            # in float32, rounded once (a test inline: half_in_float32's wrapper cost 2 us a call, +4.8% on
            # the per-op chain's instructions)
            wide = out.astype(xp.float32)
            return (1 - wide * wide).astype(out.dtype)
        return 1 - out * out

    def reference(self, np, x):
        return np.tanh(x)


@register_kernel
def sigmoid(xp, x, out=None):
    """``1 / (1 + exp(-x))``, PyTorch's formula, in four passes over one array (``xp.sigmoid``).
    Below about -709 (float64) or -88.7 (float32) ``exp(-x)`` overflows to infinity and the
    result is its limit, ``1 / inf = 0``: the overflow is silenced, not avoided. (The form
    ``maximum(exp(-|x|), x >= 0) / (1 + exp(-|x|))``, which never overflows, took 32.6 us against
    23.6 on (2, 97, 51) float64 -- the cast of its boolean alone 6 -- and is no more accurate:
    both within 2.2 units in the last place of the exact value, against 80-bit references.)
    A complex ``x`` takes the same formula, as PyTorch's does (NaN where ``exp(-x)``
    overflows, as there).

    ``out``: an array of ``x``'s shape and dtype to write the result into, as a ufunc's
    (``x`` itself: in place; a fused op's forward fills its output's blocks so)."""
    if x.dtype.kind in "biu":  # the float NumPy's exp gives: float16 for (u)int8 and bool, float32 for 16 bits
        x = x.astype(xp.result_type(x.dtype, xp.float16))
    if x.dtype.kind == "c":
        with xp.errstate(**_QUIET):
            result = xp.asarray(1 / (1 + xp.exp(-x)))  # (an array for a 0-d x, not NumPy's scalar)
    elif x.dtype.char == "e":  # float16 in float32, rounded once, as PyTorch's half kernel: exp(-x),
        # 1 + e and the division rounded to float16 each put a third of the values a unit off
        # (a test inline, not half_in_float32's: sigmoid is on every gate's hot path)
        result = sigmoid(xp, x.astype(xp.float32)).astype(x.dtype)
    else:
        # Every pass writes into the one array the result goes to, always with out=, since NumPy
        # hands a 0-d result back as a scalar, which takes no out= in the next pass.
        e = xp.negative(x, out=xp.empty(x.shape, dtype=x.dtype) if out is None else out)
        with xp.errstate(over="ignore"):
            xp.exp(e, out=e)
        return xp.divide(1, xp.add(e, 1, out=e), out=e)
    if out is None:
        return result
    xp.copyto(out, result)
    return out


class Sigmoid(UnaryElementwise):
    """``1 / (1 + exp(-x))``, computed without overflow for large ``|x|``."""

    fn = "sigmoid"
    save_inputs = False
    save_output = True

    def derivative(self, xp, out, x):
        if out.dtype is HALF:  # out (1 - out) in float16 lost up to 20% near 1 (PyTorch's sigmoid_backward is
            # float's): in float32, rounded once (a test inline, as Tanh's)
            wide = out.astype(xp.float32)
            return (wide * (1 - wide)).astype(out.dtype)
        return out * (1 - out)

    def reference(self, np, x):
        return np.exp(-np.logaddexp(0, -x))


class Clip(Op):
    """``minimum(maximum(x, lo), hi)``; ``lo``/``hi`` may be None, scalars or tensors.

    ``x`` gets the gradient on the closed interval ``[lo, hi]``; below it the
    gradient goes to ``lo``, above it to ``hi`` (and all of it to ``hi`` when
    ``lo > hi``, since the result is then ``hi`` everywhere).
    """

    def forward(self, xp, x, lo, hi):
        return _clip(xp, x, lo, hi)

    def backward(self, xp, g, out, x, lo, hi):
        # selected by where, not a masked product: an infinite gradient from beyond the bound
        # (``1 / (x.clamp(min=1) - 1)`` at ``x < 1``) gives the unselected operand 0, not
        # ``0 * inf = NaN`` (PyTorch's clamp_backward is a where)
        return tuple(None if m is None else xp.where(m, g, 0) for m in _clip_selects(xp, x, lo, hi))

    def jvp(self, xp, tangents, out, x, lo, hi):
        # the tangent of whichever operand is selected
        return add_tangents(*(None if t is None or m is None else xp.where(m, t, 0)
                              for t, m in zip(tangents, _clip_selects(xp, x, lo, hi))))

    def reference(self, np, x, lo, hi):
        return _clip(np, x, lo, hi)


def _clip(xp: Any, x: Any, lo: Any, hi: Any) -> Any:
    """``minimum(maximum(x, lo), hi)``, but ``x`` itself where it equals a bound: ``maximum`` answers
    the bound there, PyTorch ``x``, which differs in the sign of a zero (``clamp(-0.0, min=0)`` is
    ``-0.0``); a NaN in ``x`` or a bound still makes NaN (``NaN == b`` is false)."""
    if lo is None and hi is None:
        return x + 0
    r = x if lo is None else xp.where(x == lo, x, xp.maximum(x, lo))
    return r if hi is None else xp.where(r == hi, r, xp.minimum(r, hi))


def _clip_selects(xp: Any, x: Any, lo: Any, hi: Any) -> tuple:
    """Where clip's result is ``x``, ``lo`` and ``hi`` (boolean masks; None for an absent bound):
    each operand's derivative, the subgradient convention stated once."""
    above_lo = True if lo is None else x >= lo
    below_hi = True if hi is None else x <= hi
    ordered = True if (lo is None or hi is None) else lo <= hi
    at_x = xp.logical_and(xp.logical_and(above_lo, below_hi), ordered)
    at_lo = None if lo is None else xp.logical_and(x < lo, ordered)
    at_hi = None if hi is None else xp.logical_or(x > hi, xp.logical_not(ordered))
    return at_x, at_lo, at_hi


class Where(Op):
    """``cond ? x : y``.  The unselected branch gets an exactly-zero gradient."""

    save_inputs = (0,)

    def forward(self, xp, cond, x, y):
        return xp.where(cond, x, y)

    def backward(self, xp, g, out, cond, x, y):
        return None, xp.where(cond, g, 0), xp.where(cond, 0, g)

    def jvp(self, xp, tangents, out, cond, x, y):
        _, tx, ty = tangents
        return xp.where(cond, 0 if tx is None else tx, 0 if ty is None else ty)

    def reference(self, np, cond, x, y):
        return np.where(cond, x, y)


# ----------------------------------------------------------- more unary math
class Tan(UnaryElementwise):
    """``tan``; ``tan' = 1 + tan^2`` (poles at ``pi/2 + k pi``)."""

    fn = "tan"
    quiet = True  # poles: 1 + tan^2 overflows
    save_inputs = False
    save_output = True

    def derivative(self, xp, out, x):
        return 1 + out * out


class _Hyperbolic(UnaryElementwise):
    """``sinh`` or ``cosh`` (``fn``), whose derivative is the other one (``other``): both
    overflow beyond ``|x| ~ 710``, the function and its derivative alike."""

    abstract = True
    ignore = ("over",)
    quiet = True
    other = ""

    def derivative(self, xp, out, x):
        return getattr(xp, self.other)(x)


class Sinh(_Hyperbolic):
    fn = "sinh"
    other = "cosh"


class Cosh(_Hyperbolic):
    fn = "cosh"
    other = "sinh"


def _one_minus_square(x):
    """``1 - x^2``, for a complex ``x`` written ``-(x^2 - 1)``: on a branch cut the sign of a zero
    imaginary part names the side a value comes from (C99's rule, NumPy's), and only subtraction
    keeps it.  ``1 - w`` makes the ``+0`` of ``w`` ``+0`` where ``-w``'s is ``-0``, and ``w + 1`` turns a
    ``-0`` into ``+0`` (a real number joins as ``1 + 0i``): the root came from the other side and the
    derivative was its negative.  So ``x^2 + 1`` is ``x^2 - (-1)`` below.  A real ``x`` keeps
    ``1 - x^2``, whose ``+0`` at ``x = +-1`` makes the slope there ``+inf``, as PyTorch's."""
    if x.dtype.kind == "c":
        return -(x * x - 1)
    return 1 - x * x


class Arcsin(UnaryElementwise):
    """``arcsin`` on ``[-1, 1]``; ``1 / sqrt(1 - x^2)`` is infinite at ``x = +-1``.

    For complex ``z`` the root is ``sqrt(-(z^2 - 1))``: it keeps the sign of a zero imaginary part,
    so on the cut (real ``|z| > 1``) the derivative is that of the side the value comes from.
    """

    fn = "arcsin"
    ignore = ("invalid",)
    singular = True

    def derivative(self, xp, out, x):
        return 1 / xp.sqrt(_one_minus_square(x))


class Arccos(UnaryElementwise):
    """``arccos`` on ``[-1, 1]``; ``-1 / sqrt(1 - x^2)`` is infinite at ``x = +-1`` (the root as
    :class:`Arcsin`'s, for complex ``z``)."""

    fn = "arccos"
    ignore = ("invalid",)
    singular = True

    def derivative(self, xp, out, x):
        return -1 / xp.sqrt(_one_minus_square(x))


class Arctan(UnaryElementwise):
    fn = "arctan"
    ignore = ("divide", "invalid")  # a complex x at +-i: PyTorch's infinite value, without a warning
    quiet = True  # x * x overflows for huge x

    def derivative(self, xp, out, x):
        return 1 / (1 + x * x)

    def times_derivative(self, xp, v, out, x):
        # g / (1 + x^2), as PyTorch's: at x = +-i the reciprocal is inf+nanj and the product was nan+nanj
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, 1 + x * x)


class Arcsinh(UnaryElementwise):
    """``arcsinh``; ``1 / sqrt(x^2 + 1)``, whose root on the cut of a complex ``z`` (the imaginary
    axis beyond ``+-i``) comes from the side of the value."""

    fn = "arcsinh"
    quiet = True  # x * x overflows for huge x

    def derivative(self, xp, out, x):
        return 1 / xp.sqrt(x * x - (-1))  # not + 1: _one_minus_square says why


class Arccosh(UnaryElementwise):
    """``arccosh`` on ``[1, inf)``; ``1 / sqrt(x^2 - 1)`` is infinite at ``x = 1``.

    For complex ``z`` the principal branch is ``log(z + sqrt(z - 1) sqrt(z + 1))``,
    whose derivative is ``1 / (sqrt(z - 1) sqrt(z + 1))``: where ``Re z < 0`` that
    product of roots is ``-sqrt(z^2 - 1)``, so the real formula would give the
    other branch's derivative there.  Real ``x <= -1`` (a NaN output) keeps the
    real formula's number, as PyTorch's gradient does.
    """

    fn = "arccosh"
    ignore = ("invalid",)
    singular = True

    def derivative(self, xp, out, x):
        if x.dtype.kind == "c":
            return 1 / (xp.sqrt(x - 1) * xp.sqrt(x - (-1)))  # not + 1: _one_minus_square
        return 1 / xp.sqrt(x * x - 1)


class Arctanh(UnaryElementwise):
    """``arctanh`` on ``(-1, 1)``; ``1 / (1 - x^2)`` is infinite at ``x = +-1``."""

    fn = "arctanh"
    ignore = ("divide", "invalid")
    singular = True

    def derivative(self, xp, out, x):
        return 1 / (1 - x * x)

    def times_derivative(self, xp, v, out, x):
        # g / (1 - x^2), as PyTorch's: at a complex +-1 the product with the reciprocal was nan+nanj
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, 1 - x * x)


class _LogBase(UnaryElementwise):
    """``log`` to a base (``fn``); like ``log``, singular at 0: ``1 / (x ln(base))``."""

    abstract = True
    ignore = ("divide", "invalid")
    singular = True
    ln_base = 1.0

    def derivative(self, xp, out, x):
        return 1 / (x * self.ln_base)

    def times_derivative(self, xp, v, out, x):
        with xp.errstate(**_QUIET):
            return divided_by_local(xp, v, x * self.ln_base)  # as Log's


class Log2(_LogBase):
    fn = "log2"
    ln_base = _LN2


class Log10(_LogBase):
    fn = "log10"
    ln_base = math.log(10.0)


class _ExpLike(UnaryElementwise):
    """An exponential (``fn``) whose derivative is read off its output; it overflows quietly to inf."""

    abstract = True
    ignore = ("over",)
    save_inputs = False
    save_output = True


class Exp2(_ExpLike):
    """``2**x``; derivative ``2**x ln 2``."""

    fn = "exp2"

    def derivative(self, xp, out, x):
        return out * _LN2


class Expm1(_ExpLike):
    """``exp(x) - 1``, accurate for small ``x``; derivative ``exp(x)``, computed from ``x``: ``out + 1``
    cancels where ``out`` is near -1 (ELU's gradient at x = -10 was 0.04% off in float32, and 0 from
    x = -17, where PyTorch's ``elu`` answers ``exp(x)``)."""

    fn = "expm1"
    save_inputs = True
    save_output = False
    quiet = True

    def derivative(self, xp, out, x):
        return xp.exp(x)


class Sinc(UnaryElementwise):
    """NumPy's normalized ``sinc(x) = sin(pi x) / (pi x)`` (1 at 0).

    The derivative ``(cos(pi x) - sinc(x)) / x`` cancels catastrophically near
    0, so ``|x| < 0.1`` uses its Taylor series (exact at 0, where it is 0,
    and differentiable again for second derivatives).
    """

    @half_in_float32  # pi x rounded to float16 is not a multiple of pi: sinc(1) was 3e-4
    def forward(self, xp, x):
        return _sinc(xp, x)

    @half_in_float32
    def derivative(self, xp, out, x):
        small = xp.abs(x) < 0.1
        xs = xp.where(small, x, 1)  # both branches are evaluated: keep each finite
        # sinc'(x) = sum_k>=1 (-1)^k 2k pi^2k x^(2k-1) / (2k+1)!, 7 terms: < 1e-17 at 0.1
        z = (math.pi * xs) ** 2
        series = xs * horner(_SINC_D, z)
        xb = xp.where(small, 1, x)
        formula = (xp.cos(math.pi * xb) - _sinc(xp, xb)) / xb
        return xp.where(small, series, formula)

    def reference(self, np, x):
        return np.sinc(x)


def _sinc(xp: Any, x: Any) -> Any:
    px = math.pi * x
    zero = x == 0
    return xp.where(zero, 1, xp.sin(px) / xp.where(zero, 1, px))


# sinc'(x) / x as a polynomial in z = (pi x)^2, highest power first: the coefficient of
# z^k is (-1)^(k+1) 2(k+1) pi^2 / (2k+3)!
_SINC_D = tuple((-1) ** (k + 1) * 2 * (k + 1) * math.pi ** 2 / math.factorial(2 * k + 3) for k in reversed(range(7)))


class Square(UnaryElementwise):
    fn = "square"
    def forward(self, xp, x):
        return x * x

    def derivative(self, xp, out, x):
        return 2 * x


class Reciprocal(UnaryElementwise):
    """``1 / x``; singular at 0."""

    save_inputs = False
    save_output = True
    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore", over="ignore", invalid="ignore"):  # 1/0, 1/subnormal: inf
            return 1 / x  # ("invalid": NumPy's complex 1/0 is inf+nanj)

    def derivative(self, xp, out, x):
        return -(out * out)

    def reference(self, np, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.reciprocal(x)


class Cbrt(UnaryElementwise):
    """The real cube root; ``1 / (3 cbrt(x)^2)`` is infinite at 0."""

    fn = "cbrt"
    save_inputs = False
    save_output = True
    singular = True

    def derivative(self, xp, out, x):
        return 1 / (3 * (out * out))


class _Step(UnaryElementwise):
    """A piecewise-constant function (floor, ceil, round, trunc): gradient 0.

    The true derivative is 0 except at the jumps, where it does not exist;
    0 is returned everywhere (as NumPy-based peers and PyTorch do).
    """

    abstract = True
    save_inputs = False

    def derivative(self, xp, out, x):
        return 0

    def times_derivative(self, xp, v, out, x):
        return xp.zeros_like(v)  # not v * 0: NaN where v is inf or NaN, -0.0 where v < 0 (PyTorch: zeros)


class Floor(_Step):
    fn = "floor"


class Ceil(_Step):
    fn = "ceil"


class Trunc(_Step):
    fn = "trunc"


class Round(_Step):
    """Round half to even to ``decimals`` places (NumPy's ``round``); gradient 0."""

    fn = "round"
    keywords = ("decimals",)
    decimals: int


class Sign(_Step):
    """-1, 0 or 1 (NumPy's ``sign``: NaN at NaN); gradient 0 and recorded, as PyTorch's: ``sign(x)``
    requires grad where ``x`` does, so ``sign(x).sum().backward()`` gives ``x.grad`` 0, not an error."""

    fn = "sign"


class RealAngle(_Step):
    """``angle`` of a real tensor: pi where it is negative, NaN where it is NaN, 0 elsewhere (-0.0
    included, where NumPy's ``angle`` gives pi); gradient 0 and recorded, as PyTorch's, so
    ``angle(x).sum().backward()`` gives ``x.grad`` 0, not an error."""

    fn = "real_angle"

    def forward(self, xp, x):
        return _real_angle(xp, x)

    def reference(self, np, x):
        return _real_angle(np, x)


def _real_angle(xp: Any, x: Any) -> Any:
    pi = xp.asarray(3.141592653589793, dtype=x.dtype)
    return xp.where(x < 0, pi, xp.where(x != x, x, xp.zeros_like(x)))


# ---------------------------------------------------------- more binary math
def _at_origin_zero(xp: Any, num: Any, den: Any) -> Any:
    """``num / den``, and 0 where ``den`` is 0 (the origin, where the derivative does not exist)."""
    zero = den == 0
    return xp.where(zero, 0, num / xp.where(zero, 1, den))


class Arctan2(BinaryElementwise):
    """``arctan2(y, x)``, the angle of the point ``(x, y)`` (NumPy's order: ``y`` first).

    ``d/dy = x / (x^2 + y^2)``, ``d/dx = -y / (x^2 + y^2)``; at the origin,
    where neither exists, both are taken as 0.
    """

    fn = "arctan2"

    def d_first(self, xp, out, y, x):
        return _at_origin_zero(xp, x, x * x + y * y)

    def d_second(self, xp, out, y, x):
        return _at_origin_zero(xp, -y, x * x + y * y)


class Hypot(BinaryElementwise):
    """``sqrt(x^2 + y^2)`` without overflow; gradient ``(x, y) / hypot``, 0 at the origin (a kink).

    Each gradient is PyTorch's ``(g * x) / hypot`` in its order (as ``g * (x / hypot)`` a unit in
    the last place off for a third of the values), and the tangent the sum of the two; only where
    ``g * x`` over- or underflows (``hypot(1e-45, 0)`` under ``g = -0.5``: PyTorch's -0.0) is the
    ratio formed first (-0.5), see :func:`_times_over_hypot`."""

    fn = "hypot"
    save_output = True
    partials_read = (("out", "x"), ("out", "y"))  # d/dx = x / hypot, d/dy = y / hypot

    def times_d_first(self, xp, v, out, x, y):
        return _times_over_hypot(xp, v, x, out)

    def times_d_second(self, xp, v, out, x, y):
        return _times_over_hypot(xp, v, y, out)


def _times_over_hypot(xp: Any, v: Any, part: Any, out: Any) -> Any:
    """``(v * part) / out``, PyTorch's order, and 0 at the origin; ``v * (part / out)`` where the
    product leaves the normal range (inf, or below the smallest normal number, where it loses
    bits the ratio, at most 1 in size, keeps)."""
    with xp.errstate(**_QUIET, under="ignore"):
        product = v * part
        size = xp.abs(product)
        lost = xp.logical_or(size < float(xp.finfo(size.dtype).tiny), size == math.inf)
        rescued = xp.where(lost, v * _at_origin_zero(xp, part, out), product / xp.where(out == 0, 1, out))
        return xp.where(out == 0, 0, rescued)



def _weight(xp: Any, a: Any, b: Any, scale: float) -> Any:
    """``a``'s softmax weight in ``logaddexp(a, b)``, ``sigmoid((a - b) * scale)``: exact at any
    magnitude (``exp(a - out)`` loses ``out``'s rounding: at a = b = 1e20 it gave 1, not 1/2), 1/2
    where both are the same infinity, 0 where both are ``-inf`` (where the result is ``-inf``: told
    from the operands, so the output is not kept and may change before backward, as PyTorch's)."""
    with xp.errstate(invalid="ignore"):
        d = a - b
        # the same infinity twice: an even split (inf - inf is NaN); a NaN operand keeps its NaN,
        # as PyTorch's (d != d alone sent softplus(nan) and logsigmoid(nan) the gradient 1/2); a
        # finite tie keeps d itself, whose derivative the second derivatives need
        d = xp.where(xp.logical_and(d != d, a == b), 0, d) * scale
    return xp.where(xp.logical_and(a == -xp.inf, b == -xp.inf), 0, xp.sigmoid(d))


class _LogAddExp(BinaryElementwise):
    """``log(b**x + b**y) / log(b)`` (``fn``, base ``b``) without overflow; the gradients are the
    softmax weights ``b**x / (b**x + b**y)`` and its twin, 0 where both operands are ``-inf``
    (the result is ``-inf`` there)."""

    abstract = True
    ignore = ("invalid",)  # a NaN operand: NaN, silently, as PyTorch's (softplus(nan), logsigmoid(nan))
    ln_base = 1.0

    def d_first(self, xp, out, x, y):
        return _weight(xp, x, y, self.ln_base)

    def d_second(self, xp, out, x, y):
        return _weight(xp, y, x, self.ln_base)


class LogAddExp(_LogAddExp):
    """``log(exp(x) + exp(y))`` without overflow; gradients are the softmax weights.

    Where both operands are ``-inf`` the result is ``-inf`` and the gradients 0.
    """

    fn = "logaddexp"


class LogAddExp2(_LogAddExp):
    """``log2(2**x + 2**y)`` without overflow; gradients ``2**x / (2**x + 2**y)`` and its twin."""

    fn = "logaddexp2"
    ln_base = _LN2


class _Remainder(BinaryElementwise):
    """``x - q(x / y) * y`` for a step function ``q`` (floor, trunc): ``d/dx = 1``,
    ``d/dy = -q``.  The jumps where ``x / y`` is an integer have no derivative (the
    one-sided value is returned); ``y == 0`` gives NaN, as NumPy, and the gradient in ``y`` there
    is PyTorch's ``-g * q(x / 0)``, infinite (NaN at ``x = 0``)."""

    abstract = True
    ignore = ("divide", "invalid")
    save_output = False  # PyTorch's quotient is taken from x and y afresh
    partials_read = ((), ("x", "y"))  # d/dx = 1, d/dy = -q(x / y)

    def d_first(self, xp, out, x, y):
        return 1

    def d_second(self, xp, out, x, y):
        return -self.quotient(xp, x, y)

    def quotient(self, xp: Any, x: Any, y: Any) -> Any:
        """``q(x / y)`` as PyTorch's backward takes it (``div`` with a rounding mode)."""
        raise NotImplementedError


class Mod(_Remainder):
    """``x mod y`` with the sign of ``y`` (Python's ``%``, NumPy's ``mod``/``remainder``):
    ``x - floor(x / y) * y``.  A zero result takes the sign of ``x``, as PyTorch's (its
    remainder starts from ``fmod``): ``-1.0 % 1.0`` is ``-0.0``, where NumPy's is ``+0.0``."""

    fn = "mod"

    def forward(self, xp, x, y):
        out = super().forward(xp, x, y)
        return xp.where(out == 0, _zero_signed_as(xp, x, out), out) if out.dtype.kind == "f" else out

    def quotient(self, xp, x, y):
        # PyTorch's div(x, y, rounding_mode="floor"), read from fmod as floor_divide is; round((x - out) / y)
        # was a unit off it where the quotient is large (8% of float16 gradients)
        return _FLOOR_QUOTIENT.forward(xp, x, y)

    def reference(self, np, x, y):
        out = np.mod(x, y)
        return np.where(out == 0, np.copysign(out, x), out) if out.dtype.kind == "f" else out


def _zero_signed_as(xp: Any, x: Any, out: Any) -> Any:
    """A zero with the sign of ``x`` (-0.0 for a negative or -0.0 ``x``), in ``out``'s dtype -- for an
    integer ``x`` too: ``-3 % t`` of a Python int beside a float tensor is ``-0.0`` where ``t`` is -3, as
    PyTorch's (``-3 * 0`` was the int 0, a +0.0).  Read from the sign bit, not as ``x * 0.0``: no NaN
    from an infinite ``x`` to silence, so no ``errstate`` (about a microsecond) on every float remainder."""
    zero = xp.zeros((), out.dtype)
    return xp.where(xp.signbit(x), -zero, zero)


class Fmod(_Remainder):
    """``x mod y`` with the sign of ``x`` (C's ``fmod``): ``x - trunc(x / y) * y``."""

    fn = "fmod"

    def quotient(self, xp, x, y):
        # PyTorch's div(x, y, rounding_mode="trunc"): the rounded quotient, truncated (not the exact
        # integer round((x - out) / y), 12% of float16 gradients a unit off)
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return xp.trunc(x / y)


class FloorDivide(BinaryElementwise):
    """``floor(x / y)`` as NumPy and PyTorch compute it (``x // y``): from ``fmod``, so
    ``1.0 // 0.1`` is 9 -- the ``q`` of ``x = q * y + mod(x, y)`` -- not ``floor(10.000000000000002)``;
    ``x / y`` (a NaN or an infinity) where ``y == 0`` for floats, 0 for integers.  A step
    function: both partial derivatives are 0."""

    save_inputs = False

    def forward(self, xp, x, y):
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            dt = xp.result_type(x, y)
            # a Python number divides as the array's dtype rounds it (float32 // 1e-50 divides by 0)
            x, y = (dt.type(v) if isinstance(v, _CONST) else v for v in (x, y))
            if dt.kind in "iu":  # integers divide exactly (x - mod(x, y) would overflow near the limits)
                return xp.where(y == 0, 0, x // xp.where(y == 0, 1, y))
            m = xp.fmod(x, y)
            div = (x - m) / y
            div = xp.where(xp.logical_and(m != 0, (y < 0) != (m < 0)), div - 1, div)
            q = xp.floor(div)
            q = xp.where(div - q > 0.5, q + 1, q)
            q = xp.where(div == 0, (x / y) * 0, q)  # a zero quotient takes the sign of x / y
            return xp.where(y == 0, x / y, q)

    def times_d_first(self, xp, v, out, x, y):
        return xp.zeros_like(v)  # a step function: zeros, not v * 0 (as _Step)

    def times_d_second(self, xp, v, out, x, y):
        return xp.zeros_like(v)

    def reference(self, np, x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.floor_divide(x, y)


_FLOOR_QUOTIENT = FloorDivide()


class Ldexp(Op):
    """``x * 2 ** n`` for an integer exponent ``n`` (an integer array, or a Python int), rounded once, as
    C's ``ldexp`` and PyTorch's kernel for an integer exponent: ``ldexp(0.0, 2000)`` is 0 and
    ``ldexp(1e-310, 2000)`` is 1.1e292, where ``x * exp2(n)`` is ``0 * inf`` (NaN) and ``inf``.  The
    gradient in ``x`` is ``ldexp(g, n)`` (``g * 2 ** n`` without the overflowing power); ``n`` has none."""

    save_inputs = (1,)

    def forward(self, xp, x, n):
        with xp.errstate(over="ignore", under="ignore"):  # past the range: inf or 0, as C's (no warning)
            return xp.ldexp(x, n)

    def backward(self, xp, g, out, x, n):
        with xp.errstate(over="ignore", under="ignore"):
            return xp.ldexp(g, n), None

    def jvp(self, xp, tangents, out, x, n):
        t = tangents[0]
        if t is None:
            return None
        with xp.errstate(over="ignore", under="ignore"):
            return xp.ldexp(t, n)

    def reference(self, np, x, n):
        with np.errstate(over="ignore", under="ignore"):
            return np.ldexp(x, n)
