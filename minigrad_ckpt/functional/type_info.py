"""``mg.finfo`` and ``mg.iinfo``: the limits of a dtype, as PyTorch's ``torch.finfo``/``torch.iinfo``
answer them -- Python numbers and the dtype's name as a string (NumPy's ``finfo``/``iinfo`` answer
NumPy scalars and a dtype, and print on several lines).

``mg.finfo`` and ``mg.iinfo`` are types, as PyTorch's are: calling one answers for a dtype, and the
type stands where PyTorch code names it (``eps: torch.finfo | None = None`` in an annotation
evaluated as a function is defined, ``isinstance(info, torch.finfo)``).

A dtype of the wrong kind is PyTorch's ``TypeError`` (NumPy's is a ``ValueError``): ``finfo`` takes
a float or complex dtype (a complex one's parts: ``finfo(complex64)`` is float32's), ``iinfo`` an
integer one, bool neither.  A tensor is not a dtype (NumPy's ``dtype()`` would read its ``.dtype``).
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from ..backend import AnsweringType, as_dtype, get_default_dtype, host_numpy
from ..tensor import Tensor


@dataclasses.dataclass(frozen=True)
class FloatInfo(metaclass=AnsweringType):
    """``torch.finfo``'s answer: Python numbers (NumPy's ``finfo`` gives NumPy scalars, which
    ``json.dumps`` refuses) and the dtype's name as a string."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


@dataclasses.dataclass(frozen=True)
class IntInfo(metaclass=AnsweringType):
    """``torch.iinfo``'s answer: ``bits``, ``min`` and ``max`` as Python ints, the dtype's name."""

    bits: int
    min: int
    max: int
    dtype: str

    def __repr__(self) -> str:  # PyTorch's: ``%g`` of each limit, on one line
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _float_info(type: Any = None) -> FloatInfo:  # noqa: A002  (PyTorch's keyword)
    """Limits of a float dtype (the default dtype for None; a complex one's parts): ``eps``, ``max``,
    ``min``, ``tiny``, ``smallest_normal``, ``resolution``, ``bits`` (``torch.finfo``).
    ``resolution`` is ``10 ** -precision`` as a Python float (PyTorch's 1e-06 for float32, where
    NumPy's is that number rounded to float32)."""
    dt = get_default_dtype() if type is None else _dtype_of("finfo", type)
    if dt.kind not in "fc":
        raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
    f = host_numpy.finfo(dt)
    return _made(FloatInfo, int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.tiny),
                 float(f.smallest_normal), 10.0 ** -int(f.precision), f.dtype.name)


def _int_info(type: Any) -> IntInfo:  # noqa: A002  (PyTorch's keyword)
    """Limits of an integer dtype: ``bits``, ``min``, ``max`` and ``dtype`` (``torch.iinfo``)."""
    dt = _dtype_of("iinfo", type)
    if dt.kind == "b":
        raise TypeError(f"torch.{dt.name} is not supported by torch.iinfo")
    if dt.kind not in "iu":
        raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
    i = host_numpy.iinfo(dt)
    return _made(IntInfo, int(i.bits), int(i.min), int(i.max), dt.name)


def _made(cls: type, *fields: Any) -> Any:
    """An answer from its fields (the dataclass's own constructor, which calling the type bypasses)."""
    return type.__call__(cls, *fields)


FloatInfo.answer = staticmethod(_float_info)  # (calling the type asks about a dtype: AnsweringType)
IntInfo.answer = staticmethod(_int_info)
#: The public names: the types themselves (``mg.finfo(mg.float32)``; ``isinstance(x, mg.finfo)``).
finfo, iinfo = FloatInfo, IntInfo
finfo.__signature__ = inspect.signature(_float_info)  # (the call's, not the fields': for help() and the docs)
iinfo.__signature__ = inspect.signature(_int_info)
finfo.__doc__ = _float_info.__doc__ + "\n\n" + FloatInfo.__doc__
iinfo.__doc__ = _int_info.__doc__ + "\n\n" + IntInfo.__doc__


def _dtype_of(function: str, type: Any) -> Any:  # noqa: A002
    if type is None or isinstance(type, Tensor):
        raise TypeError(f"{function}(): argument 'type' (position 1) must be torch.dtype, not {_type_name(type)}")
    return as_dtype(type)


def _type_name(obj: Any) -> str:
    return "NoneType" if obj is None else type(obj).__name__


def typename(obj: Any) -> str:
    """``torch.typename``: a tensor's type string (``x.type()``, ``"minigrad_ckpt.DoubleTensor"`` where
    PyTorch's says ``"torch.DoubleTensor"``), else the object's ``module.qualname`` -- without
    ``builtins.`` (``typename(3)`` is ``"int"``); an instance is named by its class."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
