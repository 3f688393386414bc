"""Tensors that share memory, saved once and loaded sharing it again, as ``torch.save`` keeps them.

``torch.save({"x": x, "v": x[1:3]})`` stores ``x``'s storage once, and after ``torch.load`` a write
into ``x`` shows in ``v``.  :func:`share` gives ``mg.save`` the same meaning: among the tensors and
NumPy arrays of one saved object, those whose memory has one owner (views of one array, tied weights
detached twice) become *views* of one stored byte array, the owner's whole memory::

    {"t": "view", "of": "tensor" | "array", "storage": name, "ref": int,
     "offset": bytes, "shape": [...], "strides": [bytes, ...], "dtype": "<f4", ...the tensor's fields}

and :func:`view_of` rebuilds each as a view of one copy of that storage, checking that every element
it addresses lies inside it (NumPy's own check of a buffer's bounds).  A tensor whose elements overlap
in memory (an expanded or unfolded view) is such a view even alone (a NumPy array is not: pickled,
it is its values), as ``torch.save`` stores its
storage and not each repeat.  A tensor whose memory nothing else saved shares, and whose elements
do not overlap, is stored on its own as its values, as always, so such files are unchanged.  Only host (NumPy)
memory is matched: GPU and stand-in device tensors are stored one by one.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from .format import DTYPES, SnapshotError

__all__ = ["share", "view_of"]


def _owner(arr: Any) -> Any:
    """The array at the bottom of ``arr``'s chain of views (the one whose memory it is) -- through
    the wrapper NumPy's stride tricks put between a view and its array too (``broadcast_to``,
    ``as_strided``, ``sliding_window_view``: an expanded or unfolded tensor's array), whose ``base``
    is the array the view was made from."""
    while True:
        base = arr.base
        if base is not None and not isinstance(base, host_numpy.ndarray):
            base = getattr(base, "base", None)
        if not isinstance(base, host_numpy.ndarray):
            return arr
        arr = base


def _address(arr: Any) -> int:
    return int(arr.__array_interface__["data"][0])


def share(sources: list[tuple[dict[str, Any], Any]], tensors: dict[str, Any], name_of: Any) -> None:
    """Rewrite in place the nodes of ``sources`` (``(node, the array it was stored from)``) whose
    memory another one shares, as views of one storage added to ``tensors`` (their own entries go)."""
    groups: dict[int, tuple[Any, list[tuple[dict[str, Any], Any]]]] = {}
    for node, arr in sources:
        if isinstance(arr, host_numpy.ndarray) and arr.dtype.str in DTYPES and arr.size:
            root = _owner(arr)
            if root.flags.c_contiguous or root.flags.f_contiguous:
                groups.setdefault(id(root), (root, []))[1].append((node, arr))
    ref = 0
    for root, members in groups.values():
        if len(members) < 2 and not (members[0][0]["t"] == "tensor" and _reaches_a_byte_twice(members[0][1])):
            continue  # (an array alone loads as its values, as a pickled NumPy array does)
        # the bytes from the lowest to the highest address a member reaches: not a whole memory-mapped
        # file two small slices of it were taken from
        low = min(_extent(arr)[0] for _, arr in members)
        high = max(_extent(arr)[1] for _, arr in members)
        start = low - _address(root)
        storage = name_of(["storage", members[0][0]["name"]], tensors)
        memory = root.reshape(-1, order="A").view(host_numpy.uint8)  # the owner's memory, in address order
        tensors[storage] = memory[start:start + high - low].copy()
        for node, arr in members:
            del tensors[node.pop("name")]
            node.update({"of": node["t"], "t": "view", "storage": storage, "ref": ref,
                         "offset": _address(arr) - low, "shape": list(arr.shape),
                         "strides": list(arr.strides), "dtype": arr.dtype.str})
            ref += 1


def _extent(arr: Any) -> tuple[int, int]:
    """The lowest address ``arr`` reads and one past its highest byte (``arr`` is not empty)."""
    low = high = _address(arr)
    for size, stride in zip(arr.shape, arr.strides):
        reach = (size - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + arr.itemsize


def _reaches_a_byte_twice(arr: Any) -> bool:
    """Whether elements of ``arr`` overlap in memory (an expanded or unfolded tensor): stored as its
    values, each byte would be written once per element reaching it (``row.expand(10**6, 3)``)."""
    low, high = _extent(arr)
    return high - low < arr.nbytes


def _is_ints(v: Any, low: int | None) -> bool:
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                       and (low is None or x >= low) for x in v)


def view_of(node: dict[str, Any], tensors: dict[str, Any], made: dict[tuple, Any]) -> Any:
    """The NumPy view a ``"view"`` node describes, over the one copy of its storage in ``made``."""
    storage, offset, shape, strides = (node.get(k) for k in ("storage", "offset", "shape", "strides"))
    base = tensors.get(storage) if isinstance(storage, str) else None
    if not (isinstance(base, host_numpy.ndarray) and base.dtype == host_numpy.uint8 and base.ndim == 1
            and isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0
            and _is_ints(shape, 0) and _is_ints(strides, None) and len(strides) == len(shape)
            and len(shape) <= 64 and node.get("dtype") in DTYPES and node.get("of") in ("tensor", "array")):
        raise SnapshotError("mg.load: a view of a stored tensor is malformed")
    key = ("storage", storage)
    if key not in made:
        made[key] = host_numpy.array(base, copy=True)
    try:  # (NumPy refuses a view reaching outside the buffer, negative strides included)
        return host_numpy.ndarray(tuple(shape), host_numpy.dtype(node["dtype"]), buffer=made[key],
                                  offset=offset, strides=tuple(strides))
    except (TypeError, ValueError) as exc:
        raise SnapshotError(f"mg.load: a view of a stored tensor does not fit its storage: {exc}"[:200]) from None
