"""Tensor's methods with PyTorch's meaning.

A method that ``torch.Tensor`` has behaves as PyTorch's: ``x.transpose(0, 1)`` swaps two
dims, ``x.split(2)`` cuts pieces of 2, ``x.max(1)`` is ``(values, indices)``, ``x.repeat(2, 1)``
tiles, ``x.var()`` divides by ``N - 1``, ``x.sort()`` returns ``(values, indices)``.  Where
NumPy's ``ndarray`` has a method of the same name, NumPy's keywords select NumPy's meaning
(``x.max(axis=1)``, ``x.var(axis=0)``, ``x.repeat(2, axis=0)``, ``x.sort(axis=0)``).  The
table of every name whose meanings differ is in ``docs/from-pytorch.md``.

:data:`METHODS` maps each name to its function; :mod:`.tensor_methods` puts it in Tensor's
one method table.
"""

from __future__ import annotations

from typing import Any

from ..backend import as_dtype, get_device, host_numpy
from ..ops import activation as _act
from ..tape import apply
from ..tensor import Tensor
from . import linalg, linalg_derived, namespace, special, special_extended
from . import math as mf
from . import torch_idioms as ti
from .arguments import as_tensor, normalize_axis, one_axis, operand, refuse_complex

__all__ = ["METHODS", "reshape_method"]

_UNSET: Any = ti._UNSET


def _sizes(args: tuple) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike, as PyTorch's size arguments."""
    if len(args) == 1 and not isinstance(args[0], (int, host_numpy.integer)):
        return tuple(int(a) for a in args[0])
    return tuple(int(a) for a in args)


def reshape_method(x: Tensor, *shape: Any) -> Tensor:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    return mf.reshape(x, _sizes(shape))


def _view(x: Tensor, *shape: Any) -> Tensor:
    """PyTorch's ``view``: the same values in another shape -- :meth:`reshape`, which shares
    memory with ``x`` wherever NumPy can (a contiguous ``x``) and copies otherwise; or, given
    a dtype of the same item size, the same bytes reinterpreted (no gradient)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, host_numpy.integer, tuple, list)):
        dt = as_dtype(shape[0])
        if dt.itemsize != x.dtype.itemsize:
            raise ValueError(f"view: {x.dtype} and {dt} differ in item size; use .to(dtype) to convert values")
        if x.requires_grad:
            raise RuntimeError("view(dtype) reinterprets bytes and has no gradient; call it on x.detach()")
        return Tensor.constant(x._data.view(dt), x.device)
    return reshape_method(x, *shape)


def _transpose(x: Tensor, *axes: Any) -> Tensor:
    """``x.transpose(dim0, dim1)``: PyTorch's swap of two dims; ``x.transpose()`` or an
    axes tuple: NumPy's permutation."""
    if x.ndim == 0 and len(axes) == 2 and all(a in (0, -1) for a in axes):
        return x  # PyTorch: a 0-d tensor's dims 0 and -1 are the same one
    if len(axes) == 1 and axes[0] is not None and not isinstance(axes[0], (int, host_numpy.integer)):
        axes = (tuple(axes[0]),)
    elif len(axes) not in (0, 2):
        axes = (tuple(axes),)
    return ti.transpose(x, *axes)


def _t(x: Tensor) -> Tensor:
    """PyTorch's ``t()``: the transpose of a tensor of at most 2 dims."""
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dims, got {x.ndim}; use x.transpose(d0, d1) or x.mT")
    return mf.transpose(x)


def _extremum(name: str) -> Any:
    plain = getattr(ti, name)

    def method(self: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = _UNSET,
               keepdims: Any = _UNSET, **kwargs: Any) -> Any:
        if axis is not _UNSET or keepdims is not _UNSET:  # NumPy's spelling: NumPy's meaning
            if dim is not None:
                raise TypeError(f"{name}: pass either axis= or dim=, not both (dim= returns (values, indices))")
            return plain(self, None if axis is _UNSET else axis, bool(keepdims is True), **kwargs)
        if isinstance(dim, Tensor):
            return plain(self, dim)
        if dim is None:
            return plain(self, None, keepdim, **kwargs)
        return ti.extremum_along(name, self, dim, keepdim)

    method.__name__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}()``: the {name}imum; ``x.{name}(dim)`` the pair ``(values, indices)``; "
                      f"``x.{name}(other)`` the elementwise {name}imum.  ``axis=`` gives NumPy's reduction.")
    return method


