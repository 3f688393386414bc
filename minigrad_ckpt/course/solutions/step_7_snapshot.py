"""Step 7, a reference solution: a snapshot format with msgpack and a checksum."""

from __future__ import annotations

import hashlib

import msgpack
import numpy as np

FORMAT = "course-snapshot-1"


def save(path, state):
    """Write ``state`` (a dict of name -> NumPy array) to ``path``: one msgpack object with a checksum."""
    entries = {name: {"dtype": a.dtype.str, "shape": list(a.shape), "data": np.ascontiguousarray(a).tobytes()}
               for name, a in state.items()}
    payload = msgpack.packb(entries)
    blob = msgpack.packb({"format": FORMAT, "checksum": hashlib.sha256(payload).hexdigest(), "payload": payload})
    with open(path, "wb") as f:
        f.write(blob)


def load(path):
    """Read a state written by ``save``; ValueError if the file is damaged."""
    with open(path, "rb") as f:
        outer = msgpack.unpackb(f.read())
    if not isinstance(outer, dict) or outer.get("format") != FORMAT or not isinstance(outer.get("payload"), bytes):
        raise ValueError(f"{path} is not a {FORMAT} file")
    if hashlib.sha256(outer["payload"]).hexdigest() != outer.get("checksum"):
        raise ValueError(f"{path} is damaged: its checksum does not match its contents")
    entries = msgpack.unpackb(outer["payload"])
    return {name: np.frombuffer(e["data"], dtype=np.dtype(e["dtype"])).reshape(e["shape"]).copy()
            for name, e in entries.items()}
