"""PyTorch's ``torch.utils._pytree``: nested containers taken apart into leaves and put back together.

A *pytree* is a value built of containers -- list, tuple, dict, ``OrderedDict``, ``defaultdict``,
``deque``, named tuple, and any type given to :func:`register_pytree_node` -- with anything else at
the ends: the *leaves* (tensors, numbers, strings, ``None``)::

    leaves, spec = tree_flatten({"w": w, "b": [b1, b2]})   # [w, b1, b2], TreeSpec(dict, ['w', 'b'], ...)
    tree_unflatten([w * 2, b1, b2], spec)                  # {"w": w * 2, "b": [b1, b2]}
    tree_map(lambda t: t.detach(), batch)                  # the same structure, each leaf mapped

The module is private in PyTorch but imported by many libraries (x-transformers, HF accelerate and
transformers, torchvision's v2 transforms), so it answers as PyTorch 2.13's *Python* implementation
does: a dict's keys keep their insertion order (two dicts of the same keys in another order are
different structures), ``None`` is a leaf, a tuple subclass that is not registered is a leaf, and
the :class:`TreeSpec` prints, compares and hashes as PyTorch's.  The engine's ``mg.return_types``
classes are nodes of their own type, as PyTorch's C struct sequences are, and ``mg.Size`` is a node
that comes back a plain tuple, as ``torch.Size`` does in PyTorch 2.13.

``mg.func``'s transforms keep their own pytrees (``minigrad_ckpt/func/pytree.py``): they hold ``None``
as an empty container and refuse leaves that are not tensors, which is what a transform needs.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ..functional.return_types import BY_NAME as _RETURN_TYPES
from ..tensor import Size
from ..user_frame import stacklevel_outside_the_engine

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten",
    "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map",
    "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_", "tree_all", "tree_any",
    "tree_all_only", "tree_any_only", "treespec_dumps", "treespec_loads", "treespec_pprint",
    "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "is_structseq",
    "is_structseq_class", "is_structseq_instance",
]

Context = Any
PyTree = Any
FlattenFn = Callable[[PyTree], "tuple[list[Any], Context]"]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
DumpableContext = Any  # anything json.dumps takes
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
KeyPath = tuple[Any, ...]
FlattenWithKeysFn = Callable[[PyTree], "tuple[list[tuple[Any, Any]], Any]"]

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


# ---------------------------------------------------------------------------
# The registry of node types
# ---------------------------------------------------------------------------
class NodeDef(NamedTuple):
    """How one container type comes apart (``flatten_fn``) and back (``unflatten_fn``)."""

    type: type[Any]
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: FlattenWithKeysFn | None


class _SerializeNodeDef(NamedTuple):
    """How a node type's context is written to JSON by :func:`treespec_dumps`, and under which name."""

    typ: type[Any]
    serialized_type_name: str
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


#: Every container type, by type (libraries test ``cls in SUPPORTED_NODES``, as PyTorch's)
SUPPORTED_NODES: dict[type[Any], NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[type[Any], _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type[Any]] = {}


def register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """Make ``cls`` a container: ``flatten_fn(x)`` gives ``(children, context)`` and
    ``unflatten_fn(children, context)`` builds it back.

    ``context`` is whatever else rebuilding needs (a dict's keys); it must compare with ``==``,
    since two structures are equal when their contexts are.  ``flatten_with_keys_fn(x)`` gives
    ``([(key, child), ...], context)`` for :func:`tree_flatten_with_path`; ``serialized_type_name``
    (and, for a context that is not JSON, ``to_dumpable_context``/``from_dumpable_context``) for
    :func:`treespec_dumps`.  A type registered already is a ``ValueError``, as in PyTorch.
    """
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    to_str_fn: Callable | None = None,
    maybe_from_str_fn: Callable | None = None,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    """PyTorch's older private spelling (HF transformers calls it): a second registration of a type
    replaces the first with a warning instead of raising."""
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.", FutureWarning,
                      stacklevel=stacklevel_outside_the_engine())
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFn | None = None,
) -> None:
    if cls in SUPPORTED_NODES:
        warnings.warn(f"{cls} is already registered as pytree node. Overwriting the previous registration.",
                      stacklevel=stacklevel_outside_the_engine())
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None else serialized_type_name
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context, from_dumpable_context)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _deregister_pytree_node(cls: type[Any]) -> None:
    """Forget a registration (PyTorch's private helper; tests register and forget their types)."""
    del SUPPORTED_NODES[cls]
    serialized = SUPPORTED_SERIALIZED_TYPES.pop(cls)
    SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(serialized.serialized_type_name, None)


