"""Step 7: a snapshot format -- save a training state, restore it bit for bit, refuse a damaged file.

A long training run stops (a preemption, a crash, a deadline) and must go on
from where it was: the weights, the optimizer's state (momentum), the step
counter -- every number the next step reads -- saved to a file and restored
*exactly*.  A restored run that differs in the last bit already diverges
from the one that never stopped.  And a file damaged on disk or cut short by
a crash mid-write must be refused, never silently trained on.

A state here is a dict of NumPy arrays (``{"weight": ..., "momentum.weight":
..., "step": np.array(3)}``).  Write:

* ``save(path, state)``: one msgpack object in the file.  For each array
  keep its dtype (``a.dtype.str``), its shape and its bytes
  (``np.ascontiguousarray(a).tobytes()``: a strided view's memory is not its
  elements in order).  Pack those entries into a *payload* (bytes), compute a
  checksum of the payload (``hashlib.sha256(payload).hexdigest()``), and write
  ``msgpack.packb({"format": ..., "checksum": ..., "payload": payload})``.
* ``load(path)``: read the object, recompute the payload's checksum and
  raise ``ValueError`` if it differs (or if anything else is not as ``save``
  writes it); then rebuild each array with ``np.frombuffer(data,
  dtype).reshape(shape)`` -- and ``.copy()`` it, since ``frombuffer`` gives a
  read-only view and training updates arrays in place.

(minigrad_ckpt's own format adds a header that can be read alone, aligned
payloads and several checksums: ``docs/snapshot-format.md``.)

(Not with minigrad_ckpt's ``mg.save`` / ``mg.load``: that is what you are writing.)

Check with ``minigrad-ckpt course check 7``: random states round trip
(Hypothesis); a model trained 3 steps with the engine, saved, loaded and
trained 3 more must match 6 uninterrupted steps bit for bit; and the saved
file with any single bit flipped, or cut short, must be refused.
"""

from __future__ import annotations

import hashlib

import msgpack
import numpy as np

FORMAT = "course-snapshot-1"


def save(path, state):
    """Write ``state`` (a dict of name -> NumPy array) to ``path``: one msgpack object with a checksum."""
    raise NotImplementedError("step 7: pack dtype, shape and bytes of each array; checksum the payload")


def load(path):
    """Read a state written by ``save``; ValueError if the file is damaged."""
    raise NotImplementedError("step 7: check the checksum, then rebuild each array")


if __name__ == "__main__":
    state = {"weight": np.ones((2, 3), np.float32), "step": np.array(3)}
    save("state.snap", state)
    print(load("state.snap"))
    print(hashlib.sha256(b"payload").hexdigest(), msgpack.packb({"a": 1}))
