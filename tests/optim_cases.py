"""What the optimizer and scheduler tests share: one optimizer of each kind (with its state-making options
on), torch's numbers from a fixture, and the check that a run resumed from a snapshot goes on as the
uninterrupted one, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from minigrad_ckpt import optim
from minigrad_ckpt.snapshot import Snapshot

# each optimizer that steps complex parameters, with the options that give it the most state
OPTIMIZERS = {
    "SGD": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    "Adam": lambda ps: optim.Adam(ps, lr=0.1, amsgrad=True),
    "AdamW": lambda ps: optim.AdamW(ps, lr=0.1),
    "Adamax": lambda ps: optim.Adamax(ps, lr=0.1),
    "NAdam": lambda ps: optim.NAdam(ps, lr=0.1),
    "RAdam": lambda ps: optim.RAdam(ps, lr=0.1),
    "Adagrad": lambda ps: optim.Adagrad(ps, lr=0.1),
    "Adadelta": lambda ps: optim.Adadelta(ps),
    "RMSprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Rprop": lambda ps: optim.Rprop(ps, lr=0.1),
    "ASGD": lambda ps: optim.ASGD(ps, lr=0.1),
    "LBFGS": lambda ps: optim.LBFGS(ps, lr=0.5, max_iter=3),
}


def torch_numbers(name: str) -> Any:
    """The fixture ``tests/data/<name>.json`` a ``tests/data/make_*.py`` script wrote from torch."""
    return json.loads((Path(__file__).parent / "data" / f"{name}.json").read_text())


def assert_resumes_bit_for_bit(tmp_path, build, train, before=2, after=3, restored=None):
    """``build()`` gives a run's parts, the last its ``Executor``; ``train(*parts, n)`` takes ``n`` steps
    and returns what they gave.  A run snapshotted after ``before`` steps and restored into a fresh one
    (``restored(*parts)`` checks it) goes on as the uninterrupted one for ``after`` steps."""
    parts = build()
    train(*parts, before)
    Snapshot.from_executor(parts[-1]).save(tmp_path / "s.mgsnap")
    want = train(*parts, after)
    parts = build()
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(parts[-1])
    if restored is not None:
        restored(*parts)
    assert train(*parts, after) == want