def register_dataclass(
    cls: type[Any],
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Register a dataclass (or a class built by passing its fields by name) as a container of its fields.

    A field that is ``None`` is no child: it comes back ``None`` (PyTorch's rule).
    """
    names = _dataclass_field_names(cls, field_names, drop_field_names or [])

    def flatten(obj: Any) -> tuple[list[Any], Context]:
        present = [n for n in names if getattr(obj, n) is not None]
        return [getattr(obj, n) for n in present], [present, [n for n in names if n not in present]]

    def unflatten(values: Iterable[Any], context: Context) -> Any:
        present, absent = context
        return cls(**dict(zip(present, values, strict=True)), **dict.fromkeys(absent))

    def flatten_with_keys(obj: Any) -> tuple[list[tuple[Any, Any]], Context]:
        values, (present, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(present, values, strict=True)], present

    _private_register_pytree_node(cls, flatten, unflatten, serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


def _dataclass_field_names(cls: type[Any], field_names: list[str] | None, dropped: list[str]) -> list[str]:
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
        return list(field_names)
    init_fields = {f.name for f in dataclasses.fields(cls) if f.init}
    if field_names is None:
        return [f.name for f in dataclasses.fields(cls) if f.init]
    init_fields.difference_update(dropped)
    if init_fields != set(field_names):
        message = "field_names does not include all dataclass fields.\n"
        if missing := init_fields - set(field_names):
            message += (f"Missing fields in `field_names`: {missing}. If you want to include these fields in "
                        "the pytree, please add them to `field_names`, otherwise please add them to "
                        "`drop_field_names`.\n")
        if unexpected := set(field_names) - init_fields:
            message += (f"Unexpected fields in `field_names`: {unexpected}. Please remove these fields, "
                        "or add them to `drop_field_names`.\n")
        raise ValueError(message)
    return list(field_names)


# ---------------------------------------------------------------------------
# Keys: where a leaf sits in its tree
# ---------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """The ``idx``-th item of a list, tuple or deque (printed ``[0]``)."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Any) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    """The value under ``key`` of a dict (printed ``['name']``)."""

    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """The attribute ``name`` of an object: a named tuple's field, a dataclass's (printed ``.name``)."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: KeyPath) -> str:
    """A key path as code would spell it: ``(MappingKey('a'), SequenceKey(0))`` -> ``['a'][0]``."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: KeyPath) -> Any:
    """The value at key path ``kp`` in ``obj``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ---------------------------------------------------------------------------
# Named tuples and struct sequences
# ---------------------------------------------------------------------------
def is_namedtuple(obj: object) -> bool:
    """Whether ``obj`` is a named tuple or a named tuple class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls: type) -> bool:
    """Whether ``cls`` is a tuple subclass with named tuple's fields, ``_make`` and ``_asdict``: not one of
    ``mg.return_types``, which answer as PyTorch's struct sequences (:func:`is_structseq_class`)."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and not _is_return_type(cls)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(field) is str for field in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj: object) -> bool:
    """Whether ``obj`` is an instance of a named tuple class."""
    return is_namedtuple_class(type(obj))


def is_structseq(obj: object) -> bool:
    """Whether ``obj`` is a struct sequence (``os.stat_result``, a ``mg.return_types`` result) or its class."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


_Py_TPFLAGS_BASETYPE = 1 << 10


def is_structseq_class(cls: type) -> bool:
    """Whether ``cls`` is CPython's struct sequence class, or one of the engine's ``mg.return_types``
    (PyTorch's ``torch.return_types`` are struct sequences; the engine's are named tuple subclasses)."""
    if _is_return_type(cls):
        return True
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, n, None), int)
                    for n in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq_instance(obj: object) -> bool:
    """Whether ``obj`` is an instance of a struct sequence class."""
    return is_structseq_class(type(obj))


def _is_return_type(cls: Any) -> bool:
    return isinstance(cls, type) and _RETURN_TYPES.get(cls.__name__) is cls


# ---------------------------------------------------------------------------
# The built-in containers
# ---------------------------------------------------------------------------
def _with_index_keys(flatten_fn: FlattenFn) -> FlattenWithKeysFn:
    def flatten_with_keys(node: Any) -> tuple[list[tuple[Any, Any]], Any]:
        values, context = flatten_fn(node)
        return [(SequenceKey(i), v) for i, v in enumerate(values)], context
    return flatten_with_keys


def _dict_flatten(d: dict) -> tuple[list[Any], Context]:
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d: dict) -> tuple[list[tuple[Any, Any]], Context]:
    values, keys = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(keys, values, strict=True)], keys


def _defaultdict_flatten(d: defaultdict) -> tuple[list[Any], Context]:
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_flatten_with_keys(d: defaultdict) -> tuple[list[tuple[Any, Any]], Context]:
    values, context = _defaultdict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(context[1], values, strict=True)], context


def _namedtuple_flatten_with_keys(d: Any) -> tuple[list[tuple[Any, Any]], Context]:
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d, strict=True)], type(d)


def _namedtuple_serialize(context: Context) -> DumpableContext:
    name = SUPPORTED_SERIALIZED_TYPES.get(context)
    if name is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't register a "
            "serializated_type_name. Please register using `_register_namedtuple`.")
    if name.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we couldn't find a "
            "serializated_type_name. Please register using `_register_namedtuple`.")
    return name.serialized_type_name


def _namedtuple_deserialize(dumpable_context: DumpableContext) -> Context:
    if dumpable_context not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {dumpable_context} "
                                  "because we couldn't find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable_context]


def _register_namedtuple(cls: type[Any], *, serialized_type_name: str) -> None:
    """Give a named tuple class a name for :func:`treespec_dumps` (it is a container already)."""
    _private_register_pytree_node(
        cls, lambda d: (list(d), type(d)), lambda values, context: context(*values),
        serialized_type_name=serialized_type_name, to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize, flatten_with_keys_fn=_namedtuple_flatten_with_keys)


def _defaultdict_serialize(context: Context) -> DumpableContext:
    factory, keys = context
    return {"default_factory_module": factory.__module__, "default_factory_name": factory.__qualname__,
            "dict_context": keys}


def _defaultdict_deserialize(dumpable_context: DumpableContext) -> Context:
    import importlib
    module = importlib.import_module(dumpable_context["default_factory_module"])
    return [getattr(module, dumpable_context["default_factory_name"]), dumpable_context["dict_context"]]


def _tuple_flatten(d: tuple) -> tuple[list[Any], Context]:
    return list(d), None


def _list_flatten(d: list) -> tuple[list[Any], Context]:
    return d, None


def _deque_flatten(d: deque) -> tuple[list[Any], Context]:
    return list(d), d.maxlen


def _register_builtins() -> None:
    register = _private_register_pytree_node
    register(tuple, _tuple_flatten, lambda values, context: tuple(values),
             serialized_type_name="builtins.tuple", flatten_with_keys_fn=_with_index_keys(_tuple_flatten))
    register(list, _list_flatten, lambda values, context: list(values),
             serialized_type_name="builtins.list", flatten_with_keys_fn=_with_index_keys(_list_flatten))
    register(dict, _dict_flatten, lambda values, keys: dict(zip(keys, values, strict=True)),
             serialized_type_name="builtins.dict", flatten_with_keys_fn=_dict_flatten_with_keys)
    register(namedtuple, lambda d: (list(d), type(d)), lambda values, cls: cls(*values),
             serialized_type_name="collections.namedtuple", to_dumpable_context=_namedtuple_serialize,
             from_dumpable_context=_namedtuple_deserialize, flatten_with_keys_fn=_namedtuple_flatten_with_keys)
    register(OrderedDict, _dict_flatten, lambda values, keys: OrderedDict(zip(keys, values, strict=True)),
             serialized_type_name="collections.OrderedDict", flatten_with_keys_fn=_dict_flatten_with_keys)
    register(defaultdict, _defaultdict_flatten,
             lambda values, context: defaultdict(context[0], zip(context[1], values, strict=True)),
             serialized_type_name="collections.defaultdict", to_dumpable_context=_defaultdict_serialize,
             from_dumpable_context=_defaultdict_deserialize, flatten_with_keys_fn=_defaultdict_flatten_with_keys)
    register(deque, _deque_flatten, lambda values, maxlen: deque(values, maxlen=maxlen),
             serialized_type_name="collections.deque", flatten_with_keys_fn=_with_index_keys(_deque_flatten))
    # a shape is a container of ints, rebuilt as a plain tuple (PyTorch 2.13's torch.Size registration)
    register(Size, _tuple_flatten, lambda values, context: tuple(values), serialized_type_name="minigrad_ckpt.Size",
             flatten_with_keys_fn=_with_index_keys(_tuple_flatten))
    for cls in _RETURN_TYPES.values():  # (as torch.return_types register themselves: without a serialized name)
        register(cls, _tuple_flatten, lambda values, context, cls=cls: cls(values),
                 flatten_with_keys_fn=_with_index_keys(_tuple_flatten))


_register_builtins()
STANDARD_DICT_TYPES: frozenset[type] = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES: frozenset[Any] = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})


def _get_node_type(tree: Any) -> Any:
    """The registry key of ``tree``: its type, or ``namedtuple`` for every named tuple class."""
    node_type = type(tree)
    if is_namedtuple_class(node_type):
        return namedtuple
    return node_type


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no registered container."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ---------------------------------------------------------------------------
# TreeSpec: a structure without its leaves
# ---------------------------------------------------------------------------
class TreeSpec:
    """The structure of a pytree: its root's ``type``, the ``context`` rebuilding it needs, and a spec
    for each child.  A leaf's spec has type ``None`` and prints as ``*``.

    Specs compare by type, context and children (``==``), hash alike when equal, and count
    ``num_leaves``, ``num_nodes`` and ``num_children``.
    """

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        if type is None and (context is not None or children_specs):
            raise AssertionError("leaf node should not have a context" if context is not None
                                 else "leaf node should not have children")
        self.type, self._context, self._children = type, context, children_specs
        self.num_nodes = 1 + sum(c.num_nodes for c in children_specs)
        self.num_leaves = 1 if type is None else sum(c.num_leaves for c in children_specs)
        self.num_children = len(children_specs)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "num_children"):  # (set last in __init__: from then on a spec is frozen)
            raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple:
        # (copy and pickle rebuild through __init__: the fields cannot be set one by one)
        if self.type is None:
            return treespec_leaf, ()
        return TreeSpec, (self.type, self._context, self._children)

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        indent += 2
        children = (",\n" + " " * indent).join(c.__repr__(indent) for c in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        return hash((self.type, _hashable_context(self), tuple(self._children)))

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access a "
                      "single child, or `treespec.children()` to get all children.", FutureWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return self._children

    def is_leaf(self) -> bool:
        """Whether this spec is a leaf's."""
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list[TreeSpec]:
        """The children's specs (a new list)."""
        return self._children.copy()

    def child(self, index: int) -> TreeSpec:
        """The spec of child ``index``."""
        return self._children[index]

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` where this spec has leaves (``tree`` must have this spec as a prefix).

        Dicts of the three standard kinds match each other by their key sets; every other container
        must be of the spec's type, length and context.  A mismatch is a ``ValueError`` saying which.
        """
        subtrees: list[PyTree] = []
        _flatten_up_to(self, tree, subtrees)
        return subtrees

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this structure with ``leaves`` in its leaves, in order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                             f"refers to a pytree that holds {self.num_leaves} items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self._children:
            children.append(spec.unflatten(leaves[start:start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)


PyTreeSpec = TreeSpec


def _hashable_context(spec: TreeSpec) -> Any:
    if spec.type is defaultdict:
        return spec._context[0], tuple(spec._context[1])
    if spec.type in (dict, OrderedDict):
        return tuple(spec._context)
    if spec.type is None or spec.type in BUILTIN_TYPES:
        return spec._context
    return None  # (a registered type's context need not hash: equal specs still hash alike)


def _flatten_up_to(spec: TreeSpec, node: PyTree, subtrees: list[PyTree]) -> None:
    if spec.is_leaf():
        subtrees.append(node)
        return
    node_type = _get_node_type(node)
    if spec.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES:
        children = _dict_children_by_keys(spec, node)
    else:
        if node_type != spec.type:
            prefix = "Node type" if spec.type in BUILTIN_TYPES else "Type"
            raise ValueError(f"{prefix} mismatch; expected {spec.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
        if spec.type not in BUILTIN_TYPES and context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec.type!r}.")
        if spec.type in BUILTIN_TYPES and node_type is not deque and context != spec._context:
            raise ValueError(f"Node context mismatch for node type {spec.type!r}; "
                             f"expected {spec._context!r}, but got {context!r}.")
    for child, child_spec in zip(children, spec._children, strict=True):
        _flatten_up_to(child_spec, child, subtrees)


def _dict_children_by_keys(spec: TreeSpec, node: dict) -> list[Any]:
    """``node``'s values in the order of ``spec``'s keys (a dict of other kind or order matches)."""
    if len(node) != spec.num_children:
        raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(node)}.")
    keys = spec._context[1] if spec.type is defaultdict else spec._context
    got, expected = set(node), set(keys)
    if got != expected:
        message = ""
        if missing := expected - got:
            message += f"; missing key(s): {missing}"
        if extra := got - expected:
            message += f"; extra key(s): {extra}"
        raise ValueError(f"Node keys mismatch{message}.")
    return [node[k] for k in keys]


class LeafSpec(TreeSpec):
    """A leaf's spec (deprecated in PyTorch 2.13: test ``spec.is_leaf()``; :func:`treespec_leaf` makes one)."""

    __slots__ = ()

    def __init__(self) -> None:
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) "
                      "and treespec.is_leaf()` instead.", FutureWarning, stacklevel=stacklevel_outside_the_engine())
        super().__init__(None, None, [])


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _LEAF_SPEC = LeafSpec()


def treespec_leaf() -> LeafSpec:
    """The spec of a leaf (one object, shared)."""
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    """The spec of a tuple of these specs."""
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping: Any = (), /, **kwargs: TreeSpec) -> TreeSpec:
    """The spec of a dict of these specs (keys in the given order)."""
    dct = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct.keys()), list(dct.values()))