def _spread(name: str) -> Any:
    plain = getattr(ti, name)

    def method(self: Tensor, dim: Any = None, unbiased: Any = _UNSET, keepdim: bool = False, *,
               correction: Any = _UNSET, axis: Any = _UNSET, ddof: Any = _UNSET, keepdims: Any = _UNSET) -> Tensor:
        if axis is not _UNSET or ddof is not _UNSET or keepdims is not _UNSET:  # NumPy's meaning: ddof=0
            return plain(self, None if axis is _UNSET else axis, 0 if ddof is _UNSET else ddof,
                         bool(keepdims is True))
        c = ti.correction_of(name, _UNSET, correction, unbiased, torch_default=True)
        return plain(self, dim, c, keepdim)

    method.__name__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}(dim, unbiased, keepdim, correction=)``: Bessel's correction (N - 1) "
                      f"by default.  ``axis=``/``ddof=`` give NumPy's meaning (``ddof=0`` by default).")
    return method


def _repeat(x: Tensor, *sizes: Any, axis: Any = _UNSET) -> Tensor:
    """PyTorch's ``x.repeat(2, 1)``: tile the tensor (NumPy's ``tile``); with ``axis=``,
    NumPy's ``x.repeat(2, axis=0)``: repeat each element."""
    if axis is not _UNSET:
        if len(sizes) != 1:
            raise TypeError("repeat(repeats, axis=) takes one count (or one per element)")
        return mf.repeat(x, sizes[0], axis)
    reps = _sizes(sizes)
    if len(reps) < x.ndim:
        raise RuntimeError(f"repeat: {len(reps)} repeat counts for a {x.ndim}-d tensor (PyTorch's repeat tiles; "
                           f"for NumPy's element repeat pass axis=, or use mg.repeat_interleave)")
    return mf.tile(x, reps)


def _expand(x: Tensor, *sizes: Any) -> Tensor:
    """PyTorch's ``expand``: a broadcast view; ``-1`` keeps a dim's size."""
    target = _sizes(sizes)
    lead = len(target) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand: {len(target)} sizes for a {x.ndim}-d tensor")
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(target))
    if -1 in shape[:lead]:
        raise RuntimeError("expand: -1 is not allowed for a new leading dim")
    return mf.broadcast_to(x, shape)


def _sort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, axis: Any = _UNSET,
          kind: Any = None) -> Any:
    """PyTorch's ``x.sort(dim=-1, descending=False)``: ``(values, indices)``.  ``axis=`` gives
    NumPy's meaning as a value (the sorted copy; NumPy sorts in place)."""
    if axis is not _UNSET:
        return mf.sort(x, axis, kind)
    return ti.sort_pair(x, dim, descending)


def _argsort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, axis: Any = _UNSET,
             kind: Any = None) -> Tensor:
    """PyTorch's ``x.argsort(dim=-1, descending=False)``; ``axis=`` as NumPy's."""
    if axis is not _UNSET:
        return mf.argsort(x, axis, kind)
    return ti.sort_pair(x, dim, descending).indices


def _split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> list[Tensor]:
    """PyTorch's ``x.split(size, dim=0)``: pieces of ``size`` (or of the listed sizes)."""
    return ti.split_sizes(x, split_size_or_sections, dim)


def _reduction(fn: Any) -> Any:
    """``x.all(dim)``, ``x.any(dim)``: PyTorch's ``dim``/``keepdim`` beside NumPy's ``axis``."""
    def method(self: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None,
               keepdims: bool = False) -> Tensor:
        return fn(self, axis=axis if dim is None else dim, keepdims=bool(keepdims or keepdim))
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _relu(x: Tensor) -> Tensor:
    """PyTorch's ``x.relu()``: ``max(x, 0)``; complex input refused (no order), as PyTorch."""
    refuse_complex("relu", x)
    return apply(_act.Relu(), x)


