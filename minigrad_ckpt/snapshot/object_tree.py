"""Python objects -- state dicts, checkpoint dicts -- as plain data plus arrays, and back.

``mg.save`` and the snapshot's registered objects (``Executor.register_state``) both store an
object whose shape (which dicts, lists and tuples hold what) is plain msgpack data and whose
tensors are arrays kept apart: ``encode_tree`` gives the *tree* (a node per object, below) and
fills ``tensors`` with the arrays by name; ``decode`` rebuilds the object from a tree and those
arrays, checking every node first.  Nothing is pickled and nothing in a file is ever executed.

A node is a plain value itself (a number within 64 bits, a string, a bool, nil), a list of plain
values itself, ``{"t": "tensor", "name", "requires_grad", "device"[, "parameter"]}``,
``{"t": "array", "name"}``, ``{"t": "view", ...}`` (memory shared with other tensors:
:mod:`.shared_storage`), ``{"t": "meta", "ref", "shape", "dtype", "requires_grad"[, "parameter"]}``
(a meta tensor: no values), ``{"t": "uninitialized", "ref", "dtype", "requires_grad", "parameter"}`` (a
lazy layer's weight before its first input: no shape either),
``{"t": "list" | "tuple" | "set" | "frozenset", "items": [node, ...]}``,
``{"t": "dict", "keys": [node, ...], "values": [node, ...][, "ordered": true][, "metadata": node]
[, "counter": true]}`` (an ``OrderedDict`` and a state dict's ``_metadata``; a ``Counter``, which
PyTorch's ``weights_only`` load gives back too: ``MultiStepLR``'s milestones), or a value msgpack
has no form for: ``{"t": "int" | "complex" | "bytes" | "bytearray" | "dtype" | "size", "v": ...}``.  Files
written before hold ``{"t": "value", "v": ...}`` and ``{"t": "dict", "items": [[key, node], ...]}``,
which still load (``docs/snapshot-format.md``).

``mg.save`` writes the arrays as the snapshot's tensors.  A registered object's state lives in
the header (or a rank file), so its arrays go there inline (:func:`object_entry`): an
optimizer registered beside the executor's own keeps its moments as tensors, its parameter
indices as ints -- what its ``load_state_dict`` needs to continue bit for bit.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, OrderedDict
from typing import Any

from ..backend import get_default_device, host_numpy, is_array
from ..creation import empty
from ..nn.module import Parameter
from ..nn.uninitialized import UninitializedBuffer, UninitializedParameter, is_lazy
from ..tensor import Size, Tensor
from .format import DTYPES, SnapshotError
from .layout import copy_keeping_layout, host_keeping_layout
from .shared_storage import share, view_of

__all__ = ["encode_tree", "encode", "decode", "object_entry", "object_state"]

MAX_DEPTH = 64
SCALARS = (bool, int, float, str, type(None))
_INT_RANGE = (-(1 << 63), 1 << 64)  # what msgpack stores as an integer
_DTYPE_NAMES = frozenset(DTYPES.values())
_VALUE_KINDS = ("value", "int", "complex", "bytes", "bytearray", "dtype", "size")
_NOT_A_VALUE = object()


def _name(path: list[Any], tensors: dict[str, Any]) -> str:
    base = ".".join(str(p) for p in path) or "tensor"
    name, i = base, 1
    while name in tensors:
        name, i = f"{base}#{i}", i + 1
    return name


def encode_tree(obj: Any, tensors: dict[str, Any]) -> Any:
    """The tree of ``obj``, its arrays added to ``tensors`` by name; tensors sharing memory are
    stored once, as views of one storage (:mod:`.shared_storage`)."""
    seen: dict[int, tuple[dict, Any]] = {}
    tree = encode(obj, [], tensors, 0, seen)
    share(list(seen.values()), tensors, _name)
    return tree


def encode(obj: Any, path: list[Any], tensors: dict[str, Any], depth: int, seen: dict[int, tuple[dict, Any]]) -> Any:
    """The description of ``obj``; ``seen`` maps an already stored tensor or array (by identity)
    to its entry and the array it was stored from, so an object referenced many times is stored
    once and loads as one object."""
    if depth > MAX_DEPTH:
        raise ValueError(f"mg.save: the object is nested deeper than {MAX_DEPTH} levels")
    if id(obj) in seen:
        return seen[id(obj)][0]
    if is_lazy(obj):  # a lazy layer's weight before its first input: no shape, no values to store
        node = {"t": "uninitialized", "ref": sum(n.get("t") == "uninitialized" for n, _ in seen.values()),
                "dtype": obj.dtype.name, "requires_grad": bool(obj.requires_grad),
                "parameter": isinstance(obj, Parameter)}
        seen[id(obj)] = node, None
        return node
    if isinstance(obj, Tensor) and obj.device.type == "meta":  # a shape and a dtype, no values to store
        node = {"t": "meta", "ref": sum(n.get("t") == "meta" for n, _ in seen.values()), "shape": list(obj.shape),
                "dtype": obj.dtype.name, "requires_grad": bool(obj.requires_grad)}
        if isinstance(obj, Parameter):
            node["parameter"] = True
        seen[id(obj)] = node, None
        return _with_attributes(node, obj, path, tensors, depth, seen)
    if isinstance(obj, Tensor):
        name = _name(path, tensors)
        tensors[name] = copy_keeping_layout(host_keeping_layout(obj._data))  # (a snapshot stores its layout)
        node = {"t": "tensor", "name": name, "requires_grad": bool(obj.requires_grad), "device": str(obj.device)}
        if isinstance(obj, Parameter):  # (only then: files of plain tensors are unchanged)
            node["parameter"] = True
        seen[id(obj)] = node, obj._data
        return _with_attributes(node, obj, path, tensors, depth, seen)
    if isinstance(obj, host_numpy.ndarray) or is_array(obj):
        name = _name(path, tensors)
        tensors[name] = copy_keeping_layout(host_keeping_layout(obj))
        seen[id(obj)] = {"t": "array", "name": name}, obj
        return seen[id(obj)][0]
    value = _value(obj)
    if value is not _NOT_A_VALUE:
        return value
    if type(obj) in (dict, OrderedDict, Counter):
        keys = [_hashable(k, depth + 1) for k in obj]
        values = [encode(v, path + [k], tensors, depth + 1, seen) for k, v in obj.items()]
        node = {"t": "dict", "keys": keys, "values": values}
        if type(obj) is Counter:  # (a reader that predates the flag loads the plain dict: same counts)
            return {**node, "counter": True}
        if not isinstance(obj, OrderedDict):
            return node
        metadata = getattr(obj, "_metadata", None)  # a module state dict's format versions, by path
        if metadata is None:
            return {**node, "ordered": True}
        return {**node, "ordered": True, "metadata": encode(metadata, path + ["_metadata"], tensors, depth + 1, seen)}
    if type(obj) in (set, frozenset):
        return {"t": type(obj).__name__, "items": [_hashable(v, depth + 1) for v in obj]}
    if type(obj) in (list, tuple):
        items = [encode(v, path + [i], tensors, depth + 1, seen) for i, v in enumerate(obj)]
        if not isinstance(obj, tuple) and not any(isinstance(v, (dict, list)) for v in items):
            return items  # a list of plain values as it is: one msgpack array, however long
        return {"t": "tuple" if isinstance(obj, tuple) else "list", "items": items}
    hint = ("; save its state instead: mg.save(obj.state_dict(), path), and load it back with "
            "obj.load_state_dict(mg.load(path))" if callable(getattr(obj, "state_dict", None)) else _subclass_hint(obj))
    place = f" at {''.join(f'[{k!r}]' for k in path)}" if path else ""  # which entry of a checkpoint dict
    raise TypeError(f"mg.save cannot store a {type(obj).__name__}{place}: it stores tensors, arrays, numbers, strings, "
                    f"bytes, dtypes, shapes, None and dicts/lists/tuples/sets of them (never pickle){hint}")


def _with_attributes(node: dict[str, Any], t: Tensor, path: list[Any], tensors: dict[str, Any], depth: int,
                     seen: dict[int, tuple[dict, Any]]) -> dict[str, Any]:
    """``node`` with the attributes a program set on the tensor (``t.foo = "bar"``; the names
    without a leading underscore, which the engine's own never have), as PyTorch's save keeps them."""
    attributes = {k: v for k, v in vars(t).items() if not k.startswith("_")}
    if attributes:
        if _reaches(attributes, t, 0):  # (plain data: no way to say "this tensor again, inside itself")
            raise TypeError("mg.save cannot store a tensor whose attributes refer back to it (a cycle)")
        node["attrs"] = encode(attributes, path + ["attrs"], tensors, depth + 1, seen)
    return node


def _reaches(obj: Any, target: Tensor, depth: int) -> bool:
    """Whether ``target`` is inside ``obj``: its containers, and the attributes of its tensors."""
    if obj is target:
        return True
    if depth > MAX_DEPTH:
        return False
    if isinstance(obj, Tensor):
        obj = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple, set, frozenset)) else ()
    return any(_reaches(v, target, depth + 1) for v in items)


def _set_attributes(t: Any, node: dict[str, Any], tensors: dict[str, Any], place: Any, depth: int,
                    made: dict[tuple, Any]) -> Any:
    """``t`` with the attributes ``node`` stored for it (checked: a dict of public names)."""
    if "attrs" not in node:
        return t
    attributes = decode(node["attrs"], tensors, place, depth + 1, made)
    if not (isinstance(attributes, dict) and all(isinstance(k, str) and k.isidentifier() and not k.startswith("_")
                                                 for k in attributes)):
        raise SnapshotError("mg.load: a tensor's stored attributes are malformed")
    for name, value in attributes.items():
        setattr(t, name, value)
    return t


def _subclass_hint(obj: Any) -> str:
    """For a dataclass, or a subclass of a container mg.save stores (a ``defaultdict``, a namedtuple):
    what to store instead.  Its class is code -- a ``default_factory``, attribute names -- so it would load as
    the plain container, silently without its behaviour; PyTorch's ``weights_only`` load refuses it."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):  # a config (build-nanogpt saves its GPTConfig)
        return ("; store its fields instead: dataclasses.asdict(obj), rebuilt after loading as "
                f"{type(obj).__name__}(**fields)")
    for base in (dict, list, tuple, set, frozenset):
        if isinstance(obj, base):
            return (f" (a {base.__name__} subclass, whose class is code: it would load as a plain {base.__name__}); "
                    f"store {base.__name__}(obj) instead" + (", or obj._asdict()" if hasattr(obj, "_asdict") else ""))
    return ""


def _value(obj: Any) -> Any:
    """The node of a plain value -- PyTorch's ``weights_only`` load gives back the same kinds:
    numbers of any size (NumPy scalars as Python numbers), complex numbers, strings, bytes,
    dtypes, a tensor's ``Size``, None -- or ``_NOT_A_VALUE`` for anything else.  A msgpack scalar is its own node."""
    if isinstance(obj, host_numpy.generic):
        obj = obj.item()
    if isinstance(obj, int) and not isinstance(obj, bool) and not _INT_RANGE[0] <= obj < _INT_RANGE[1]:
        return {"t": "int", "v": str(obj)}  # (msgpack's integers are 64-bit: NumPy's PCG64 state is not)
    if isinstance(obj, SCALARS):
        return obj
    if isinstance(obj, complex):
        return {"t": "complex", "v": [obj.real, obj.imag]}
    if isinstance(obj, (bytes, bytearray)):
        return {"t": type(obj).__name__ if type(obj) in (bytes, bytearray) else "bytes", "v": bytes(obj)}
    if isinstance(obj, host_numpy.dtype) and obj.name in _DTYPE_NAMES:
        return {"t": "dtype", "v": obj.name}
    if type(obj) is Size:  # (a tensor's shape: the engine's own class, no code from the file)
        return {"t": "size", "v": [int(n) for n in obj]}
    return _NOT_A_VALUE


def _hashable(obj: Any, depth: int) -> Any:
    """The node of a dict key or a set's element: a value, or a tuple / frozenset of such."""
    if depth > MAX_DEPTH:
        raise ValueError(f"mg.save: the object is nested deeper than {MAX_DEPTH} levels")
    value = _value(obj)
    if value is not _NOT_A_VALUE:
        return value
    if type(obj) in (tuple, frozenset):
        return {"t": type(obj).__name__, "items": [_hashable(v, depth + 1) for v in obj]}
    raise TypeError(f"mg.save: a dict key or set element must be a number, a string, bytes, a dtype, None or a "
                    f"tuple/frozenset of them, got {type(obj).__name__} {obj!r:.80}")


def decode(node: Any, tensors: dict[str, Any], place: Any, depth: int, made: dict[tuple, Any] | None = None) -> Any:
    """The object ``node`` describes; ``made`` holds what was already built for a stored tensor,
    so every reference to it gets the same object (and the file's array is copied once)."""
    made = {} if made is None else made
    if depth <= MAX_DEPTH and isinstance(node, SCALARS):
        return node  # (a plain value is its own node)
    if depth <= MAX_DEPTH and isinstance(node, list) and all(isinstance(v, SCALARS) for v in node):
        return list(node)  # (a list of plain values, as it is)
    if depth > MAX_DEPTH or not isinstance(node, dict):
        raise SnapshotError("mg.load: the object description is malformed")
    kind = node.get("t")
    if kind == "array":
        return _stored(node, kind, tensors, place, made)
    if kind == "tensor":
        return _set_attributes(_stored(node, kind, tensors, place, made), node, tensors, place, depth, made)
    if kind == "view":
        return _set_attributes(_view(node, tensors, place, made), node, tensors, place, depth, made)
    if kind == "meta":
        return _set_attributes(_meta(node, made), node, tensors, place, depth, made)
    if kind == "uninitialized":
        return _uninitialized(node, made)
    if kind in _VALUE_KINDS:
        return _value_of(kind, node.get("v"))
    if kind == "dict":
        out = OrderedDict() if node.get("ordered") is True else Counter() if node.get("counter") is True else {}
        for key, value in _dict_entries(node):
            out[_check_hashable(decode(key, {}, None, depth + 1))] = decode(value, tensors, place, depth + 1, made)
        if "metadata" in node and isinstance(out, OrderedDict):
            out._metadata = decode(node["metadata"], tensors, place, depth + 1, made)  # type: ignore[attr-defined]
        return out
    items = node.get("items")
    if not isinstance(items, list):
        raise SnapshotError("mg.load: the object description is malformed")
    if kind in ("set", "frozenset"):
        vals = [_check_hashable(decode(v, {}, None, depth + 1)) for v in items]
        return set(vals) if kind == "set" else frozenset(vals)
    if kind in ("list", "tuple"):
        vals = [decode(v, tensors, place, depth + 1, made) for v in items]
        return tuple(vals) if kind == "tuple" else vals
    raise SnapshotError(f"mg.load: unknown entry kind {kind!r}"[:200])


def _meta(node: dict[str, Any], made: dict[tuple, Any]) -> Tensor:
    """A meta tensor (a shape and a dtype), built once per ``ref``; it stays on the meta device
    whatever ``map_location`` says, as PyTorch's load keeps a meta tensor meta."""
    ref, shape, dtype, grad = (node.get(k) for k in ("ref", "shape", "dtype", "requires_grad"))
    if not (isinstance(ref, int) and isinstance(shape, list) and len(shape) <= MAX_DEPTH and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
            and dtype in _DTYPE_NAMES and isinstance(grad, bool)):
        raise SnapshotError("mg.load: a stored meta tensor is malformed")
    key = ("meta", ref)
    if key not in made:
        t = empty(shape, dtype=dtype, device="meta")
        grad = grad and t.dtype.kind in "fc"
        made[key] = Parameter(t, requires_grad=grad) if node.get("parameter") is True else t.requires_grad_(grad)
    return made[key]


def _uninitialized(node: dict[str, Any], made: dict[tuple, Any]) -> Tensor:
    """An uninitialized parameter or buffer (a lazy layer's, saved before its first input), built
    once per ``ref``: loaded into a lazy layer it stays lazy, as it was saved."""
    ref, dtype, grad, parameter = (node.get(k) for k in ("ref", "dtype", "requires_grad", "parameter"))
    if not (isinstance(ref, int) and dtype in _DTYPE_NAMES and isinstance(grad, bool) and isinstance(parameter, bool)):
        raise SnapshotError("mg.load: a stored uninitialized tensor is malformed")
    key = ("uninitialized", ref)
    if key not in made:
        kind = UninitializedParameter if parameter else UninitializedBuffer
        made[key] = kind(requires_grad=grad, dtype=dtype)
    return made[key]


def _dict_entries(node: dict[str, Any]) -> list[tuple[Any, Any]]:
    """A dict node's ``(key node, value node)`` pairs: ``keys`` and ``values`` side by side, or
    the ``items`` pairs of files written before (keys plain strings and ints)."""
    keys, values, items = node.get("keys"), node.get("values"), node.get("items")
    if isinstance(keys, list) and isinstance(values, list) and len(keys) == len(values) and items is None:
        return list(zip(keys, values))
    if isinstance(items, list) and keys is None and values is None and all(
            isinstance(i, list) and len(i) == 2 and isinstance(i[0], (str, int)) and not isinstance(i[0], bool)
            for i in items):
        return [(i[0], i[1]) for i in items]
    raise SnapshotError("mg.load: a dict entry is malformed")


def _stored(node: dict[str, Any], kind: str, tensors: dict[str, Any], place: Any, made: dict[tuple, Any]) -> Any:
    """The tensor or array a node names, built once per (name, kind, flags)."""
    name = node.get("name")
    if not isinstance(name, str) or name not in tensors:
        raise SnapshotError(f"mg.load: the object refers to a tensor {name!r} the file does not hold"[:200])
    key = (kind, name, node.get("requires_grad") is True, node.get("parameter") is True)
    if key not in made:
        saved = node.get("device", "cpu")  # (files written before the device was kept: the CPU)
        if not isinstance(saved, str):
            raise SnapshotError("mg.load: a tensor's device is not a name")
        made[key] = _build(kind, tensors[name], place, saved, key[2], key[3])
    return made[key]


def _view(node: dict[str, Any], tensors: dict[str, Any], place: Any, made: dict[tuple, Any]) -> Any:
    """A tensor or array sharing its storage with the others viewing it, built once per ``ref``."""
    key = ("view", node.get("storage"), node.get("ref"))
    if key not in made:
        arr = view_of(node, tensors, made)
        saved = node.get("device", "cpu")
        if not isinstance(saved, str):
            raise SnapshotError("mg.load: a tensor's device is not a name")
        made[key] = arr if node["of"] == "array" else _build(
            "tensor", arr, place, saved, node.get("requires_grad") is True, node.get("parameter") is True, share=True)
    return made[key]


def _value_of(kind: str, v: Any) -> Any:
    """The value of a value node of ``kind`` holding ``v`` (checked)."""
    if kind == "value" and isinstance(v, SCALARS):
        return v
    if kind == "int" and isinstance(v, str) and 0 < len(v) <= 4300 and v.isascii() and v.removeprefix("-").isdigit():
        return int(v)
    if kind == "complex" and isinstance(v, list) and len(v) == 2 and all(isinstance(x, float) for x in v):
        return complex(v[0], v[1])
    if kind in ("bytes", "bytearray") and isinstance(v, bytes):
        return v if kind == "bytes" else bytearray(v)
    if kind == "dtype" and v in _DTYPE_NAMES:
        return host_numpy.dtype(v)
    if kind == "size" and isinstance(v, list) and len(v) <= MAX_DEPTH and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in v):
        return Size(v)
    raise SnapshotError(f"mg.load: a stored {kind} is malformed"[:200])


