"""Write ``snapshot_before_sections.mgsnap``: a training snapshot with every section of state.

It was written once, offline, by the package as it was before the snapshot sections became
one table (``minigrad_ckpt/snapshot/sections.py``), and is kept so that
``tests/test_snapshot_sections.py`` proves files written by older versions still load and
restore.  Run from a checkout of that version: ``python tests/data/make_snapshot_fixture.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig

HERE = Path(__file__).parent


class Counter:
    """A registered object: plain-data state beside the tensors."""

    def __init__(self) -> None:
        self.seen = 0

    def state_dict(self) -> dict:
        return {"seen": self.seen}

    def load_state_dict(self, state: dict) -> None:
        self.seen = state["seen"]


def build(seed: int):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.05)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    ex = mg.Executor(model, opt, sched)
    counter = ex.register_state("counter", Counter())
    return model, opt, sched, ex, counter


def inputs():
    return np.linspace(-1.0, 1.0, 15, dtype=np.float32).reshape(5, 3)


def main() -> None:
    model, opt, sched, ex, counter = build(0)
    x = ex.add_tensor("x", inputs())
    for _ in range(2):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        sched.step()
        counter.seen += 5
        ex.step()
    ex.record((model(x) ** 2).mean())
    config = SnapshotConfig(include_tape=True, enable_compression=True, fsync=False)
    Snapshot.from_executor_with_config(ex, None, config).save(HERE / "snapshot_before_sections.mgsnap")


if __name__ == "__main__":
    main()
