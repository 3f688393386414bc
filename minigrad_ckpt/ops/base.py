"""The op base class and the op registry.

An op is one small class: ``forward`` and ``backward`` side by side, plus a
NumPy ``reference`` that the test battery compares ``forward`` against::

    class Mul(Op):
        def forward(self, xp, x, y):
            return x * y

        def backward(self, xp, g, out, x, y):
            return g * y, g * x

        def jvp(self, xp, tangents, out, x, y):
            tx, ty = tangents
            return add_tangents(None if tx is None else tx * y, None if ty is None else x * ty)

        def reference(self, np, x, y):
            return np.multiply(x, y)

The contract, in full:

* ``forward(xp, *inputs)`` gets arrays (or Python scalars for constant
  operands) and returns one array.  ``xp`` is the array namespace of the
  inputs' device (:mod:`minigrad_ckpt.backend`).
* ``backward(xp, g, out, *inputs)`` gets the upstream gradient ``g``, the
  forward output and the inputs, and returns one gradient per input (a tuple
  for several inputs; ``None`` where an input gets no gradient).  A gradient
  may have the broadcast shape or a wider dtype: the engine sums it down to
  the input's shape and casts it to the input's dtype.
* ``backward`` is written *only* with ``xp.<function>``, operators, the
  array methods ``sum``, ``max``, ``reshape``, ``transpose``, ``astype`` and
  the attributes ``T``, ``shape``, ``ndim`` (methods skip NumPy's per-call
  Python wrappers, which matter for small arrays).  When a
  gradient of a gradient is wanted (``create_graph=True``) the engine calls the
  same ``backward`` with Tensors and with ``xp`` set to the differentiable
  namespace :mod:`minigrad_ckpt.functional.namespace`, which mirrors those names -- so
  higher-order gradients need no second implementation.
* ``jvp(xp, tangents, out, *inputs)`` is forward mode (:mod:`minigrad_ckpt.func`):
  ``tangents`` has one entry per input -- the input's tangent (same shape),
  or ``None`` for an input without one (a constant, or one the tangent does
  not move) -- and it returns the output's tangent ``J @ tangents``, or
  ``None`` if it is zero.  It gets every input and the output, whatever
  backward saves (forward mode keeps no tape).  Like a gradient, the
  tangent may have a shape that broadcasts to the output's or a wider
  dtype: the engine broadcasts and casts it.  It follows the same namespace
  rules as ``backward`` and is called with Tensors and the differentiable
  namespace when its result must itself be differentiated (``mg.func.hessian``,
  nested ``jvp``).  :func:`add_tangents` sums the terms that are not ``None``.
  An op whose Jacobian is symmetric (elementwise ops, softmax) can return
  its ``backward`` applied to the tangent.  The battery checks every ``jvp``
  against finite differences and against ``backward``: ``<u, J v> == <J^T u, v>``.
* What backward may read is declared: ``save_inputs`` and ``save_output``.
  Values not declared arrive as ``None``, and are not kept alive by the tape.
* Static attributes (an axis, a stride, a dropout key) are constructor
  keywords, kept on the instance; an op instance is plain data that can be
  printed and serialized.
* Forward and backward never mutate their arguments.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Op", "registry", "get_op", "add_tangents"]

registry: dict[str, type[Op]] = {}


class Op:
    """Base class of every recorded operation (see the module docstring)."""

    #: Registry key and the name printed on the tape (the class name by default).
    name: ClassVar[str]
    #: backward reads the inputs / the output.
    save_inputs: ClassVar[bool] = True
    save_output: ClassVar[bool] = False
    #: False for ops with no derivative (comparisons, argmax): never recorded.
    differentiable: ClassVar[bool] = True
    #: The output may be a view of input 0, so it shares its version stamp.
    is_view: ClassVar[bool] = False
    #: backward accepts ``needs_input_grad=(bool, ...)`` and skips unneeded work
    #: (a matmul need not compute the gradient of a constant input batch).
    uses_needs_input_grad: ClassVar[bool] = False
    #: True for ops whose second derivative the battery does not check.
    no_gradgrad: ClassVar[bool] = False
    #: Abstract helper classes set this so they are not registered.
    abstract: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("abstract", False):
            return
        cls.abstract = False
        cls.name = cls.__dict__.get("name", cls.__name__)
        if cls.name in registry and registry[cls.name] is not cls:
            raise TypeError(f"op name {cls.name!r} is registered twice")
        registry[cls.name] = cls

    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)

    @property
    def attrs(self) -> dict[str, Any]:
        """The static attributes this op was created with."""
        return dict(self.__dict__)

    def forward(self, xp: Any, *inputs: Any) -> Any:
        raise NotImplementedError

    def backward(self, xp: Any, g: Any, out: Any, *inputs: Any) -> Any:
        raise NotImplementedError

    def jvp(self, xp: Any, tangents: tuple, out: Any, *inputs: Any) -> Any:
        """The output's tangent from the inputs' (forward mode; see the module docstring)."""
        raise NotImplementedError(f"{self.name} has no jvp rule, so forward mode cannot run it")

    def reference(self, np: Any, *inputs: Any) -> Any:
        """The same computation written plainly in NumPy (the test oracle)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{self.name}({attrs})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and _attrs_equal(self.__dict__, other.__dict__)

    def __hash__(self) -> int:
        return hash(type(self))


def _attrs_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if hasattr(x, "shape") or hasattr(y, "shape"):
            if getattr(x, "shape", None) != getattr(y, "shape", None):
                return False
            if not bool((x == y).all()):
                return False
        elif x != y:
            return False
    return True


def add_tangents(*terms: Any) -> Any:
    """The sum of the terms that are not ``None`` (``None`` if every term is).

    A ``jvp`` rule adds one term per input that has a tangent; inputs without
    one contribute nothing and cost nothing.
    """
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


def get_op(name: str) -> type[Op]:
    """The op class registered under ``name`` (clear error for unknown names)."""
    try:
        return registry[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} is registered") from None
