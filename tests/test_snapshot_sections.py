"""The sections of a snapshot (``minigrad_ckpt/snapshot/sections.py``): one table that capture,
the header writer and reader, ``snapshot inspect`` and both restores walk; files written
before the table still load and restore."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.cli import main as cli_main
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, sections

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import make_snapshot_fixture as fixture  # noqa: E402  (the script that wrote the old file)

OLD_FILE = DATA / "snapshot_before_sections.mgsnap"


def test_the_table_names_every_header_section_once() -> None:
    keys = [s.key for s in sections.SECTIONS]
    assert keys == ["rng", "optimizer", "scheduler", "tape", "objects", "model_extra", "ranks"]
    assert len(set(keys)) == len(keys)


def test_a_file_written_before_the_table_loads_and_restores(tmp_path: Path) -> None:
    snap = Snapshot.load(OLD_FILE)
    assert snap.metadata.iteration == 2
    model, opt, sched, ex, counter = fixture.build(seed=1)  # other weights, fresh state
    snap.restore_into(ex)
    for name, p in model.state_dict().items():
        assert np.array_equal(p.numpy(), snap.tensors[f"model.{name}"])
    assert [st["step"] for st in opt.state.values()] == [2] * 4
    assert sched.last_epoch == 2 and opt.param_groups[0]["lr"] == pytest.approx(0.05 * 0.25)
    assert counter.seen == 10
    assert mg.get_rng_state() == snap.state["rng"]
    assert ex.iteration == 2
    # the restored tape runs backward to the gradients of a fresh forward pass
    x = ex.get_tensor("x")
    opt.zero_grad()
    ex.tape.backward()
    from_tape = [p.grad.numpy().copy() for p in model.parameters()]
    opt.zero_grad()
    (model(x) ** 2).mean().backward()
    for a, p in zip(from_tape, model.parameters()):
        np.testing.assert_allclose(a, p.grad.numpy(), rtol=1e-6, atol=1e-7)
    # and a new executor from it keeps each section's state
    fresh = snap.restore()
    assert fresh.restored_optimizer_state == snap.state["optimizer"]
    assert fresh.restored_object_states == {"counter": {"type": "Counter", "state": {"seen": 10}}}
    assert fresh.tape is not None


def test_saving_again_keeps_the_old_files_sections(tmp_path: Path) -> None:
    model, opt, sched, ex, counter = fixture.build(seed=1)
    Snapshot.load(OLD_FILE).restore_into(ex)
    again = tmp_path / "again.mgsnap"
    Snapshot.from_executor_with_config(ex, None, SnapshotConfig(include_tape=True, fsync=False)).save(again)
    old, new = Snapshot.load(OLD_FILE), Snapshot.load(again)
    for s in sections.SECTIONS:
        if s.key == "optimizer":  # the groups now also keep PyTorch's flags (maximize=False, foreach=None...)
            flags = {"maximize", "foreach", "fused", "capturable", "differentiable", "decoupled_weight_decay"}
            groups = [{k: v for k, v in g.items() if k not in flags} for g in new.state[s.key]["param_groups"]]
            assert {**new.state[s.key], "param_groups": groups} == old.state[s.key]
        elif s.key != "rng":  # restoring set the engine's generator; nothing has drawn since
            assert new.state[s.key] == old.state[s.key], s.key
    assert new.state["rng"] == old.state["rng"]
    assert set(new.tensors) == set(old.tensors)


class _Note(sections.Section):
    """A made-up section: an executor attribute ``note`` (a string), optional like any new one."""

    key = "note"
    optional = True

    def capture(self, ex, config, arrays):
        return getattr(ex, "note", None)

    def check(self, value):
        if value is not None and not isinstance(value, str):
            raise SnapshotError("the header's note is not a string")

    def describe(self, value):
        return value

    def build(self, ex, value, ctx):
        return value

    def install(self, ex, built):
        ex.note = built

    def attach(self, ex, value, ctx):
        ex.restored_note = value


def test_a_section_added_to_the_table_goes_through_every_step(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sections, "SECTIONS", sections.SECTIONS + (_Note(),))
    model, opt, sched, ex, counter = fixture.build(seed=0)
    ex.note = "warm-up done"
    path = tmp_path / "note.mgsnap"
    Snapshot.from_executor(ex).save(path)                      # capture and the header writer
    assert cli_main(["snapshot", "inspect", str(path)]) == 0   # inspect
    assert "note        warm-up done" in capsys.readouterr().out
    snap = Snapshot.load(path)                                 # the header reader
    assert snap.state["note"] == "warm-up done"
    assert snap.restore().restored_note == "warm-up done"      # restore
    ex.note = None
    snap.restore_into(ex)                                      # restore_into
    assert ex.note == "warm-up done"
    # optional: a file without the field (an older one) loads, and is read as None
    old = Snapshot.load(OLD_FILE)
    assert old.state["note"] is None
    # the reader checks the field, and a reader without the section refuses it as unknown
    shutil.copy(path, tmp_path / "copy.mgsnap")
    monkeypatch.setattr(sections, "SECTIONS", sections.SECTIONS[:-1])
    with pytest.raises(SnapshotError, match="unknown"):
        Snapshot.load(tmp_path / "copy.mgsnap")