# ---------------------------------------------------------------------------
# Flatten, unflatten, map
# ---------------------------------------------------------------------------
def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    """``(leaves, spec)``: the leaves depth first, and the structure that :func:`tree_unflatten` rebuilds."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves, is_leaf)


def _flatten(node: PyTree, leaves: list[Any], is_leaf: Callable[[PyTree], bool] | None) -> TreeSpec:
    if tree_is_leaf(node, is_leaf):
        leaves.append(node)
        return _LEAF_SPEC
    node_type = _get_node_type(node)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
    return TreeSpec(node_type, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The pytree of structure ``treespec`` holding ``leaves`` (the two may come in either order)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                            f"{type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterator[Any]:
    """The leaves of ``tree``, depth first, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    """The leaves of ``tree``, depth first."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    """The :class:`TreeSpec` of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of ``(args, kwargs)``: every argument's leaves in order."""
    leaves: list[Any] = []
    for a in (*args, *kwargs.values()):
        leaves.extend(tree_iter(a))
    return leaves


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """A new pytree of ``tree``'s structure holding ``func(leaf, *others)`` at each leaf.

    Each of ``rests`` must have ``tree``'s structure as a prefix: where ``tree`` has a leaf, the
    whole subtree of the other goes to ``func`` (``tree_map(f, [1, 2], [[3], [4, 5]])``).
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """Call ``func(leaf, *others)`` at each leaf for its effect (``t.add_(1)``) and return ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    deque(map(func, leaves, *(spec.flatten_up_to(r) for r in rests)), maxlen=0)
    return tree


