"""``mg.save(obj, path)`` / ``mg.load(path)``: state dicts and nested containers of tensors in
the snapshot format -- never pickle.

A saved object is a snapshot file: its tensors are the snapshot's tensors (named by their
path in the object, e.g. ``state.0.exp_avg``), and the shape of the object -- which
dicts, lists and tuples hold them, and the plain values beside them -- is plain data in the
header (``objects["mg.save"]``). So the file is checksummed, written atomically, read with
the snapshot reader's limits, and shown by ``minigrad-ckpt snapshot inspect``. Loading
runs no code from the file: anything it does not recognise is a ``SnapshotError``.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from ..backend import get_device, host_numpy, is_array
from ..tensor import Tensor
from .config import SnapshotConfig, SnapshotMetadata
from .format import SnapshotError
from .layout import copy_keeping_layout, host_keeping_layout
from .snapshot import Snapshot

__all__ = ["save", "load"]

_KEY = "mg.save"
_MAX_DEPTH = 64
_SCALARS = (bool, int, float, str, type(None))


def _is_file_object(f: Any) -> bool:
    """A binary file object (``open(p, "wb")``, ``io.BytesIO()``), which PyTorch's save/load take
    as well as a path."""
    return not isinstance(f, (str, bytes, os.PathLike)) and (hasattr(f, "write") or hasattr(f, "read"))


def save(obj: Any, path: str | os.PathLike | Any) -> Path | None:
    """Write ``obj`` -- a Tensor, an array, or dicts / lists / tuples of them, numbers, strings
    and None (a ``state_dict()``, an optimizer's ``state_dict()``, a checkpoint dict) -- to ``path``,
    or, as PyTorch's ``save``, to a binary file object (``io.BytesIO()``, ``open(p, "wb")``).

    Returns the path written (None for a file object). Tensors keep their dtype and shape bit
    for bit; they are stored from the host (a GPU tensor is copied once). Other objects are
    refused with a ``TypeError``: nothing is pickled.
    """
    if _is_file_object(path):  # the snapshot writer works on paths: write one, hand on its bytes
        with tempfile.TemporaryDirectory() as tmp:
            path.write(save(obj, Path(tmp) / "object.mgsnap").read_bytes())
        return None
    tensors: dict[str, Any] = {}
    tree = _encode(obj, [], tensors, 0, {})
    meta = SnapshotMetadata(iteration=0, timestamp=time.time())
    meta.tensor_count = len(tensors)
    meta.total_bytes = int(sum(a.nbytes for a in tensors.values()))
    state = {"objects": {_KEY: {"type": "tree", "state": tree}}}  # no other section
    return Snapshot(meta, tensors, state, SnapshotConfig()).save(path)


def load(path: str | os.PathLike | Any, map_location: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None) -> Any:
    """Read an object written by :func:`save`, from a path or a binary file object. Tensors come
    back on the CPU, or where ``map_location`` puts them, in PyTorch's forms: a device (or its
    name or CUDA ordinal: ``"cuda:0"``, ``0``) for every tensor; a dict from the device a tensor
    was saved on to the one to load it on (``{"cuda:0": f"cuda:{rank}"}``; a device it does not
    name stays the saved one); or ``fn(tensor, saved_device_name)`` returning the tensor to use
    (given it on the CPU).  Arrays come back as NumPy arrays.  PyTorch's ``weights_only=`` and
    ``mmap=`` are taken and change nothing: no code is ever loaded (what ``weights_only=True``
    asks for), and the file is read whole."""
    del weights_only, mmap
    if _is_file_object(path):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "object.mgsnap"
            copy.write_bytes(path.read())
            return load(copy, map_location)
    snap = Snapshot.load(path)
    objects = snap.state.get("objects")
    entry = objects.get(_KEY) if isinstance(objects, dict) else None
    if not isinstance(entry, dict) or entry.get("type") != "tree" or "state" not in entry:
        raise SnapshotError(f"{path}: not a file written by mg.save (a training snapshot? load it with "
                            f"Snapshot.load)")
    return _decode(entry["state"], snap.tensors, _placement(map_location), 0, {})


def _placement(map_location: Any) -> Any:
    """``place(tensor on the CPU, saved device name) -> tensor``, from ``map_location``'s forms."""
    if map_location is None:  # the default device (the CPU unless mg.set_default_device changed it)
        return None
    if callable(map_location) and not isinstance(map_location, type):
        def call(t: Tensor, saved: str) -> Tensor:
            placed = map_location(t, saved)
            if not isinstance(placed, Tensor):
                raise TypeError(f"mg.load: map_location returned a {type(placed).__name__}, not a Tensor")
            return placed
        return call
    if isinstance(map_location, dict):
        return lambda t, saved: t.to(map_location.get(saved, saved))
    device = get_device(map_location)
    return lambda t, saved: t.to(device)


