"""Finite differences and integrals along an axis: ``diff``, ``gradient``, ``trapezoid``,
``cumulative_trapezoid``.

Each is a weighted sum of shifted slices of its input -- slices, products with constant
coefficients, ``concatenate``, ``sum``/``cumsum`` -- so its derivative in every mode and
order is that linear map's (and, for ``trapezoid``/``cumulative_trapezoid`` with sample
points ``x``, the product rule's).  NumPy's keywords and PyTorch's (``dim``, ``spacing``)
are both accepted.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor
from . import math as mf
from .arguments import as_tensor, in_default_float, in_float32_if_half, number, one_axis, operand
from .errors import ArgumentCountMismatch, RefusedArgument, TooFewDims, WrongTensorKind
from .promotion import result_type
from .scatter import constant, host

_UNSET: Any = object()


def _slice(x: Tensor, axis: int, start: Any, stop: Any) -> Tensor:
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _axis(name: str, x: Tensor, axis: Any, dim: Any, default: Any = -1) -> int:
    if dim is not _UNSET:
        if axis is not _UNSET:
            raise TypeError(f"{name}: pass either axis= or dim=, not both")
        axis = dim
    if x.ndim == 0:
        raise TooFewDims(f"{name}: needs at least one dim, got a 0-d tensor")
    return one_axis(default if axis is _UNSET else axis, x.ndim)


def _edge(value: Any, x: Tensor, axis: int) -> Tensor:
    """``prepend``/``append``: a number (or a tensor of fewer dims, NumPy's reading) becomes a
    slice of width 1 along ``axis``, in the dtype it and ``x`` promote to -- a number weakly, as
    in ``x + value`` -- so that ``concatenate`` keeps its value: ``prepend=0.5`` beside integers
    is 0.5, not 0."""
    v = operand(value, x)
    if isinstance(v, Tensor) and v.ndim == x.ndim:
        return v
    shape = tuple(1 if i == axis else n for i, n in enumerate(x.shape))
    dtype = result_type(x, v)
    v = as_tensor(v, x) if not isinstance(v, Tensor) else v
    return mf.broadcast_to(mf.astype(v, dtype) if v.dtype != dtype else v, shape)


def diff(a: Any, n: int = 1, axis: Any = _UNSET, prepend: Any = None, append: Any = None, *,
         dim: Any = _UNSET) -> Tensor:
    """The ``n``-th forward difference along ``axis`` (PyTorch: ``dim``; the last by default),
    ``out[i] = a[i + 1] - a[i]`` applied ``n`` times, after joining ``prepend``/``append``
    (NumPy's and PyTorch's ``diff``).  Booleans differ by ``!=``."""
    x = as_tensor(a)
    ax = _axis("diff", x, axis, dim)
    if n < 0:
        raise RefusedArgument(f"diff: the order n must be non-negative, got {n}")  # (PyTorch's RuntimeError)
    if n == 0:  # the input itself, prepend/append unread (NumPy's and PyTorch's order of checks)
        return mf.clone(x) if x is a else x
    parts = ([_edge(prepend, x, ax)] if prepend is not None else []) + [x] + (
        [_edge(append, x, ax)] if append is not None else [])
    x = mf.concatenate(parts, axis=ax) if len(parts) > 1 else x
    for _ in range(n):
        hi, lo = _slice(x, ax, 1, None), _slice(x, ax, None, -1)
        x = mf.not_equal(hi, lo) if x.dtype.kind == "b" else hi - lo
    return x


def _enough_samples(name: str, n: int, edge_order: int) -> None:
    if n < edge_order + 1:
        raise RefusedArgument(f"torch.{name} expected each dimension size to be at least edge_order+1 "
                              f"({edge_order + 1}), got {n}")


def _stencil(name: str, n: int, h: Any, edge_order: int) -> list[tuple[int, list[Any]]]:
    """Per output block (first edge, interior, last edge): the first sample it reads and its
    coefficient rows, row ``k`` weighting the samples from ``start + k`` on (NumPy's and
    PyTorch's formulas for sample coordinates ``h``)."""
    _enough_samples(name, n, edge_order)
    dx = host_numpy.diff(host_numpy.asarray(h, dtype=host_numpy.float64))
    if dx.size != n - 1:
        raise ValueError(f"{name}: {dx.size + 1} coordinates for a dim of {n} samples")
    d1, d2 = dx[:-1], dx[1:]
    interior = [-d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2))]
    if edge_order == 1:
        first = [[-1 / dx[0]], [1 / dx[0]]]
        last = [[-1 / dx[-1]], [1 / dx[-1]]]
    else:
        a, b = dx[0], dx[1]
        first = [[-(2 * a + b) / (a * (a + b))], [(a + b) / (a * b)], [-a / (b * (a + b))]]
        a, b = dx[-2], dx[-1]
        last = [[b / (a * (a + b))], [-(a + b) / (a * b)], [(2 * b + a) / (b * (a + b))]]
    return [(0, first), (0, interior), (n - len(last), last)]


