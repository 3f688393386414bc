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
  has the input's shape or a broadcast of it (the engine sums it down to the
  input's shape) and may have a wider dtype (the engine casts it back).
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
  its ``backward`` applied to the tangent; a linear op (:class:`LinearOp`)
  gets ``jvp`` from its ``forward``.  The battery checks every ``jvp``
  against finite differences and against ``backward``: ``<u, J v> == <J^T u, v>``.
* What backward may read is declared: ``save_inputs`` (``True``, ``False`` or
  a tuple of input positions) and ``save_output``.  Values not declared arrive
  as ``None``, and are not kept alive by the tape (the rule is applied once,
  where the tape records the op; checkpoint replay re-fills the same slots).
* Static attributes (an axis, a stride, a dropout key) are declared as class
  annotations and passed as constructor keywords::

      class Sum(Op):
          axes: tuple[int, ...]
          keepdims: bool

  An op instance is plain data that can be printed, compared and serialized.
  Constructing one with a missing or unknown attribute, or one whose value is
  not of the declared type, is a ``TypeError`` that names the op and its
  fields.  ``Op(**attrs)`` checks the names and the outer type of each value
  (it runs once per call, so it must be cheap); :meth:`Op.from_attrs` checks
  everything, element types of tuples included -- the snapshot decoder builds
  ops from untrusted files through it.  An annotation with a value
  (``keepdims: bool = False``) makes the attribute optional.
  Annotations marked ``ClassVar`` (like ``save_inputs`` below) are settings
  of the class, not attributes of an instance.  Types understood:
  ``int``, ``float`` (an int is accepted too), ``bool``, ``str``, ``None``,
  unions (``int | None``), ``tuple[T, ...]`` and ``tuple[T1, T2]``, ``slice``,
  ``EllipsisType``, :data:`Array` (an array of the op's device) and ``Any``.
* Forward and backward never mutate their arguments.
* Complex numbers: an op whose ``backward`` multiplies by the derivative
  ``f'(z)`` as for reals needs nothing more -- the engine conjugates
  around it for complex outputs (:attr:`Op.holomorphic`, docs/complex.md);
  ``jvp`` is ``f'(z) t`` for both.

The engine checks the contract where a user's op breaks it (the first few
backward calls of each op class are validated; see
:meth:`Op.check_backward_result`): the number of gradients, their shapes, a
read of an input that was not declared, a name outside the array namespace.
``minigrad_ckpt.testing.check_op`` runs the whole battery on an op.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

__all__ = ["Op", "LinearOp", "FunctionOp", "registry", "get_op", "add_tangents", "Array", "Index", "MissingJvpError"]

registry: dict[str, type[Op]] = {}


