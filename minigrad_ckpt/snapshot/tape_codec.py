"""The forward tape as plain data, for snapshots that include it.

Each node becomes a map: the op's registry name, its attributes, where its
inputs come from, and its saved values.  Arrays (saved values, index arrays
in attributes) are stored as ordinary snapshot tensors named ``__tape__/...``
and referred to by name.  Nothing is pickled; on load every op name must be
in the op registry, and every op is built through :meth:`Op.from_attrs`, which
checks the attribute names and values against the op's declared fields: a tape
with an unknown attribute (say ``backward``) or a value of the wrong type is a
:class:`SnapshotError` when the file is loaded, not an error inside backward.

Encoding of attribute values (JSON-like, msgpack-friendly)::

    None, bool, int, float, str, list      as themselves
    complex                                {"t": "complex", "v": [real, imag]}
    tuple                                  {"t": "tuple", "v": [...]}
    slice                                  {"t": "slice", "v": [start, stop, step]}
    Ellipsis                               {"t": "ellipsis"}
    array                                  {"t": "array", "v": "<tensor name>"}
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..ops import get_op, registry
from ..tape import DROPPED, FREED, Node, PackedSaved, walk
from ..tensor import Tensor
from .format import DTYPES, SnapshotError
from .layout import device_keeping_layout, host_keeping_layout

__all__ = ["encode_tape", "decode_tape", "check_tape"]

# A node's value dtype, by NumPy name: what a snapshot can store (format.DTYPES).
_DTYPE_NAMES = frozenset(DTYPES.values())


class _Arrays:
    """Collects arrays under ``__tape__/`` names, once per array object."""

    def __init__(self) -> None:
        self.arrays: dict[str, Any] = {}
        self._names: dict[int, str] = {}
        self._keep: list[Any] = []

    def add(self, arr: Any) -> str:
        key = id(arr)
        if key not in self._names:
            name = f"__tape__/{len(self._names)}"
            self._names[key] = name
            self._keep.append(arr)
            # in its memory layout: a saved array's layout decides the order backward sums in
            self.arrays[name] = host_keeping_layout(arr)
        return self._names[key]


def _enc(v: Any, arrays: _Arrays) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, host_numpy.generic):
        v = v.item()
        if not isinstance(v, complex):
            return v
    if isinstance(v, complex):  # a complex constant (z * 1j): msgpack has no complex type
        return {"t": "complex", "v": [v.real, v.imag]}
    if isinstance(v, tuple):
        return {"t": "tuple", "v": [_enc(x, arrays) for x in v]}
    if isinstance(v, list):
        return [_enc(x, arrays) for x in v]
    if isinstance(v, slice):
        return {"t": "slice", "v": [_enc(v.start, arrays), _enc(v.stop, arrays), _enc(v.step, arrays)]}
    if v is Ellipsis:
        return {"t": "ellipsis"}
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return {"t": "array", "v": arrays.add(v)}
    raise SnapshotError(f"cannot store a {type(v).__name__} attribute on the tape")


def _dec(v: Any, arrays: dict[str, Any] | None, xp: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [_dec(x, arrays, xp) for x in v]
    if isinstance(v, dict):
        tag = v.get("t")
        if tag == "tuple" and isinstance(v.get("v"), list):
            return tuple(_dec(x, arrays, xp) for x in v["v"])
        if tag == "slice" and isinstance(v.get("v"), list) and len(v["v"]) == 3:
            parts = [_dec(x, arrays, xp) for x in v["v"]]
            if not all(p is None or isinstance(p, int) for p in parts):
                raise SnapshotError("tape: a slice attribute has non-integer bounds")
            return slice(*parts)
        if tag == "ellipsis":
            return Ellipsis
        if tag == "complex" and isinstance(v.get("v"), list) and len(v["v"]) == 2:
            if not all(isinstance(p, float) for p in v["v"]):
                raise SnapshotError("tape: a complex attribute has non-float parts")
            return complex(*v["v"])
        if tag == "array" and isinstance(v.get("v"), str):
            if arrays is None:
                return _ArrayRef()
            if v["v"] not in arrays:
                raise SnapshotError(f"tape: attribute array {v['v']!r} is missing from the snapshot")
            return device_keeping_layout(xp, arrays[v["v"]])
    raise SnapshotError(f"tape: cannot decode attribute value {v!r}")


def _refuse_unstorable(n: Node) -> None:
    """Raise :class:`SnapshotError` for a node a stored tape cannot replay: its saved values freed,
    dropped by a checkpoint or held through saved-tensor hooks, or its op user code."""
    if n.saved is FREED:
        raise SnapshotError(
            f"cannot store the tape: node #{n.seq} ({n.op.name}) has its saved values freed by a backward "
            f"pass; record the tape (Executor.record) after the forward pass and snapshot before backward, "
            f"or run backward with retain_graph=True"
        )
    if n.saved is DROPPED:  # (in forward: a checkpointed segment keeps its inputs, not its values)
        raise SnapshotError(
            f"cannot store the tape: node #{n.seq} ({n.op.name}) is in a checkpointed segment, whose saved "
            f"values are dropped in forward and recomputed by backward, which a stored tape cannot do; "
            f"record a forward pass run without checkpointing, or snapshot without the tape (include_tape=False)"
        )
    if type(n.saved) is PackedSaved:  # (its slots hold what the user's pack hooks made, and the hooks)
        raise SnapshotError(
            f"cannot store the tape: node #{n.seq} ({n.op.name}) keeps its saved values through saved-tensor "
            f"hooks (mg.autograd.graph.saved_tensors_hooks, save_on_cpu, or register_hooks), which are user "
            f"code, not data; record the forward pass outside the hooks, or snapshot without the tape "
            f"(include_tape=False)"
        )
    if registry.get(n.op.name) is not type(n.op):  # a custom autograd.Function: user code, not data
        raise SnapshotError(
            f"cannot store the tape: node #{n.seq} ({n.op.name}) runs code that is not an op of the "
            f"registry (a custom function, mg.autograd.Function), and a snapshot stores ops by name; "
            f"snapshot the tensors without the tape"
        )


def encode_tape(output: Tensor, leaf_names: dict[int, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(tape, arrays)``: the nodes that produced ``output`` as plain data, and their arrays.

    ``leaf_names`` maps ``id(leaf tensor)`` to the snapshot name it is saved
    under (the model's parameters): backward of the restored tape accumulates
    into those tensors.
    """
    nodes = walk(output)
    index = {id(n): i for i, n in enumerate(nodes)}
    arrays = _Arrays()
    encoded = []
    for n in nodes:
        _refuse_unstorable(n)
        inputs = []
        for e in n.inputs:
            if e is None:
                inputs.append(None)
            elif type(e) is Node:
                inputs.append(["node", index[id(e)]])
            elif id(e) in leaf_names:
                inputs.append(["leaf", leaf_names[id(e)]])
            else:
                raise SnapshotError(
                    "cannot store the tape: it reads a tensor that requires grad but is not one of the "
                    "executor's tensors (add it with Executor.add_tensor)"
                )
        saved = [None if v is None else _enc(v, arrays) for v in n.saved]
        encoded.append({"op": n.op.name, "attrs": {k: _enc(v, arrays) for k, v in n.op.attrs.items()},
                        "inputs": inputs, "saved": saved, "shape": list(n.shape), "dtype": n.dtype.name})
    out_name = arrays.add(output._data)
    return {"nodes": encoded, "output": out_name}, arrays.arrays