def _check_hashable(v: Any) -> Any:
    try:
        hash(v)
    except TypeError:
        raise SnapshotError("mg.load: a dict key or set element is not hashable") from None
    return v


def _build(kind: str, arr: Any, place: Any, saved: str, requires_grad: bool, parameter: bool = False,
           share: bool = False) -> Any:
    """The loaded object; with ``share`` a tensor holding ``arr`` itself (a view of a storage other
    tensors view too: on the CPU a write into one shows in the others, as in PyTorch)."""
    if kind == "array":
        return host_numpy.array(arr, copy=True)
    t = Tensor.sharing(arr, "cpu") if share else Tensor._from_data(arr, dtype=arr.dtype, device="cpu")
    if place is None:
        t = t.to(get_default_device())
    else:
        t = place(t, saved)
    if parameter:  # PyTorch's load gives back an nn.Parameter as one
        return Parameter(t, requires_grad=requires_grad and t.dtype.kind in "fc")
    if requires_grad and t.dtype.kind in "fc":
        t.requires_grad_()
    return t


# ---------------------------------------------------- registered objects' states
def _is_plain(v: Any) -> bool:
    """Whether ``v`` is plain data that msgpack gives back exactly: strings, numbers, None, lists
    and str-keyed dicts of them (no tuples, which come back as lists, nor int keys)."""
    if isinstance(v, bool) or v is None or isinstance(v, (float, str)):
        return True
    if isinstance(v, int):
        return _INT_RANGE[0] <= v < _INT_RANGE[1]
    if type(v) is list:  # (a subclass is no plain data: it would come back as a list)
        return all(_is_plain(x) for x in v)
    if type(v) is dict:
        return all(isinstance(k, str) and _is_plain(x) for k, x in v.items())
    return False


