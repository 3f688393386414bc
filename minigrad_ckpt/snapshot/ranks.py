"""Per-rank state of a data-parallel snapshot: each rank's RNG and registered objects.

In a run of N > 1 ranks the model and optimizer are replicated -- rank 0
writes them once, in the snapshot file -- but each rank draws its own random
numbers and reads its own shard of the data.  So each rank writes its own
small *rank file* beside the snapshot::

    ranks-<iteration>-<token>.<rank>-of-<N>.mgrank

(a msgpack map ``{"format", "version", "rank", "world_size", "iteration",
"rng", "objects"}`` followed by its CRC-32, written atomically).  A rank whose
model buffers or user tensors differ from rank 0's -- BatchNorm statistics of
its own batches, which ``DistributedDataParallel(broadcast_buffers=False)``
never overwrites, its own counters -- adds them as ``"tensors"``: ``{snapshot
tensor name: {"dtype", "shape", "data"}}``.  Rank 0 then
writes the snapshot, whose metadata lists the rank files and their CRCs
(``distributed.rank_files``), and last the manifest -- the commit point: a
crash of any rank at any moment leaves the previous snapshot the newest one.

Loading with M ranks (:func:`assign`): rank ``r`` gets old rank ``r``'s RNG,
object states and tensors when ``r < N``; a rank the old run did not have gets rank
0's objects and rank 0's RNG seed plus ``r`` (what ``manual_seed_per_rank``
would have given it).  When ``M != N`` (an elastic resume) every old rank's
object states also go to the in-memory section ``ranks``, from which objects
that can -- a DataLoader, ``reshard_state_dict`` -- take their share of the
interrupted epoch.  A snapshot written by one process (no rank files) is the
one old rank.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from .. import random as _random
from ..backend import host_numpy
from .format import SnapshotError, msgpack, open_regular, short
from .fsutil import atomic_write
from .sections import SECTIONS

__all__ = ["RANK_FILES_KEY", "WORLD_KEY", "RNG_KEY", "rank_file_name", "write_rank_state", "assign", "is_rank_file"]

RANK_FILES_KEY = "distributed.rank_files"   # JSON list of [file name, CRC-32], in rank order
WORLD_KEY = "distributed.world_size"
RNG_KEY = "distributed.rng_states"          # older distributed snapshots: every rank's RNG state
_FORMAT = "minigrad-ckpt/rank-state"
_NAME = re.compile(r"^ranks-\d{12,19}-[0-9a-f]{8,32}\.\d{1,6}-of-\d{1,6}\.mgrank$")
_MAX_BYTES = 1 << 30


def rank_file_name(iteration: int, token: str, rank: int, world: int) -> str:
    return f"ranks-{iteration:012d}-{token}.{rank}-of-{world}.mgrank"


def is_rank_file(name: Any) -> bool:
    """Whether ``name`` is a rank file's name as :func:`rank_file_name` writes it."""
    return isinstance(name, str) and _NAME.match(name) is not None


def write_rank_state(directory: Path, name: str, iteration: int, rank: int, world: int, rng: Any, objects: Any,
                     fsync: bool = True, tensors: dict[str, Any] | None = None) -> int:
    """Write this rank's state atomically; returns the file's CRC-32 (the snapshot records it).
    ``tensors`` (snapshot name -> host array): this rank's own buffers and user tensors, if they are."""
    state = {"format": _FORMAT, "version": 1, "rank": rank, "world_size": world,
             "iteration": iteration, "rng": rng, "objects": objects}
    if tensors:
        state["tensors"] = {n: {"dtype": str(a.dtype), "shape": list(a.shape),
                                "data": host_numpy.ascontiguousarray(a).tobytes()} for n, a in tensors.items()}
    body = msgpack.packb(state, use_bin_type=True)
    crc = zlib.crc32(body)
    atomic_write(directory / name, lambda f: f.write(body + struct.pack(">I", crc)), fsync=fsync)
    return crc