def _name(path: list[Any], tensors: dict[str, Any]) -> str:
    base = ".".join(str(p) for p in path) or "tensor"
    name, i = base, 1
    while name in tensors:
        name, i = f"{base}#{i}", i + 1
    return name


def _encode(obj: Any, path: list[Any], tensors: dict[str, Any], depth: int, seen: dict[int, dict]) -> Any:
    """The description of ``obj``; ``seen`` maps an already stored tensor or array (by identity)
    to its entry, so an object referenced many times is stored once and loads as one object."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"mg.save: the object is nested deeper than {_MAX_DEPTH} levels")
    if id(obj) in seen:
        return seen[id(obj)]
    if isinstance(obj, Tensor):
        name = _name(path, tensors)
        tensors[name] = copy_keeping_layout(host_keeping_layout(obj._data))  # (a snapshot stores its layout)
        seen[id(obj)] = {"t": "tensor", "name": name, "requires_grad": bool(obj.requires_grad),
                         "device": str(obj.device)}
        return seen[id(obj)]
    if isinstance(obj, host_numpy.ndarray) or is_array(obj):
        name = _name(path, tensors)
        tensors[name] = copy_keeping_layout(host_keeping_layout(obj))
        seen[id(obj)] = {"t": "array", "name": name}
        return seen[id(obj)]
    if isinstance(obj, host_numpy.generic):
        return {"t": "value", "v": obj.item()}
    if isinstance(obj, _SCALARS):
        return {"t": "value", "v": obj}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"mg.save: dict keys must be str or int, got {type(k).__name__} {k!r}")
            items.append([k, _encode(v, path + [k], tensors, depth + 1, seen)])
        return {"t": "dict", "items": items}
    if isinstance(obj, (list, tuple)):
        return {"t": "tuple" if isinstance(obj, tuple) else "list",
                "items": [_encode(v, path + [i], tensors, depth + 1, seen) for i, v in enumerate(obj)]}
    hint = ("; save its state instead: mg.save(obj.state_dict(), path), and load it back with "
            "obj.load_state_dict(mg.load(path))" if callable(getattr(obj, "state_dict", None)) else "")
    raise TypeError(f"mg.save cannot store a {type(obj).__name__}: it stores tensors, arrays, numbers, strings, "
                    f"None and dicts/lists/tuples of them (never pickle){hint}")


def _decode(node: Any, tensors: dict[str, Any], place: Any, depth: int, made: dict[tuple, Any] | None = None) -> Any:
    """The object ``node`` describes; ``made`` holds what was already built for a stored tensor,
    so every reference to it gets the same object (and the file's array is copied once)."""
    made = {} if made is None else made
    if depth > _MAX_DEPTH or not isinstance(node, dict):
        raise SnapshotError("mg.load: the object description is malformed")
    kind = node.get("t")
    if kind in ("tensor", "array"):
        name = node.get("name")
        if not isinstance(name, str) or name not in tensors:
            raise SnapshotError(f"mg.load: the object refers to a tensor {name!r} the file does not hold"[:200])
        key = (kind, name, node.get("requires_grad") is True)
        if key not in made:
            saved = node.get("device", "cpu")  # (files written before the device was kept: the CPU)
            if not isinstance(saved, str):
                raise SnapshotError("mg.load: a tensor's device is not a name")
            made[key] = _build(kind, tensors[name], place, saved, key[2])
        return made[key]
    if kind == "value":
        v = node.get("v")
        if not isinstance(v, _SCALARS):
            raise SnapshotError("mg.load: a stored value is not a number, a string or None")
        return v
    items = node.get("items")
    if not isinstance(items, list):
        raise SnapshotError("mg.load: the object description is malformed")
    if kind == "dict":
        out = {}
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], (str, int))
                    and not isinstance(item[0], bool)):
                raise SnapshotError("mg.load: a dict entry is malformed")
            out[item[0]] = _decode(item[1], tensors, place, depth + 1, made)
        return out
    if kind in ("list", "tuple"):
        vals = [_decode(v, tensors, place, depth + 1, made) for v in items]
        return tuple(vals) if kind == "tuple" else vals
    raise SnapshotError(f"mg.load: unknown entry kind {kind!r}"[:200])


def _build(kind: str, arr: Any, place: Any, saved: str, requires_grad: bool) -> Any:
    if kind == "array":
        return host_numpy.array(arr, copy=True)
    if place is None:
        t = Tensor._from_data(arr, dtype=arr.dtype, device=None)
    else:
        t = place(Tensor._from_data(arr, dtype=arr.dtype, device="cpu"), saved)
    if requires_grad and t.dtype.kind in "fc":
        t.requires_grad_()
    return t