def map_only(type_or_types_or_pred: Any, /) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """A decorator: the function applies to values of these types (or passing this predicate);
    any other value comes back unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, _UnionType)):
        def pred(x: Any) -> bool:
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def wrapped(x: Any) -> Any:
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


_UnionType = type(int | str)


def tree_map_only(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """:func:`tree_map` of ``func`` on the leaves of these types (or passing the predicate); the
    other leaves are kept as they are: ``tree_map_only(mg.Tensor, lambda t: t.detach(), out)``."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                   is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """:func:`tree_map_` of ``func`` on the leaves of these types (or passing the predicate)."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for every leaf (stops at the first that fails)."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for some leaf (stops at the first that does)."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for every leaf of these types (leaves of other types are not asked)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for some leaf of these types."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(tree: PyTree, treespec: TreeSpec,
                              is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any] | None:
    """``tree`` (a prefix of ``treespec``'s structure, ``vmap``'s ``in_dims``) repeated to one value per
    leaf of ``treespec``; ``None`` where it is no prefix."""
    result: list[Any] = []

    def add_leaves(x: Any, subtree: PyTree) -> None:
        result.extend([x] * tree_structure(subtree, is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, treespec.unflatten([0] * treespec.num_leaves), is_leaf=is_leaf)
    except ValueError:
        return None
    return result


# ---------------------------------------------------------------------------
# Key paths
# ---------------------------------------------------------------------------
def tree_flatten_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                           ) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """``([(key path, leaf), ...], spec)``: :func:`tree_flatten` with where each leaf sits."""
    return list(_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                          ) -> list[tuple[KeyPath, Any]]:
    """``[(key path, leaf), ...]`` in :func:`tree_leaves`' order."""
    return list(_key_paths((), tree, is_leaf))