def _read_rank_state(path: Path, crc: int, rank: int, world: int) -> dict[str, Any]:
    """A rank file, checked: its CRC is the one the snapshot recorded, its fields have their shapes."""
    try:
        f, size, _ = open_regular(path)
        with f:
            if size > _MAX_BYTES:
                raise SnapshotError(f"{path.name} is over 1 GiB")
            raw = f.read(size)
    except SnapshotError:  # (open_regular's own, a FileNotFoundError too: its message names the file)
        raise
    except OSError as exc:
        raise SnapshotError(f"cannot read the rank file {path.name}: {exc.strerror or exc}") from None
    body, trailer = raw[:-4], raw[-4:]
    if len(raw) < 4 or struct.unpack(">I", trailer)[0] != crc or zlib.crc32(body) != crc:
        raise SnapshotError(f"the rank file {path.name} does not match the CRC its snapshot recorded")
    try:
        state = msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises many types for malformed input
        raise SnapshotError(f"the rank file {path.name} is malformed: {exc}"[:200]) from None
    if not (isinstance(state, dict) and state.get("format") == _FORMAT and state.get("version") == 1
            and state.get("rank") == rank and state.get("world_size") == world):
        raise SnapshotError(f"{path.name} is not rank {rank} of {world}'s state")
    for section in SECTIONS:
        if section.key in ("rng", "objects"):
            section.check(state.get(section.key))
    return state


def _old_states(snap: Any, directory: Path) -> list[dict[str, Any]]:
    """Every old rank's ``{"rng", "objects"}``, in rank order."""
    files = snap.get_metadata(RANK_FILES_KEY)
    if files is None:
        rngs = snap.get_metadata(RNG_KEY)  # a distributed snapshot from before rank files
        if rngs is not None:
            return [{"rng": r, "objects": snap.state.get("objects")} for r in json.loads(rngs)]
        return [{"rng": snap.state.get("rng"), "objects": snap.state.get("objects")}]
    try:
        listed = json.loads(files)
        if not (isinstance(listed, list) and listed and all(
                isinstance(e, list) and len(e) == 2 and is_rank_file(e[0]) and isinstance(e[1], int)
                for e in listed)):
            raise ValueError("not a list of [name, crc]")
    except ValueError as exc:
        raise SnapshotError(f"{snap.path.name}: its list of rank files is malformed ({exc})") from None
    world = len(listed)
    return [_read_rank_state(directory / name, crc, r, world) for r, (name, crc) in enumerate(listed)]


def assign(snap: Any, rank: int, world: int) -> Any:
    """Give rank ``rank`` of ``world`` its own state in ``snap`` (see the module docstring)."""
    old = _old_states(snap, Path(snap.path).parent)
    mine = old[rank] if rank < len(old) else old[0]
    rng = mine["rng"]
    if rank >= len(old) and rng is not None:
        rng = {"seed": (rng["seed"] + rank) & _random._MASK64, "counter": rng["counter"]}
    snap.state["rng"] = rng
    snap.state["objects"] = mine["objects"]
    _take_tensors(snap, mine.get("tensors"))
    snap.state["ranks"] = None if len(old) == world else {
        "rank": rank, "world_size": world, "states": [o["objects"] for o in old]}
    return snap


def world_of(snap: Any) -> int:
    """How many ranks wrote ``snap`` (1 for a single process)."""
    files = snap.get_metadata(RANK_FILES_KEY)
    if files is not None:
        try:
            return len(json.loads(files))
        except ValueError:
            raise SnapshotError(f"{snap.path.name}: its list of rank files is malformed") from None
    world = snap.get_metadata(WORLD_KEY)
    return int(world) if world is not None and world.isdigit() else 1


def _take_tensors(snap: Any, tensors: Any) -> None:
    """Put a rank's own buffers and user tensors (from its rank file) in place of rank 0's in
    ``snap``'s tensors, each checked against the one it replaces: a tensor of the snapshot (not
    an optimizer's or a tape's) of the same dtype and shape, and exactly its number of bytes."""
    if tensors is None:
        return
    if not isinstance(tensors, dict):
        raise SnapshotError("a rank file's tensors are not a map")
    new = {}
    for name, entry in tensors.items():
        ours = isinstance(name, str) and not name.startswith(("optimizer.", "__tape__/"))
        old = snap._tensors.get(name) if ours else None
        if old is None:
            raise SnapshotError(f"a rank file holds the tensor {short(name)}, which the snapshot lacks")
        if not (isinstance(entry, dict) and set(entry) == {"dtype", "shape", "data"}
                and entry["dtype"] == str(old.dtype) and entry["shape"] == list(old.shape)
                and isinstance(entry["data"], bytes) and len(entry["data"]) == old.nbytes):
            raise SnapshotError(f"a rank file's tensor {name} is not a {old.dtype} array of shape "
                                f"{tuple(old.shape)}")
        new[name] = host_numpy.frombuffer(entry["data"], dtype=old.dtype).reshape(old.shape).copy()
    snap._tensors.update(new)