def _softmax(x: Tensor, dim: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    if x.ndim == 0:
        return ti.along_zero_d(lambda t, axis: _softmax(t, axis), x, dim, (), {})
    return apply(_act.Softmax(axis=normalize_axis(dim, x.ndim)), x)


def _log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``."""
    if x.ndim == 0:
        return ti.along_zero_d(lambda t, axis: _log_softmax(t, axis), x, dim, (), {})
    return apply(_act.LogSoftmax(axis=normalize_axis(dim, x.ndim)), x)


def _norm(x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
    """PyTorch's ``x.norm(p='fro', dim=None, keepdim=False)``: the 2-norm of all elements by
    default, a vector norm along ``dim``."""
    if dim is None:
        flat = mf.ravel(x)
        out = linalg.norm(flat, None if p in ("fro", 2) else p)
        return mf.reshape(out, (1,) * x.ndim) if keepdim else out
    if p == "fro":
        p = None
    return linalg.norm(x, p, dim, keepdim)


def _masked_fill(x: Tensor, mask: Any, value: Any) -> Tensor:
    """``value`` where ``mask`` is true, ``x`` elsewhere (the gradient flows where it is false)."""
    return mf.where(mask, operand(value, x), x)


def _new(fill: Any) -> Any:
    def method(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        shape = _sizes(size)
        dt = as_dtype(dtype) if dtype is not None else self.dtype
        dev = get_device(device) if device is not None else self.device
        t = Tensor.constant(dev.xp.full(shape, fill, dtype=dt), dev)
        return t.requires_grad_(True) if requires_grad else t
    method.__name__ = f"new_{'zeros' if fill == 0 else 'ones'}"
    method.__doc__ = f"A tensor of {'zeros' if fill == 0 else 'ones'} with this one's dtype and device."
    return method


def _new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``, with this one's dtype and device."""
    return _new(fill_value)(self, size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    """A copy of ``data`` with this tensor's dtype and device (unless given)."""
    return Tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _addc(name: str, combine: Any) -> Any:
    def method(self: Tensor, tensor1: Any, tensor2: Any, *, value: float = 1) -> Tensor:
        return self.add_(combine(as_tensor(tensor1), as_tensor(tensor2)) * value)
    method.__name__ = name
    method.__doc__ = f"``self += value * tensor1 {'*' if 'mul' in name else '/'} tensor2`` in place."
    return method


def _add(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``self + alpha * other`` (PyTorch's ``add``)."""
    return self + (other * alpha if alpha != 1 else other)


def _sub(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``self - alpha * other`` (PyTorch's ``sub``)."""
    return self - (other * alpha if alpha != 1 else other)


_TYPE_NAMES = {"float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor", "int8": "CharTensor",
               "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor", "uint8": "ByteTensor",
               "bool": "BoolTensor", "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}


def _type(self: Tensor, dtype: Any = None) -> Any:
    """PyTorch's ``type()``: the type's name (``'minigrad_ckpt.FloatTensor'``); ``type(dtype)``
    casts (``'torch.DoubleTensor'``-style names are accepted)."""
    if dtype is None:
        return "minigrad_ckpt." + _TYPE_NAMES.get(self.dtype.name, self.dtype.name)
    if isinstance(dtype, str) and dtype.endswith("Tensor"):
        wanted = dtype.rsplit(".", 1)[-1]
        names = {v: k for k, v in _TYPE_NAMES.items()}
        if wanted not in names:
            raise ValueError(f"type: unknown tensor type {dtype!r}")
        dtype = names[wanted]
    return self.to(dtype=dtype)


def _format(self: Tensor, spec: str) -> str:
    """A 0-d tensor formats as its number (``f"{loss:.4f}"``), as in PyTorch."""
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec)


METHODS: dict[str, Any] = {
    "view": _view, "view_as": lambda self, other: reshape_method(self, other.shape),
    "reshape_as": lambda self, other: reshape_method(self, other.shape),
    "expand": _expand, "expand_as": lambda self, other: mf.broadcast_to(self, other.shape),
    "numel": lambda self: int(self._data.size), "nelement": lambda self: int(self._data.size),
    "dim": lambda self: self.ndim, "ndimension": lambda self: self.ndim,
    "transpose": _transpose, "t": _t, "swapdims": mf.swapaxes, "movedim": mf.moveaxis,
    "max": _extremum("max"), "min": _extremum("min"), "var": _spread("var"), "std": _spread("std"),
    "repeat": _repeat, "sort": _sort, "argsort": _argsort, "split": _split, "chunk": ti.chunk,
    "unbind": ti.unbind, "topk": ti.topk, "flatten": ti.flatten, "unsqueeze": ti.unsqueeze,
    "all": _reduction(namespace.all), "any": _reduction(namespace.any),
    "softmax": _softmax, "log_softmax": _log_softmax, "relu": _relu,
    "norm": _norm, "masked_fill": _masked_fill, "clamp": ti.clamp, "clamp_min": lambda self, m: ti.clamp(self, m),
    "clamp_max": lambda self, m: ti.clamp(self, None, m), "pow": mf.power, "mm": mf.matmul,
    "neg": mf.negative, "negative": mf.negative, "add": _add, "sub": _sub, "subtract": _sub,
    "mul": mf.multiply, "multiply": mf.multiply, "div": mf.divide, "divide": mf.divide,
    "true_divide": mf.divide, "roll": lambda self, shifts, dims=None: mf.roll(self, shifts, dims),
    "new_zeros": _new(0), "new_ones": _new(1), "new_empty": _new(0), "new_full": _new_full,
    "new_tensor": _new_tensor, "addcmul_": _addc("addcmul_", lambda a, b: a * b),
    "addcdiv_": _addc("addcdiv_", lambda a, b: a / b), "type": _type, "type_as": lambda self, o: self.to(o.dtype),
    "__format__": _format,
    "eq": mf.equal, "ne": mf.not_equal, "lt": mf.less, "le": mf.less_equal, "gt": mf.greater,
    "ge": mf.greater_equal, "greater": mf.greater, "greater_equal": mf.greater_equal, "less": mf.less,
    "less_equal": mf.less_equal, "not_equal": mf.not_equal,
}


def _isclose(x: Tensor, other: Any, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    """``|x - other| <= atol + rtol * |other|`` elementwise, a bool constant (PyTorch's ``isclose``)."""
    xp, a, b = x.device.xp, x._data, as_tensor(other)._data
    close = xp.abs(a - b) <= atol + rtol * xp.abs(b)
    if equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b))
    return Tensor.constant(xp.asarray(close), x.device)


def _unflatten(x: Tensor, dim: int, sizes: Any) -> Tensor:
    """PyTorch's ``unflatten``: dim ``dim`` split into ``sizes`` (one may be -1)."""
    d = one_axis(dim, x.ndim)
    return mf.reshape(x, x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


def _svd(x: Tensor, some: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's ``Tensor.svd``: ``(U, S, V)`` with ``x = U diag(S) V^T`` (``V``, not ``V^T``)."""
    u, s, vh = linalg.svd(x, full_matrices=not some)
    return u, s, mf.swapaxes(vh, -1, -2)


# PyTorch's methods that mean what a public function of the same (or another) name means:
# ``x.<method>(*args)`` is ``<function>(x, *args)``.  Resolved when the table is built, so an
# op added to the math later gains its method by a line here.
SAME_AS_FUNCTION: dict[str, str] = {
    "absolute": "abs", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2", "arctan2": "arctan2", "fix": "trunc", "sgn": "sign",
    "hypot": "hypot", "logaddexp": "logaddexp", "logaddexp2": "logaddexp2", "fmod": "fmod",
    "remainder": "remainder", "inner": "inner", "outer": "outer", "ger": "outer", "kron": "kron", "cross": "cross",
    "tile": "tile", "tril": "tril", "triu": "triu", "diag": "diag", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_not": "logical_not", "bmm": "matmul", "mv": "matmul", "vdot": "dot",
    "det": "linalg.det", "inverse": "linalg.inv", "slogdet": "linalg.slogdet", "matrix_power": "linalg.matrix_power",
    "pinverse": "linalg.pinv", "digamma": "special.digamma", "erfc": "special.erfc", "erfinv": "special.erfinv",
    "logit": "special.logit", "xlogy": "special.xlogy", "lgamma": "special.gammaln", "sinc": "sinc",
    "float_power": "power", "take_along_dim": "take_along_axis", "isinf": "namespace.isinf",
    "count_nonzero": "namespace.count_nonzero", "matrix_exp": "linalg_derived.matrix_exp",
    "cholesky_solve": "linalg_derived.cholesky_solve", "cholesky_inverse": "linalg_derived.cholesky_inverse",
    "i0": "special_extended.i0", "igamma": "special_extended.gammainc", "igammac": "special_extended.gammaincc",
    "mvlgamma": "special_extended.multigammaln",
}
_HOMES = {"linalg": linalg, "special": special, "namespace": namespace, "linalg_derived": linalg_derived,
          "special_extended": special_extended}


def _resolve(path: str) -> Any:
    home, _, name = path.rpartition(".")
    return getattr(_HOMES[home] if home else mf, name, None)


def _simple(name: str, fn: Any, doc: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = doc
    return method


for _name, _path in SAME_AS_FUNCTION.items():
    _fn = _resolve(_path)
    if _fn is not None:
        METHODS[_name] = _simple(_name, _fn, f"``{_path}(self, ...)`` (PyTorch's ``Tensor.{_name}``).")

METHODS.update({
    "positive": lambda self: self, "fliplr": lambda self: mf.flip(self, 1), "flipud": lambda self: mf.flip(self, 0),
    "amax": _reduction(mf.max), "amin": _reduction(mf.min),
    "where": lambda self, condition, other: mf.where(condition, self, other),
    "polygamma": lambda self, n: special.polygamma(n, self),
    "equal": lambda self, other: self.shape == as_tensor(other).shape and bool(mf.equal(self, other).numpy().all()),
    "is_floating_point": lambda self: self.dtype.kind == "f", "is_complex": lambda self: self.dtype.kind == "c",
    "is_signed": lambda self: self.dtype.kind in "fic", "element_size": lambda self: self.dtype.itemsize,
    "is_contiguous": lambda self: True, "contiguous": lambda self: self,
    "is_cuda": property(lambda self: self.device.type == "cuda"),
    "is_cpu": property(lambda self: self.device.type == "cpu"),
    "get_device": lambda self: -1 if self.device.type == "cpu" else self.device.index,
    "narrow": lambda self, dim, start, length: mf.getitem(
        self, (slice(None),) * one_axis(dim, self.ndim) + (slice(start, start + length),)),
    "cholesky": lambda self, upper=False: mf.swapaxes(linalg.cholesky(self), -1, -2) if upper
    else linalg.cholesky(self),
    "qr": lambda self, some=True: linalg.qr(self, "reduced" if some else "complete"),
    "svd": lambda self, some=True: _svd(self, some), "logdet": lambda self: mf.log(linalg.det(self)),
    "dist": lambda self, other, p=2: linalg.norm(mf.ravel(self - other), None if p == 2 else p),
    "byte": lambda self: self.to(dtype="uint8"), "char": lambda self: self.to(dtype="int8"),
    "short": lambda self: self.to(dtype="int16"), "logical_xor": lambda self, other: mf.not_equal(
        mf.astype(self, "bool"), mf.astype(as_tensor(other), "bool")),
    "is_nonzero": lambda self: bool(self), "is_same_size": lambda self, other: self.shape == other.shape,
    "isclose": lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: _isclose(
        self, other, rtol, atol, equal_nan),
    "allclose": lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: bool(_isclose(
        self, other, rtol, atol, equal_nan).numpy().all()),
    "deg2rad": lambda self: self * (3.141592653589793 / 180.0),
    "rad2deg": lambda self: self * (180.0 / 3.141592653589793),
    "rsqrt": lambda self: mf.reciprocal(mf.sqrt(self)), "frac": lambda self: self - mf.trunc(self),
    "lerp": lambda self, end, weight: self + weight * (end - self),
    "repeat_interleave": lambda self, repeats, dim=None: mf.repeat(self, repeats, dim),
    "msort": lambda self: ti.sort_pair(self, 0).values,
    "split_with_sizes": lambda self, split_sizes, dim=0: ti.split_sizes(self, list(split_sizes), dim),
    "unflatten": lambda self, dim, sizes: _unflatten(self, dim, sizes),
    "select": lambda self, dim, index: mf.getitem(self, (slice(None),) * one_axis(dim, self.ndim) + (index,)),
})


def in_place(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self.copy_(getattr(self, name)(*args, **kwargs))
    method.__name__ = name + "_"
    method.__doc__ = (f"``x.{name}_(...)``: ``x.copy_(x.{name}(...))`` -- in place, under the in-place rules "
                      f"(refused on a tensor that requires grad outside ``mg.no_grad()``; tangents carried).")
    return method


# PyTorch's in-place twins of the elementwise methods: the out-of-place method, copied back.
IN_PLACE = (
    "abs", "absolute", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "asin", "asinh", "atan", "atan2", "atanh", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "cos", "cosh",
    "digamma", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "floor", "fmod", "hypot", "lgamma", "log",
    "log10", "log1p", "log2", "logit", "masked_fill", "neg", "negative", "pow", "reciprocal", "relu", "remainder",
    "round", "sgn", "sigmoid", "sign", "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "tril", "triu",
    "trunc", "xlogy", "multiply", "subtract", "divide", "true_divide", "float_power", "polygamma", "eq", "ne",
    "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "cumsum", "cumprod", "deg2rad", "rad2deg", "rsqrt", "frac", "lerp",
    "i0", "igamma", "igammac", "mvlgamma",
)