def _uniform_gradient_along(f: Tensor, ax: int, h: float, edge_order: int) -> Tensor:
    """One spacing ``h``: NumPy's and PyTorch's uniform formulas, which subtract the samples
    before they scale (``(f[i+1] - f[i-1]) / 2h``).  The weighted sum of the general stencil
    rounds each product first, so near-equal neighbours cancel to a wrong difference (20%
    off at ``[1, 7, 1 + 2**-52]`` with ``h = 0.3``)."""
    n = f.shape[ax]
    _enough_samples("gradient", n, edge_order)
    if edge_order == 1:
        first = (_slice(f, ax, 1, 2) - _slice(f, ax, 0, 1)) / h
        last = (_slice(f, ax, n - 1, n) - _slice(f, ax, n - 2, n - 1)) / h
    else:
        # PyTorch's order (NumPy scales each sample by c / h first: a last bit apart)
        first = (_slice(f, ax, 0, 1) * -1.5 + _slice(f, ax, 1, 2) * 2.0 - _slice(f, ax, 2, 3) * 0.5) / h
        last = (_slice(f, ax, n - 3, n - 2) * 0.5 - _slice(f, ax, n - 2, n - 1) * 2.0
                + _slice(f, ax, n - 1, n) * 1.5) / h
    interior = (_slice(f, ax, 2, None) - _slice(f, ax, None, -2)) / (2.0 * h)
    return mf.concatenate([first, interior, last], axis=ax)


def _gradient_along(f: Tensor, ax: int, h: Any, edge_order: int) -> Tensor:
    if host_numpy.ndim(h) == 0:
        return _uniform_gradient_along(f, ax, float(h), edge_order)
    n = f.shape[ax]
    blocks = []
    for start, coefs in _stencil("gradient", n, h, edge_order):
        width = len(coefs[0])
        total = None
        for k, c in enumerate(coefs):
            if not host_numpy.any(c) and total is not None:
                continue  # a zero weight (the centre of an even spacing): 0 * NaN would spread a NaN
            shape = tuple(width if i == ax else 1 for i in range(f.ndim))
            piece = _slice(f, ax, start + k, start + k + width) * constant(
                host_numpy.asarray(c, dtype=f.dtype).reshape(shape), f)
            total = piece if total is None else total + piece
        blocks.append(total)
    return mf.concatenate(blocks, axis=ax)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1, spacing: Any = _UNSET,
             dim: Any = _UNSET) -> Any:
    """The derivative of sampled values by second-order central differences inside and
    one-sided differences of order ``edge_order`` (1 or 2) at the ends.  NumPy's ``gradient``:
    spacings (a number or coordinates per axis) as ``varargs``, one tensor for one axis, else
    a list.  PyTorch's (``spacing=``/``dim=``): always a tuple, one tensor per dim."""
    x = in_default_float(f)  # integers in the default float dtype, as torch.gradient (NumPy: float64)
    torch_spelling = spacing is not _UNSET or dim is not _UNSET
    axes_given = axis if dim in (_UNSET, None) else number("gradient", "dim", dim, "int")
    if spacing is None:  # PyTorch's default, passed explicitly: unit spacing
        spacing = ()
    edge_order = number("gradient", "edge_order", edge_order, "int")
    if isinstance(spacing, Tensor):  # PyTorch's Scalar (a list holds coordinates, a tensor per dim)
        spacing = number("gradient", "spacing", spacing)
    if x.ndim == 0:
        raise ValueError("gradient: needs at least one dim, got a 0-d tensor")
    if axes_given is None:
        axes = list(range(x.ndim))
    elif isinstance(axes_given, (int, host_numpy.integer)):
        axes = [one_axis(axes_given, x.ndim)]
    else:
        axes = [one_axis(a, x.ndim) for a in axes_given]
    if len(set(axes)) != len(axes):  # (NumPy's ValueError "repeated axis")
        raise RefusedArgument(f"gradient: dim {_repeated(axes)} appears multiple times in the list of dims")
    if edge_order not in (1, 2):
        raise RefusedArgument(f"torch.gradient only supports edge_order=1 and edge_order=2. (got {edge_order})")
    steps = varargs if spacing is _UNSET else (spacing if isinstance(spacing, (tuple, list)) else (spacing,))
    steps = [host(s) if isinstance(s, Tensor) else s for s in steps]
    one_number = len(steps) == 1 and host_numpy.ndim(steps[0]) == 0
    if not steps:
        steps = [1.0] * len(axes)
    elif one_number and len(axes) > 1 and not isinstance(spacing, (tuple, list)):
        steps = steps * len(axes)  # NumPy's one spacing, PyTorch's Scalar: every dim's (a list holds one per dim)
    if len(steps) != len(axes):
        raise ArgumentCountMismatch(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
            f"have the same length, but got a spacing argument of length {len(steps)} and a dim argument of "
            f"length {len(axes)}.")
    out = [_gradient_along(x, ax, h, edge_order) for ax, h in zip(axes, steps)]
    if torch_spelling:
        return tuple(out)
    return out[0] if len(out) == 1 else out