class Array:
    """Annotation marker: an attribute that is an array of the op's device (an index
    array, a mask).  Never instantiated; any object with ``shape`` and ``dtype`` passes."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Array:
        raise TypeError("Array is an annotation marker, not a class to instantiate")


#: A normalized index (``x[index]``): ints, slices, ``None``, ``...`` and index arrays.
Index = tuple[int | slice | None | types.EllipsisType | Array, ...]

#: The ops :meth:`Op.shared` has built, by (class, attribute values), and how many it keeps.
_SHARED: dict[tuple, Op] = {}
_SHARED_LIMIT = 4096
_SHAREABLE = frozenset({int, bool, str, tuple, type(None)})  # (checked per call: the cache compares by ==)

#: How many backward calls of each op class the engine validates (shapes, count).
CONTRACT_CHECKS = 3

_RESERVED = frozenset({"forward", "backward", "reference", "jvp", "attrs", "from_attrs", "fields",
                       "check_backward_result", "explain_error"})



class MissingJvpError(NotImplementedError):
    """Forward mode reached an op without a ``jvp`` rule; ``op`` is the op's name (gradcheck
    reports such an op as not checked in forward mode, rather than failing, unless asked for it)."""

    def __init__(self, op: str) -> None:
        super().__init__(
            f"{op} has no jvp rule, so forward mode cannot run it: add a jvp method beside backward "
            f"(docs/ops.md), or check reverse mode only with gradcheck(..., modes=('rev',))")
        self.op = op

class Op:
    """Base class of every recorded operation (see the module docstring)."""

    #: Registry key and the name printed on the tape (the class name by default).
    name: ClassVar[str]
    #: backward reads the inputs (True, False, or the positions it reads) / the output.
    save_inputs: ClassVar[bool | tuple[int, ...]] = True
    save_output: ClassVar[bool] = False
    #: A binary op with a Python number as one operand (``x * 2``): that operand's position ->
    #: whether backward still reads ``(the output, the other operand)`` (a number gets no
    #: gradient, so what only its partial would read is not kept).  None: ``save_inputs`` and
    #: ``save_output`` hold for every call.
    reads_beside_number: ClassVar[dict[int, tuple[bool, bool]] | None] = None
    #: A binary op whose backward takes no partial for an operand when the other one is not
    #: kept (``None``): beside a Tensor that needs no gradient (``x * mask``) the tape keeps
    #: that Tensor only, as beside a number.
    drops_beside_constant: ClassVar[bool] = False
    #: For each input, the inputs its gradient reads (``MatMul``'s: the other one's).  An input that
    #: no needed gradient reads (``w`` in ``x @ w`` when only ``w`` needs one) is still saved --
    #: backward may read its shape -- but a later in-place write into it is not refused: it changes
    #: nothing backward computes, as PyTorch's (``load_state_dict`` between forward and backward).
    #: None: every saved input is checked.
    grad_reads: ClassVar[tuple[tuple[int, ...], ...] | None] = None
    #: The union of ``grad_reads`` (made from it for each op class whose ``grad_reads`` is a tuple):
    #: what backward reads when every input needs its gradient.
    read_by_some_gradient: ClassVar[frozenset[int] | None] = None
    #: False for ops with no derivative (comparisons, argmax): never recorded.
    differentiable: ClassVar[bool] = True
    #: The output may be a view of input 0, so it shares its version stamp.
    is_view: ClassVar[bool] = False
    #: ``backward`` is the real formula ``g * f'(z)`` (true of every op built from
    #: sums, products, exp, matmul, indexing, ...).  For a complex output the engine
    #: runs it as ``conj(backward(conj(g)))``, which is ``g * conj(f'(z))``: the
    #: gradient convention of docs/complex.md, with no complex code in the op.
    #: Ops whose backward handles complex numbers itself (``real``, ``abs`` of a
    #: complex number, the Fourier transforms) set this False.
    holomorphic: ClassVar[bool] = True
    #: backward accepts ``needs_input_grad=(bool, ...)`` and skips unneeded work
    #: (a matmul need not compute the gradient of a constant input batch).
    uses_needs_input_grad: ClassVar[bool] = False
    #: ``backward`` is a zero array of input 0's shape (``in_shape``) holding ``g`` at ``self.index``, a
    #: basic index (``GetItem``): the backward pass adds ``g`` into a gradient the input already has
    #: instead, where no one else sees that array (``backward._add_at``: unbinding T steps is O(T), not O(T^2)).
    places_gradient_at_index: ClassVar[bool] = False
    #: ``backward`` is called even when no gradient reached the node (a custom Function, whose
    #: user-written backward PyTorch calls with zeros, or with None after ``set_materialize_grads(False)``):
    #: the pass calls it with zeros and ``nothing_reached(True)`` around the call.
    runs_without_gradient: ClassVar[bool] = False
    #: Derived per class: the backward pass may call ``backward`` on its shortest path (neither of the two
    #: above) -- one attribute its loop reads per node, not two.
    backward_inline: ClassVar[bool] = True
    #: Abstract helper classes set this so they are not registered.
    abstract: ClassVar[bool] = True
    #: The declared static attributes: name -> type (from the class annotations).
    fields: ClassVar[dict[str, Any]] = {}
    #: Optional attributes and their defaults (annotations with a value).
    _defaults: ClassVar[dict[str, Any]] = {}
    #: name -> the classes ``Op(**attrs)`` accepts for it (None: anything), for the cheap check.
    _outer: ClassVar[dict[str, tuple[type, ...] | None]] = {}
    #: Backward calls of this class still to validate: each class starts with
    #: CONTRACT_CHECKS, and the backward pass checks and counts down while it is
    #: not 0 (see check_backward_result) -- one attribute read per node after that.
    contract_checks_left: ClassVar[int] = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _declare_fields(cls)
        cls.contract_checks_left = CONTRACT_CHECKS
        cls.backward_inline = not cls.uses_needs_input_grad and not cls.places_gradient_at_index
        # the inputs some gradient reads when every one is needed (``Linear``: x and w, not b); an op
        # whose grad_reads is a property (einsum's, by its subscripts) has it made at each record
        reads = cls.grad_reads
        cls.read_by_some_gradient = frozenset().union(*reads) if isinstance(reads, tuple) else None
        if cls.__dict__.get("abstract", False):
            return
        cls.abstract = False
        cls.name = cls.__dict__.get("name", cls.__name__)
        old = registry.get(cls.name)
        if old is not None and old is not cls:
            if (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
                raise TypeError(
                    f"op name {cls.name!r} is already registered by {old.__module__}.{old.__qualname__}; "
                    f"give {cls.__name__} a registry name of its own: name = \"My{cls.name}\""
                )
            # the same class defined again (a notebook cell run twice): the new one replaces it
        registry[cls.name] = cls

    def __init__(self, **attrs: Any) -> None:
        outer = self._outer
        if attrs.keys() != outer.keys():
            attrs = _complete(type(self), attrs)
        for k, v in attrs.items():
            t = outer[k]
            if t is not None and not isinstance(v, t):
                raise _type_error(type(self), k, v)
        self.__dict__.update(attrs)

    @classmethod
    def shared(cls, *values: Any) -> Op:
        """The op with the attribute values ``values``, in the order ``fields`` declares
        them (``Reshape.shared(shape, in_shape)``), built once and then reused.

        An op is an immutable value, so one object can stand in every node with the same
        attributes; building one (keywords, type checks) costs ~0.6 us, as much as NumPy
        takes for a small reshape, and a lookup ~0.1 us.  The cache compares values by
        ``==``, so it takes only values for which equal means the same op: Python ints,
        bools, strings, None and tuples of those.  A float is refused (``-0.0 == 0.0``, and
        NaN equals nothing): build an op with float attributes with its constructor."""
        if not _SHAREABLE.issuperset(map(type, values)):
            raise TypeError(f"{cls.__name__}.shared takes ints, bools, strings, None and tuples of them, "
                            f"got {values!r}: build this op with {cls.__name__}(...)")
        key = (cls, values)
        op = _SHARED.get(key)
        if op is None:
            if len(values) != len(cls.fields):
                raise TypeError(f"{cls.__name__}.shared takes {len(cls.fields)} values "
                                f"({', '.join(cls.fields)}), got {len(values)}")
            if len(_SHARED) >= _SHARED_LIMIT:
                _SHARED.clear()  # a bound: a program of ever new shapes does not grow it
            op = _SHARED[key] = cls(**dict(zip(cls.fields, values)))
        return op

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any]) -> Op:
        """Build an op from a mapping of attributes, checking every name and every
        value against the declared types in full (element types of tuples too).

        This is the constructor for attributes from outside the program (the
        snapshot decoder): whatever it accepts, ``forward`` and ``backward``
        can read.  Raises ``TypeError`` naming the op, the attribute and the
        declared fields.
        """
        if not isinstance(attrs, Mapping) or not all(isinstance(k, str) for k in attrs):
            raise TypeError(f"{cls.__name__}: attributes must be a mapping of names to values")
        full = _complete(cls, dict(attrs))
        for k, v in full.items():
            if not _conforms(v, cls.fields[k]):
                raise _type_error(cls, k, v)
        return cls(**full)

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
        raise MissingJvpError(self.name)

    def reference(self, np: Any, *inputs: Any) -> Any:
        """The same computation written plainly in NumPy (the test oracle)."""
        raise NotImplementedError

    # ------------------------------------------------------------ the contract
    def check_backward_result(self, grads: tuple, in_shapes: Sequence[Any], out_shape: tuple) -> None:
        """Check what ``backward`` returned against the contract (the backward pass calls
        this for the first ``contract_checks_left`` backward calls of each op class, so a
        user's op that breaks the contract fails with a message naming it, even if its
        author never runs gradcheck).

        ``in_shapes`` has the shape of each input that wants a gradient and None
        for the others (constants); ``out_shape`` is the forward output's shape.
        """
        if len(grads) != len(in_shapes):
            n = len(in_shapes)
            raise RuntimeError(
                f"{self.name}.backward returned {len(grads)} gradient{'s' if len(grads) != 1 else ''} "
                f"for {n} input{'s' if n != 1 else ''}: expected {n} gradients, got {len(grads)} "
                f"(one per input, in order; None for an input that gets no gradient)"
            )
        for i, (gi, shape) in enumerate(zip(grads, in_shapes)):
            if gi is None or shape is None:
                continue
            shape = tuple(shape)
            if not hasattr(gi, "shape") or not hasattr(gi, "dtype"):
                raise RuntimeError(
                    f"{self.name}.backward returned a {type(gi).__name__} as the gradient of input {i}, "
                    f"where an array of the input's shape {shape} is due (e.g. xp.full_like(x, value) "
                    f"or g * ...)"
                )
            gshape = tuple(gi.shape)
            if gshape != shape and not _broadcast_of(shape, gshape, tuple(out_shape)):
                what = "a 0-d (scalar) gradient" if not gshape else f"a gradient of shape {gshape}"
                raise RuntimeError(
                    f"{self.name}.backward returned {what} for input {i} of shape {shape}: a gradient "
                    f"must have the input's shape or be a broadcast of it (to the output's shape "
                    f"{tuple(out_shape)})"
                )

    def explain_error(self, exc: BaseException, method: str, xp: Any,
                      saved: tuple | None = None) -> BaseException | None:
        """A clearer error for ``exc``, raised inside this op's ``forward`` or ``backward``,
        when it comes from a broken contract -- or None to let ``exc`` through as it is.

        Two mistakes are recognised: a name the namespace ``xp`` does not offer,
        and (in backward) reading an input or the output that the op did not
        declare in ``save_inputs`` / ``save_output`` (it arrives as None).
        """
        if isinstance(exc, AttributeError) and getattr(exc, "obj", None) is xp and exc.name:
            return AttributeError(
                f"{self.name}.{method} uses xp.{exc.name}, which the {_namespace_kind(xp)} does not "
                f"offer{_suggest(exc.name, xp)}. An op may use only the names listed in "
                f"minigrad_ckpt.backend.LIBRARY_FUNCTIONS, the registered kernels "
                f"(backend.register_kernel) and the adapter methods (docs/ops.md, 'The shape of an op')"
            )
        if method != "backward" or saved is None or not isinstance(exc, (TypeError, AttributeError)):
            return None
        if "NoneType" not in str(exc) and "None" not in str(exc):
            return None
        which = self.save_inputs
        undeclared = [] if which is True else [
            i for i in range(len(saved) - 1) if which is False or i not in which]
        missing_out = not self.save_output
        if not undeclared and not missing_out:
            return None
        parts, fixes = [], []
        if missing_out:
            parts.append("the output")
            fixes.append("save_output = True")
        if undeclared:
            parts.append("input" + ("s " if len(undeclared) > 1 else " ") + ", ".join(map(str, undeclared)))
            every = tuple(range(len(saved) - 1))
            fixes.append("save_inputs = True" if len(every) == 1 else
                         f"save_inputs = (...) with the positions it reads, or True for all {every}")
        them = "them" if len(undeclared) + missing_out > 1 else "it"
        return type(exc)(
            f"{self.name}.backward failed with {type(exc).__name__}: {exc} -- it gets None for "
            f"{' and '.join(parts)}, because {self.name} does not declare that backward reads {them}. "
            f"Declare what backward reads on the class: {'; '.join(fixes)}"
        )

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{self.name}({attrs})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and _attrs_equal(self.__dict__, other.__dict__)

    def __hash__(self) -> int:
        return hash(type(self))


# ---------------------------------------------------------------------------
# Attribute declarations
# ---------------------------------------------------------------------------
def _declare_fields(cls: type[Op]) -> None:
    """Collect ``cls``'s attribute annotations (its own and inherited), resolve their types."""
    own = cls.__dict__.get("__annotations__", {})
    fields = dict(cls.fields)
    defaults = dict(cls._defaults)
    if own:
        try:
            hints = typing.get_type_hints(cls)
        except Exception as exc:  # an annotation naming something the module does not define
            raise TypeError(f"{cls.__qualname__}: cannot resolve its attribute annotations: {exc}") from None
        for k in own:
            tp = hints.get(k)
            if typing.get_origin(tp) is ClassVar or k in Op.__annotations__:
                continue
            if k in _RESERVED or k.startswith("_"):
                raise TypeError(f"{cls.__qualname__}: {k!r} cannot be an op attribute "
                                f"(it is a method of Op or a private name)")
            fields[k] = tp
            if k in cls.__dict__:
                defaults[k] = cls.__dict__[k]
                delattr(cls, k)  # the value lives on instances, as for every other attribute
            else:
                defaults.pop(k, None)
    cls.fields = fields
    cls._defaults = defaults
    cls._outer = {k: _outer_types(tp) for k, tp in fields.items()}