class _ArrayRef:
    """Stands in for an attribute array while a tape is checked before its arrays are read."""

    shape: tuple = ()
    dtype: Any = None


def _build_op(i: int, rec: Any, arrays: dict[str, Any] | None, xp: Any) -> Any:
    """Node ``i``'s op, built through the validating constructor (SnapshotError if it is bad).

    With ``arrays=None`` (checking a header before any tensor is read) attribute
    arrays are stand-ins: their names and the attributes' types are checked."""
    if not isinstance(rec, dict):
        raise SnapshotError(f"tape: node {i} is not a map")
    name = rec.get("op")
    if not isinstance(name, str) or name not in registry:
        raise SnapshotError(f"tape: node {i} uses op {name!r}, which is not in the op registry")
    attrs = rec.get("attrs")
    if not isinstance(attrs, dict) or not all(isinstance(k, str) for k in attrs):
        raise SnapshotError(f"tape: node {i} has malformed attributes")
    decoded = {k: _dec(v, arrays, xp) for k, v in attrs.items()}
    try:
        return get_op(name).from_attrs(decoded)
    except TypeError as exc:
        raise SnapshotError(f"tape: node {i} has invalid attributes: {exc}") from None


def check_tape(tape: Any) -> None:
    """On load: a stored tape (or None) must be a list of nodes whose ops are all in the
    registry and whose attributes are what those ops declare."""
    if tape is None:
        return
    if not isinstance(tape, dict) or not isinstance(tape.get("nodes"), list):
        raise SnapshotError("tape: malformed tape record")
    for i, rec in enumerate(tape["nodes"]):
        _build_op(i, rec, None, None)


def decode_tape(tape: Any, arrays: dict[str, Any], leaves: dict[str, Tensor], device: Any) -> Tensor:
    """Rebuild the nodes and return the output tensor; ``backward()`` on it works as before saving."""
    if not isinstance(tape, dict) or not isinstance(tape.get("nodes"), list):
        raise SnapshotError("tape: malformed tape record")
    xp = device.xp
    built: list[Node] = []
    for i, rec in enumerate(tape["nodes"]):
        op = _build_op(i, rec, arrays, xp)
        inputs, saved_recs, shape = rec.get("inputs"), rec.get("saved"), rec.get("shape")
        if not isinstance(inputs, list) or not isinstance(saved_recs, list):
            raise SnapshotError(f"tape: node {i} has malformed inputs or saved values")
        if not isinstance(shape, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 1 << 63 for s in shape):
            raise SnapshotError(f"tape: node {i} has an invalid shape")
        if rec.get("dtype") not in _DTYPE_NAMES:
            raise SnapshotError(f"tape: node {i} has an invalid dtype {str(rec.get('dtype'))[:40]!r}")
        edges = []
        for e in inputs:
            if e is None:
                edges.append(None)
            elif isinstance(e, list) and len(e) == 2 and e[0] == "node" and isinstance(e[1], int) and 0 <= e[1] < i:
                edges.append(built[e[1]])
            elif isinstance(e, list) and len(e) == 2 and e[0] == "leaf" and e[1] in leaves:
                edges.append(leaves[e[1]])
            else:
                raise SnapshotError(f"tape: node {i} has an invalid input reference {e!r}")
        saved = tuple(None if v is None else _dec(v, arrays, xp) for v in saved_recs)
        if len(saved) != len(edges) + 1:
            raise SnapshotError(f"tape: node {i} has {len(saved)} saved values for {len(edges)} inputs")
        built.append(Node(op, tuple(edges), saved, (), xp, tuple(shape), host_numpy.dtype(rec["dtype"])))
    out = tape.get("output")
    if not built or out not in arrays:
        raise SnapshotError("tape: the output value is missing")
    return Tensor._wrap(device_keeping_layout(xp, arrays[out]), built[-1], device)
