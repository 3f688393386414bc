"""Tensor's methods and operators, and the package's one binding point.

Tensor (:mod:`minigrad_ckpt.tensor`) and the ops need each other: ``x + y``
runs an op, and an op returns Tensors.  The lower layers know nothing of the
upper ones, so the link is made here, once, by :func:`bind` (DeZero's
``setup_variable``), which the package's ``__init__`` calls:

* Tensor gets its math methods and operators -- sugar over
  :mod:`minigrad_ckpt.functional` -- plus ``backward`` (the tape's) and the
  differentiable conversions ``to``, ``cpu``, ``cuda``, ``float``, ...;
* the tape gets the differentiable namespace it runs ``backward`` on when
  ``create_graph=True`` (:mod:`minigrad_ckpt.functional.namespace`).

To give Tensor a new method, add it to :data:`METHODS`.
"""

from __future__ import annotations

from typing import Any

from .. import tape
from ..backend import as_dtype, device_or_dtype
from ..backward import backward as _backward_pass
from ..tape import apply
from ..tensor import Tensor
from . import complex_numbers as cn
from . import (
    differences,
    elementwise_compositions,
    namespace,
    scatter,
    selection,
    shape_compositions,
    statistics,
    torch_idioms,
    torch_methods,
)
from . import math as mf
from .arguments import _FAST_OPERANDS, operand
from .elementwise import _ADD, _DIV, _MOD, _MUL, _SUB
from .torch_methods import reshape_method

__all__ = ["METHODS", "bind"]


def _rpow(x: Any, y: Any) -> Tensor:
    return mf.power(y, x)


def _rmatmul(x: Any, y: Any) -> Tensor:
    return mf.matmul(y, x)


def _operator(op: Any, reflected: bool = False) -> Any:
    """``Tensor.__add__`` and friends: ``self`` is known to be a Tensor, so the
    common operands (a Tensor or a Python number) go straight to ``apply`` --
    one call less than ``add(x, y)`` on the hottest path of eager code."""
    if reflected:
        def method(self: Tensor, other: Any) -> Tensor:
            return apply(op, operand(other, self), self)
    else:
        def method(self: Tensor, other: Any) -> Tensor:
            if type(other) in _FAST_OPERANDS or isinstance(other, Tensor):
                return apply(op, self, other)
            return apply(op, self, operand(other, self))
    return method


METHODS: dict[str, Any] = {
    "__add__": _operator(_ADD), "__radd__": _operator(_ADD, reflected=True),
    "__sub__": _operator(_SUB), "__rsub__": _operator(_SUB, reflected=True),
    "__mul__": _operator(_MUL), "__rmul__": _operator(_MUL, reflected=True),
    "__truediv__": _operator(_DIV), "__rtruediv__": _operator(_DIV, reflected=True),
    "__pow__": mf.power, "__rpow__": _rpow, "__matmul__": mf.matmul, "__rmatmul__": _rmatmul,
    "__neg__": mf.negative, "__pos__": lambda x: x, "__abs__": mf.abs,
    "__eq__": mf.equal, "__ne__": mf.not_equal, "__lt__": mf.less, "__le__": mf.less_equal,
    "__gt__": mf.greater, "__ge__": mf.greater_equal,
    "__getitem__": mf.getitem,
    "__and__": mf.logical_and, "__or__": mf.logical_or, "__invert__": mf.logical_not,
    "exp": mf.exp, "log": mf.log, "log1p": mf.log1p, "sqrt": mf.sqrt, "abs": mf.abs, "sin": mf.sin, "cos": mf.cos,
    "tanh": mf.tanh, "sigmoid": mf.sigmoid, "erf": mf.erf, "clip": mf.clip, "maximum": mf.maximum,
    "minimum": mf.minimum,
    "matmul": mf.matmul, "reshape": reshape_method,
    "permute": mf.permute, "swapaxes": mf.swapaxes,
    "moveaxis": mf.moveaxis, "broadcast_to": mf.broadcast_to, "sum_to": mf.sum_to, "pad": mf.pad,
    "astype": mf.astype, "clone": mf.clone, "sign": mf.sign, "isnan": mf.isnan, "isfinite": mf.isfinite,
    "__mod__": _operator(_MOD), "__rmod__": _operator(_MOD, reflected=True),
    "tan": mf.tan, "sinh": mf.sinh, "cosh": mf.cosh, "arcsin": mf.arcsin, "arccos": mf.arccos, "arctan": mf.arctan,
    "arcsinh": mf.arcsinh, "arccosh": mf.arccosh, "arctanh": mf.arctanh, "log2": mf.log2, "log10": mf.log10,
    "exp2": mf.exp2, "expm1": mf.expm1, "square": mf.square, "reciprocal": mf.reciprocal, "cbrt": mf.cbrt,
    "floor": mf.floor, "ceil": mf.ceil, "trunc": mf.trunc, "round": mf.round, "__round__": mf.round,
    "ravel": mf.ravel, "diagonal": mf.diagonal, "trace": mf.trace, "dot": mf.dot,
    "conj": cn.conj, "is_complex": cn.is_complex, "angle": cn.angle,
}