def _repeated(axes: list[int]) -> int:
    return next(a for i, a in enumerate(axes) if a in axes[:i])


def _widths(name: str, y: Tensor, x: Any, dx: Any, ax: int) -> Any:
    """The interval widths along ``ax``: ``diff(x)`` (broadcast along ``ax`` for a 1-D ``x``) or ``dx``."""
    if x is None:
        return 1.0 if dx is None else dx
    xs = x if isinstance(x, Tensor) else constant(host_numpy.asarray(x, dtype=y.dtype), y)
    if xs.ndim == 1 and xs.shape[0] != y.shape[ax]:  # (its one or two widths would broadcast: a wrong integral)
        raise RefusedArgument(f"{name}: There must be one `x` value for each sample point")
    if xs.ndim == 1:
        widths = diff(xs)
        return mf.reshape(widths, tuple(-1 if i == ax else 1 for i in range(y.ndim)))
    return diff(xs, axis=ax)


def _integrand(name: str, y: Any, x: Any, dx: Any, axis: Any, dim: Any) -> tuple[Tensor, int, Any]:
    if isinstance(y, Tensor) and y.dtype.kind == "b":  # (PyTorch's RuntimeError; NumPy's answer is a count)
        raise WrongTensorKind(f"{name}: received a bool input for `y`, but bool is not supported")
    ys = in_default_float(y)  # integers in the default float dtype, as PyTorch's (NumPy: float64)
    dx = number(name, "dx", dx)
    if x is not None and dx is not None:
        raise TypeError(f"{name}: pass either x or dx, not both")
    ax = _axis(name, ys, axis, dim)
    return ys, ax, _widths(name, ys, x, dx, ax)


@in_float32_if_half  # neighbours' sums overflow float16: trapezoid([65504, 65504, -65504]) was inf
def trapezoid(y: Any, x: Any = None, dx: Any = None, axis: Any = _UNSET, *, dim: Any = _UNSET) -> Tensor:
    """The integral of the samples ``y`` along ``axis`` (PyTorch: ``dim``; the last by default)
    by the trapezoidal rule, at sample points ``x`` or spacing ``dx`` (1 if neither), as
    NumPy's and PyTorch's ``trapezoid``; differentiable in ``y`` and ``x``."""
    ys, ax, widths = _integrand("trapezoid", y, x, dx, axis, dim)
    return mf.sum(widths * (_slice(ys, ax, 1, None) + _slice(ys, ax, None, -1)) / 2, axis=ax)


@in_float32_if_half
def cumulative_trapezoid(y: Any, x: Any = None, *, dx: Any = None, dim: Any = _UNSET,
                         axis: Any = _UNSET) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one shorter than ``y`` there), as
    ``torch.cumulative_trapezoid`` and SciPy's ``cumulative_trapezoid`` without ``initial``."""
    ys, ax, widths = _integrand("cumulative_trapezoid", y, x, dx, axis, dim)
    return mf.cumsum(widths * (_slice(ys, ax, 1, None) + _slice(ys, ax, None, -1)) / 2, axis=ax)