def _outer_types(tp: Any) -> tuple[type, ...] | None:
    """The classes a value of type ``tp`` may be an instance of (None: no cheap check)."""
    if tp is Any or tp is Array:
        return None
    if tp is None or tp is type(None):
        return (type(None),)
    if tp is float:
        return (float, int)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        out: list[type] = []
        for arg in typing.get_args(tp):
            o = _outer_types(arg)
            if o is None:
                return None
            out.extend(o)
        return tuple(out)
    if origin is not None:
        return (origin,)
    if isinstance(tp, type):
        return (tp,)
    return None


def _conforms(v: Any, tp: Any) -> bool:
    """True if ``v`` is a value of the declared type ``tp`` (deep: tuple elements too)."""
    if tp is Any:
        return True
    if tp is Array:
        return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, type)
    if tp is None or tp is type(None):
        return v is None
    if tp is bool:
        return type(v) is bool
    if tp is int:
        return isinstance(v, int) and type(v) is not bool
    if tp is float:
        return isinstance(v, (int, float)) and type(v) is not bool
    if tp is slice:
        return type(v) is slice and all(p is None or (isinstance(p, int) and type(p) is not bool)
                                        for p in (v.start, v.stop, v.step))
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(v, a) for a in typing.get_args(tp))
    if origin is tuple:
        if type(v) is not tuple:
            return False
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(e, args[0]) for e in v)
        return len(v) == len(args) and all(_conforms(e, a) for e, a in zip(v, args))
    if isinstance(tp, type):
        return isinstance(v, tp)
    return False