# ------------------------------------------------------------- autograd
def _backward(self: Tensor, gradient: Any = None, retain_graph: bool | None = None,
              create_graph: bool = False) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of every leaf.

    ``gradient`` is required unless this tensor has one element.  The
    graph's saved values are freed afterwards unless ``retain_graph``.
    """
    grads = None if gradient is None else [gradient]
    _backward_pass(self, grads, retain_graph=retain_graph, create_graph=create_graph)


# ----------------------------------------------------------- conversion
def _to(self: Tensor, target: Any = None, dtype: Any = None, non_blocking: bool = False, copy: bool = False,
        memory_format: Any = None) -> Tensor:
    """A copy on another device and/or with another dtype (``self`` if nothing changes).

    ``t.to("cuda")``, ``t.to(mg.float64)``, ``t.to("cpu", "float32")``.  The
    result is differentiable: gradients flow back across the move or cast.
    PyTorch's keywords: ``copy=True`` returns a new tensor even when nothing changes;
    ``non_blocking`` and ``memory_format`` are accepted and change nothing here (every
    copy is synchronous, every array C-contiguous).
    """
    t = _move(self, target, dtype)
    return mf.clone(t) if copy and t is self else t


def _move(self: Tensor, target: Any, dtype: Any) -> Tensor:
    dev = None
    if target is not None:
        dev, dtype_target = device_or_dtype(target)
        if dtype_target is not None:
            dtype = dtype_target
    t = self
    if dtype is not None and as_dtype(dtype) != self.dtype:
        t = mf.astype(t, dtype)
    if dev is not None and dev is not t._device:
        t = mf.to_device(t, dev)
    return t


def _cast(dtype: str, doc: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return _to(self, dtype=dtype)
    method.__doc__ = doc
    return method


def _cpu(self: Tensor) -> Tensor:
    """This tensor on the CPU (``self`` if it is there already)."""
    return _to(self, "cpu")


def _cuda(self: Tensor, index: int = 0) -> Tensor:
    """This tensor on GPU ``index`` (differentiable)."""
    return _to(self, f"cuda:{index}")


METHODS.update({
    "backward": _backward, "to": _to, "cpu": _cpu, "cuda": _cuda,
    "float": _cast("float32", "A float32 copy (differentiable)."),
    "double": _cast("float64", "A float64 copy (differentiable)."),
    "half": _cast("float16", "A float16 copy (differentiable)."),
    "long": _cast("int64", "An int64 copy (cuts the tape)."),
    "int": _cast("int32", "An int32 copy (cuts the tape)."),
    "bool": _cast("bool", "A bool copy (cuts the tape)."),
})
# NumPy's reductions and axis functions whose meaning PyTorch shares: ``dim=``/``keepdim=`` too.
METHODS.update({name: getattr(torch_idioms, name) for name in (
    "sum", "mean", "prod", "logsumexp", "cumsum", "cumprod", "argmax", "argmin", "flip", "squeeze", "expand_dims",
    "take")})
# The methods whose meaning differs between the libraries, and PyTorch's own: PyTorch's meaning.
METHODS.update(torch_methods.METHODS)
METHODS.update({name + "_": torch_methods.in_place(name) for name in torch_methods.IN_PLACE if name in METHODS})
# PyTorch's operators beyond NumPy's (each module's table: its methods and their in-place twins).
for _module in (scatter, selection, elementwise_compositions, statistics, differences, shape_compositions):
    METHODS.update(_module.METHODS)
    METHODS.update({name + "_": torch_methods.in_place(name) for name in _module.IN_PLACE})


def bind() -> None:
    """Install :data:`METHODS` (and ``.T``, ``.mT``, ``.real``, ``.imag``) on Tensor and the differentiable
    namespace on the tape.  Called once, by the package's ``__init__``."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(lambda self: mf.transpose(self), doc="The transpose (axes reversed).")
    Tensor.mT = property(lambda self: mf.swapaxes(self, -1, -2), doc="The matrix transpose of the last two axes.")
    Tensor.real = property(cn.real, doc="The real part (differentiable; the tensor itself if it is real).")
    Tensor.imag = property(cn.imag, doc="The imaginary part (differentiable; zeros if the tensor is real).")
    tape.differentiable_namespace = namespace