def _copy_plain(v: Any) -> Any:
    """A copy of plain data (:func:`_is_plain`): new lists and dicts, the same numbers and strings.
    An object's ``state_dict()`` may hand out the lists it goes on appending to (a history of
    losses), so a snapshot keeps a copy: the state of its call, whatever the object does next."""
    if isinstance(v, list):
        return [x if type(x) in SCALARS else _copy_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: x if type(x) in SCALARS else _copy_plain(x) for k, x in v.items()}
    return v


def object_entry(type_name: str, state: Any) -> dict[str, Any]:
    """A registered object's ``state_dict()`` as header data.

    Plain data is copied as it is, ``{"type", "state"}`` (a DataLoader's or a sampler's state;
    what every snapshot held before).  Anything else -- tensors (an optimizer's moments, a
    module's weights), int keys, tuples -- is ``{"type", "tree", "arrays"}``: the tree of
    :func:`encode` and its arrays inline, ``{name: {"dtype", "shape", "data": bytes}}``, so
    that the object's ``load_state_dict`` gets back tensors, ints and tuples, not lists and
    strings.
    """
    if _is_plain(state):
        return {"type": type_name, "state": _copy_plain(state)}
    arrays: dict[str, Any] = {}
    tree = encode_tree(state, arrays)
    inline = {}
    for name, arr in arrays.items():
        flat = arr.copy(order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        code = flat.dtype.newbyteorder("<").str if flat.dtype.byteorder == ">" else flat.dtype.str
        if code not in DTYPES:
            raise TypeError(f"a registered object's state holds a {arr.dtype} array, which a snapshot cannot store")
        inline[name] = {"dtype": code, "shape": list(flat.shape), "data": flat.astype(code, copy=False).tobytes()}
    return {"type": type_name, "tree": tree, "arrays": inline}


def is_object_entry(entry: Any) -> bool:
    """Whether ``entry`` has one of :func:`object_entry`'s two forms (the reader's first check)."""
    return isinstance(entry, dict) and isinstance(entry.get("type"), str) and (
        set(entry) == {"type", "state"} or set(entry) == {"type", "tree", "arrays"}
        and isinstance(entry["arrays"], dict))


def object_state(entry: dict[str, Any]) -> Any:
    """The state :func:`object_entry` stored (every array checked against its dtype and shape), a
    copy of its own: the object that loads it may keep and change it, the snapshot stays as it was."""
    if "state" in entry:
        return _copy_plain(entry["state"])
    arrays = {}
    for name, a in entry["arrays"].items():
        if not (isinstance(a, dict) and set(a) == {"dtype", "shape", "data"} and a["dtype"] in DTYPES
                and isinstance(a["shape"], list) and isinstance(a["data"], bytes)
                and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in a["shape"])):
            raise SnapshotError(f"a registered object's array {name!r} is malformed"[:200])
        dtype = host_numpy.dtype(a["dtype"])
        count = 1
        for s in a["shape"]:
            count *= s
        if count * dtype.itemsize != len(a["data"]):
            raise SnapshotError(f"a registered object's array {name!r} does not have its shape's size"[:200])
        try:
            flat = host_numpy.frombuffer(a["data"], dtype=dtype)
            arrays[name] = flat.astype(dtype.newbyteorder("=")).reshape(a["shape"])
        except ValueError as exc:  # (a shape NumPy cannot address)
            raise SnapshotError(f"a registered object's array {name!r}: {exc}"[:200]) from None
    return decode(entry["tree"], arrays, None, 0)
