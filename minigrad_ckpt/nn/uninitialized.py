"""PyTorch's uninitialized parameters and buffers: a weight whose shape is not known yet.

A lazy layer (``nn.LazyLinear(10)``, :mod:`.lazy_layers`) is built before it has seen an input, so its
weight cannot have a shape.  It holds an :class:`UninitializedParameter` instead: a ``Parameter``
(``module.parameters()`` lists it, an optimizer built now keeps it) holding an empty array of its
dtype and device, which ``.to(...)`` converts like any other.  Its first input gives the shape, and
:meth:`~UninitializedTensorMixin.materialize` turns the *same object* into a plain ``Parameter`` of
that shape (PyTorch swaps ``__class__`` to ``cls_to_become``; here ``Tensor._become``, the core's one
way to do it), so the optimizer built earlier steps it.

Until then it refuses to be used, in PyTorch's words: its methods (``numel``, ``sum``, ``zero_``,
an operator, ``len``) are a ValueError "Attempted to use an uninitialized parameter in ...", its
``shape`` a RuntimeError; its properties (``dtype``, ``device``, ``requires_grad``) and the methods
that only convert it (``to``, ``float``, ``cpu``, ``size``) answer, as PyTorch's allow-list says.
(A function of the engine given one, ``mg.matmul(x, p)``, is not intercepted as PyTorch's
``__torch_function__`` intercepts it: it sees the empty array.)
"""

from __future__ import annotations

from typing import Any

from ..creation import empty
from ..tensor import Tensor
from .module import Parameter

__all__ = ["UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

#: PyTorch's ``_allowed_methods``: what an uninitialized tensor still does (convert, tell its size)
_ALLOWED = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                      "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize", "share_memory_",
                      "cls_to_become"})

#: The operators and conversions refused as PyTorch's ``__torch_function__`` refuses them (Python
#: looks them up on the class, past ``__getattribute__``)
_REFUSED_OPERATORS = (
    "__len__", "__iter__", "__reversed__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__bool__",
    "__float__", "__int__", "__complex__", "__index__", "__array__", "__array_ufunc__", "__dlpack__", "__neg__",
    "__pos__", "__abs__", "__invert__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
    *(f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
                                 "xor", "lshift", "rshift") for p in ("", "r", "i")),
)


def _refusal(cls: type, what: str) -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized parameter in {what}. This error happens when you are using a "
        f"`LazyModule` or explicitly manipulating `mg.nn.parameter.{cls.__name__}` objects. When using "
        "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling torch "
        "functions")


class UninitializedTensorMixin:
    """What :class:`UninitializedParameter` and :class:`UninitializedBuffer` share: ``materialize``
    and the refusals of use before it (PyTorch's ``UninitializedTensorMixin``)."""

    __slots__ = ()  # (no layout of its own: the instance can take its ``cls_to_become``'s class)
    cls_to_become: type = Tensor

    def __getattribute__(self, name: str) -> Any:
        """A public method not on PyTorch's allow-list is refused when called (``p.numel()``); a property
        (``dtype``, ``device``, ``requires_grad``, ``grad``) answers, as PyTorch's descriptors do.  The
        engine's own fields and helpers (``_``-names) are its business."""
        if name[0] != "_" and name not in _ALLOWED:
            attr = getattr(type(self), name, None)
            if callable(attr) and not isinstance(attr, property):
                return _refuser(f"<method {name!r} of 'Tensor' objects>").__get__(self)
        return object.__getattribute__(self, name)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Become a tensor of ``shape`` (its ``cls_to_become``: a ``Parameter``, or a plain ``Tensor``
        for a buffer) on ``device`` with ``dtype`` -- the ones it holds unless given -- keeping this
        identity.  The values are unspecified (zeros here): a lazy layer's ``reset_parameters`` fills them."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self._become(self.cls_to_become, empty(tuple(shape), dtype=dtype, device=device))

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self) -> Any:
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, tuple]:
        """PyTorch's: pickled as the class and ``requires_grad`` alone (no values to keep)."""
        return type(self), (self.requires_grad,)


def _refuser(what: str) -> Any:
    """A method that raises PyTorch's refusal naming ``what``, whatever it is called with."""
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _refusal(type(self), what)

    return refused


for _name in _REFUSED_OPERATORS:
    setattr(UninitializedTensorMixin, _name, _refuser(f"<function Tensor.{_name}>"))


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an :class:`UninitializedParameter` or :class:`UninitializedBuffer`."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (a lazy layer's weight); ``device`` and ``dtype`` are
    the ones it will be materialized with, unless ``.to(...)`` changes them first."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(empty(0, dtype=dtype, device=device), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy batch norm's running statistics); it registers as a
    buffer when assigned to a module (``persistent`` as ``nn.Buffer``'s) and materializes as a ``Tensor``."""

    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        self._init_data(empty(0, dtype=dtype, device=device), requires_grad=requires_grad)
        self.__dict__.update(persistent=persistent, _is_buffer=True)
