"""The checks of step 7: a snapshot format for a training state.

A snapshot is only useful if a run restored from it continues exactly as if
it had never stopped, and if a damaged file is refused rather than trained
on.  The grader trains a small model with the engine (SGD with momentum,
updating its state in place), stops it, saves, loads and continues, and
compares every bit with an uninterrupted run; then it flips every bit
position of a saved file, one file at a time, and truncates it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ..backend import host_numpy as np
from .grading import Check, Mismatch, attribute, case, own_work, property_check, raised

__all__ = ["SNAPSHOT_CHECKS"]

_CHECKSUM_HINT = ("store a checksum of the payload's bytes in the file (hashlib.sha256(payload).hexdigest() or "
                  "zlib.crc32), recompute it in load and raise ValueError when the two differ")


def _functions(module: ModuleType) -> tuple[Callable, Callable]:
    return attribute(module, "save", "the function"), attribute(module, "load", "the function")


def _small_state() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {"weight": rng.standard_normal((3, 4)).astype(np.float32).T,  # a transposed (strided) view
            "loss": np.array(0.125), "step": np.array(12, dtype=np.int64),
            "mask": np.array([True, False, True]), "empty": np.zeros((0, 3), np.float32),
            "bytes": np.arange(5, dtype=np.uint8)}


def _expect_same(saved: dict, loaded: Any, where: str) -> None:
    if not isinstance(loaded, dict) or set(loaded) != set(saved):
        got = sorted(loaded) if isinstance(loaded, dict) else type(loaded).__name__
        raise Mismatch(f"load to return a dict with the names {sorted(saved)} {where}", repr(got),
                       "save every entry under its name; load returns a dict of the same names")
    for name, a in saved.items():
        b = loaded[name]
        if not isinstance(b, np.ndarray) or b.dtype != a.dtype or b.shape != a.shape:
            got = f"{type(b).__name__} {getattr(b, 'dtype', '')} {getattr(b, 'shape', '')}"
            raise Mismatch(f"'{name}' back as an array of dtype {a.dtype} and shape {a.shape} {where}", got,
                           "store each array's dtype (a.dtype.str) and shape beside its bytes, and rebuild it "
                           "with np.frombuffer(data, dtype).reshape(shape)")
        if b.tobytes() != a.tobytes():
            raise Mismatch(f"'{name}' back with the same bytes {where}", f"{b.tolist()!r} for {a.tolist()!r}",
                           "save np.ascontiguousarray(a).tobytes(): a strided view's raw memory is not its "
                           "elements in order")
        if not b.flags.writeable:
            raise Mismatch(f"'{name}' back as an array training can update in place {where}",
                           "a read-only array", "np.frombuffer returns a read-only view of the bytes: .copy() it")


def _round_trip(save: Callable, load: Callable, state: dict, where: str = "") -> bytes:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "state.snap"
        with case(f"save(path, state) and load(path) {where}".rstrip()):
            save(path, state)
            loaded = load(path)
        _expect_same(state, loaded, where)
        return path.read_bytes()


def _small_round_trip(module: ModuleType) -> None:
    _round_trip(*_functions(module), _small_state(), "(float32 view, 0-d float64 and int64, bool, empty, uint8)")


def _is_msgpack(module: ModuleType) -> None:
    import msgpack

    raw = _round_trip(*_functions(module), _small_state())
    try:
        msgpack.unpackb(raw, strict_map_key=False)
    except Exception as exc:
        raise Mismatch("the file to be one msgpack object (msgpack.unpackb(file bytes) reads it)",
                       f"{type(exc).__name__}: {exc}",
                       "write msgpack.packb({...}) and nothing else: the checksum goes inside the object") from exc


def _random_states(module: ModuleType) -> None:
    from hypothesis import strategies as st

    from ..testing import strategies as mst

    save, load = _functions(module)
    dtypes = st.sampled_from(["float32", "float64", "int32", "int64", "bool", "complex128"])
    arrays = dtypes.flatmap(lambda dt: mst.arrays(dt, mst.shapes(max_dims=3, max_side=3)))
    states = st.dictionaries(st.text(min_size=1, max_size=8), arrays, min_size=1, max_size=4)
    property_check(states, lambda s: _round_trip(save, load, s, f"for the state {s!r}"), max_examples=15)


def _train(state: dict, steps: int) -> list[float]:
    """``steps`` steps of SGD with momentum on a linear model; the state is updated in place."""
    from .. import creation

    losses = []
    for _ in range(steps):
        rng = np.random.default_rng(int(state["step"]))  # the data of a step depends on the step only
        x = rng.standard_normal((8, 3)).astype(np.float32)
        target = rng.standard_normal((8, 2)).astype(np.float32)
        w = creation.tensor(state["weight"], requires_grad=True)
        b = creation.tensor(state["bias"], requires_grad=True)
        loss = ((creation.tensor(x) @ w + b - creation.tensor(target)) ** 2).mean()
        loss.backward()
        for name, p in (("weight", w), ("bias", b)):
            velocity = state[f"momentum.{name}"]
            velocity *= np.float32(0.9)
            velocity += p.grad.numpy()
            state[name] -= np.float32(0.1) * velocity
        state["step"] += 1
        losses.append(loss.item())
    return losses


def _initial_state() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"weight": rng.standard_normal((3, 2)).astype(np.float32), "bias": np.zeros(2, np.float32),
            "momentum.weight": np.zeros((3, 2), np.float32), "momentum.bias": np.zeros(2, np.float32),
            "step": np.array(0, dtype=np.int64)}


def _resume(module: ModuleType) -> None:
    save, load = _functions(module)
    straight = _initial_state()
    losses = _train(straight, 6)
    resumed = _initial_state()
    _train(resumed, 3)
    with tempfile.TemporaryDirectory() as d:
        save(Path(d) / "run.snap", resumed)
        restored = load(Path(d) / "run.snap")
    _expect_same(resumed, restored, "after 3 training steps")
    after = _train(restored, 3)
    if after != losses[3:]:
        raise Mismatch(f"the losses of steps 4-6 after restoring: {losses[3:]}", repr(after),
                       "everything the next step reads must be in the snapshot, bit for bit")
    for name, a in straight.items():
        if a.tobytes() != restored[name].tobytes():
            raise Mismatch(f"'{name}' after 6 steps == {a.tolist()}", repr(restored[name].tolist()),
                           "everything the next step reads must be in the snapshot, bit for bit")


def _refused(load: Callable, path: Path, raw: bytes, what: str) -> None:
    path.write_bytes(raw)
    try:
        load(path)
    except ValueError:  # msgpack's own errors for a malformed file are ValueErrors too
        return
    except Exception as exc:
        raise Mismatch(f"load to raise ValueError for {what}", raised(exc, Path(load.__code__.co_filename)),
                       "a damaged file may hold anything where save wrote a field: check that each is there "
                       "and has the type save writes before using it, and raise ValueError when it does not "
                       "(a caller catches ValueError to know the file is damaged)") from exc
    raise Mismatch(f"load to refuse (raise ValueError for) {what}", "it returned a state", _CHECKSUM_HINT)


def _flipped_bits(module: ModuleType) -> None:
    save, load = _functions(module)
    raw = _round_trip(save, load, {"weight": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3),
                                   "step": np.array(3, dtype=np.int64)})
    with tempfile.TemporaryDirectory() as d:
        for offset in range(len(raw)):
            bit = (offset * 5) % 8
            damaged = bytearray(raw)
            damaged[offset] ^= 1 << bit
            _refused(load, Path(d) / "damaged.snap", bytes(damaged),
                     f"the saved file with bit {bit} of byte {offset} (of {len(raw)}) flipped")


def _truncated(module: ModuleType) -> None:
    save, load = _functions(module)
    raw = _round_trip(save, load, _small_state())
    with tempfile.TemporaryDirectory() as d:
        for keep in (0, 1, len(raw) // 2, len(raw) - 1):
            _refused(load, Path(d) / "cut.snap", raw[:keep], f"the saved file cut to {keep} of its {len(raw)} bytes")


SNAPSHOT_CHECKS = [
    own_work({"minigrad_ckpt": "the engine's own save and load are what this step writes: a snapshot of NumPy arrays "
                               "needs only msgpack, hashlib (or zlib) and NumPy"}),
    Check("save then load gives back every array: dtype, shape and bytes", _small_round_trip),
    Check("the file is one msgpack object", _is_msgpack),
    Check("random states round trip (Hypothesis)", _random_states),
    Check("a run restored after 3 steps continues bit for bit", _resume),
    Check("a file with any one bit flipped is refused", _flipped_bits),
    Check("a truncated file is refused", _truncated),
]
