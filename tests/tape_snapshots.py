"""A recorded tape's snapshot round trip, shared by the tests that check one (imported, not collected).

``gradients_before_and_after_restore`` records ``loss_of(model)`` on the executor
``build()`` makes, snapshots it with the tape (``SnapshotConfig.for_training()``),
runs backward, restores the snapshot into a fresh ``build()`` and runs backward
on the restored tape: the two lists of parameter gradients, as bytes, which a
test asserts equal (bitwise).  ``context`` wraps recording and both backwards
(``mg.detect_anomaly`` for one of them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig


def gradients_before_and_after_restore(build: Callable[[], tuple[Any, Any]], loss_of: Callable[[Any], Any],
                                       path: Path, context: Callable[[], Any] = contextlib.nullcontext
                                       ) -> tuple[list[bytes], list[bytes]]:
    model, ex = build()
    with context():
        loss = loss_of(model)
        ex.record(loss)
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(path)
        loss.backward()
        before = [p.grad.numpy().tobytes() for p in model.parameters()]
        model2, ex2 = build()
        Snapshot.load(path).restore_into(ex2)
        ex2.tape.backward()
    return before, [p.grad.numpy().tobytes() for p in model2.parameters()]