def _key_paths(path: KeyPath, tree: PyTree, is_leaf: Callable[[PyTree], bool] | None
               ) -> Iterator[tuple[KeyPath, Any]]:
    if is_leaf is not None and is_leaf(tree):
        yield path, tree
        return
    node = SUPPORTED_NODES.get(_get_node_type(tree))
    if node is None:
        yield path, tree
        return
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node.type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in node.flatten_with_keys_fn(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_map_with_path(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
                       is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """:func:`tree_map` with each leaf's key path first: ``func(path, leaf, *others)``."""
    path_leaves, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(path, leaf, *rest) for (path, leaf), *rest in zip(path_leaves, *others, strict=True))


# ---------------------------------------------------------------------------
# A structure as text
# ---------------------------------------------------------------------------
def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """``treespec`` as a JSON string (PyTorch's protocol 1, so either library reads the other's)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                        f"{type(treespec)}.")
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps((protocol, _treespec_to_json(treespec)))


def _treespec_to_json(spec: TreeSpec) -> dict[str, Any]:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    serialize = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if serialize is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if serialize.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if serialize.to_dumpable_context is None:
        try:
            context = json.dumps(spec._context)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json dump-able, or "
                            "register a custom serializer using _register_pytree_node.") from e
    else:
        context = serialize.to_dumpable_context(spec._context)
    return {"type": serialize.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(c) for c in spec._children]}


def treespec_loads(serialized: str) -> TreeSpec:
    """The :class:`TreeSpec` that :func:`treespec_dumps` wrote."""
    protocol, schema = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _json_to_treespec(schema)


def _json_to_treespec(schema: dict[str, Any]) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE.get(schema["type"])
    if typ is None:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    serialize = SUPPORTED_SERIALIZED_TYPES[typ]
    if serialize.from_dumpable_context is None:
        context = json.loads(schema["context"])
    else:
        context = serialize.from_dumpable_context(schema["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


class _Asterisk(str):
    """A leaf's stand-in in :func:`treespec_pprint`: prints as ``*`` inside containers' reprs."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure printed as its containers would be, ``*`` for each leaf: ``{'a': [*, (*, *)]}``."""
    return repr(tree_unflatten([_Asterisk("*")] * treespec.num_leaves, treespec))