def _type_name(tp: Any) -> str:
    if tp is Array:
        return "Array"
    if tp is type(None):
        return "None"
    if tp is types.EllipsisType:
        return "EllipsisType"
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        return tp.__name__
    return str(tp).replace("typing.", "").replace("minigrad_ckpt.ops.base.", "")


def _signature(cls: type[Op]) -> str:
    if not cls.fields:
        return f"{cls.__name__} takes no attributes"
    parts = []
    for k, tp in cls.fields.items():
        parts.append(f"{k}: {_type_name(tp)}" + (f" = {cls._defaults[k]!r}" if k in cls._defaults else ""))
    return f"{cls.__name__} takes {', '.join(parts)}"


def _complete(cls: type[Op], attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with defaults filled in; a TypeError naming the op for missing or unknown names."""
    unknown = [k for k in attrs if k not in cls.fields]
    missing = [k for k in cls.fields if k not in attrs and k not in cls._defaults]
    if unknown or missing:
        what = []
        if missing:
            what.append(f"missing attribute{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}")
        if unknown:
            what.append(f"unknown attribute{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}")
        raise TypeError(f"{cls.__name__}: {'; '.join(what)} ({_signature(cls)})")
    if len(attrs) < len(cls.fields):
        attrs = {**{k: v for k, v in cls._defaults.items() if k not in attrs}, **attrs}
    return attrs


def _type_error(cls: type[Op], k: str, v: Any) -> TypeError:
    return TypeError(f"{cls.__name__}: attribute {k!r} must be {_type_name(cls.fields[k])}, "
                     f"got {v!r} ({type(v).__name__}) ({_signature(cls)})")


def _broadcast_of(shape: tuple, gshape: tuple, out_shape: tuple) -> bool:
    """True if ``gshape`` is ``shape`` broadcast along axes where the output has that size.

    Aligned from the right, every axis where the gradient differs from the
    input (an axis the input lacks, or has as 1) must be 1 or the output's size
    there: a matmul's batch axes qualify, a made-up leading axis does not.
    """
    if len(gshape) < len(shape):
        return False
    for k in range(1, len(gshape) + 1):
        gd = gshape[-k]
        sd = shape[-k] if k <= len(shape) else None
        if gd == sd:
            continue
        if sd not in (None, 1):
            return False
        if gd != 1 and (k > len(out_shape) or out_shape[-k] != gd):
            return False
    return True


def builds_graph(xp: Any) -> bool:
    """True when ``xp`` is the differentiable namespace: a backward or jvp called with it works on
    Tensors and is itself recorded (``create_graph``, nested forward mode), so a rule may take a
    slower road whose derivative is exact where the array road's is not (the array namespaces are
    objects, the differentiable one a module)."""
    return isinstance(xp, types.ModuleType)


def _namespace_kind(xp: Any) -> str:
    return ("differentiable namespace (minigrad_ckpt.functional, used when create_graph=True)"
            if builds_graph(xp) else f"array namespace ({xp!r})")


def _suggest(name: str, xp: Any) -> str:
    import difflib

    close = difflib.get_close_matches(name, [n for n in dir(xp) if not n.startswith("_")], n=2)
    return f" (did you mean {' or '.join('xp.' + c for c in close)}?)" if close else ""


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


class LinearOp(Op):
    """An op that is a linear map of its one input (reshape, transpose, sum, a Fourier transform):
    its tangent is the same map applied to the input's tangent, so ``jvp`` is ``forward``.

    A subclass writes ``forward`` with the names ``jvp`` may use (``xp.<function>``, operators
    and the array methods of the contract above), since forward mode runs it on tangents.
    """

    abstract = True

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else self.forward(xp, t)


class FunctionOp(Op):
    """An op whose ``forward`` is one function of the array namespace, named by ``fn``:
    ``forward`` is ``xp.<fn>(*inputs, **keywords)`` and ``reference`` is NumPy's function of
    that name, called the same way (a class may still write either itself, as an op whose
    reference is computed otherwise does).

    ``keywords`` names the op's attributes passed to the function by keyword (``axis``,
    ``decimals``).  ``ignore`` lists the floating-point errors ``forward`` ignores (NumPy's
    ``errstate``), where the function itself is infinite or NaN: ``("divide", "invalid")``
    for ``log``.
    """

    abstract = True
    fn: ClassVar[str] = ""
    keywords: ClassVar[tuple[str, ...]] = ()
    ignore: ClassVar[tuple[str, ...]] = ()
    _errstate: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._errstate = dict.fromkeys(cls.ignore, "ignore")

    def forward(self, xp, *inputs):
        kw = {name: getattr(self, name) for name in self.keywords} if self.keywords else {}
        if self._errstate:
            with xp.errstate(**self._errstate):
                return getattr(xp, self.fn)(*inputs, **kw)
        return getattr(xp, self.fn)(*inputs, **kw)

    def reference(self, np, *inputs):
        return getattr(np, self.fn)(*inputs, **{name: getattr(self, name) for name in self.keywords})
