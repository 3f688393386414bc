"""``restore_into`` says what of a snapshot it had no place for in the executor: a resume script that
forgot to register its DataLoader, or built no scheduler, would otherwise go on from a fresh one --
another data order, another learning rate than the run that never stopped -- without a word.  It
warns, naming each part; it does not refuse (restoring a training snapshot's weights into an executor
of the model alone, for inference, is a use)."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.optim import lr_scheduler
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager
from minigrad_ckpt.utils.data import DataLoader, TensorDataset


def _parts():
    model = nn.Linear(3, 2)
    opt = mg.optim.Adam(model.parameters(), lr=0.1)
    sched = lr_scheduler.ReduceLROnPlateau(opt)  # (adds no initial_lr to the groups: nothing else notices it)
    loader = DataLoader(TensorDataset(mg.randn(8, 3)), batch_size=2, shuffle=True)
    next(iter(loader))
    return model, opt, sched, loader


def _snapshot(tmp_path):
    model, opt, sched, loader = _parts()
    ex = mg.Executor(model, opt, sched)
    ex.register_state("loader", loader)
    manager = SnapshotManager(tmp_path)
    manager.save_snapshot(ex, 1)
    return manager.load_latest()


def _executor(with_model, with_opt, with_sched, with_loader):
    model, opt, sched, loader = _parts()
    ex = mg.Executor(model if with_model else None, opt if with_opt else None, sched if with_sched else None)
    if with_loader:
        ex.register_state("loader", loader)
    return ex


@pytest.mark.parametrize("left_out", ["model", "optimizer", "scheduler", "loader"])
def test_each_part_left_out_is_named(tmp_path, left_out):
    snap = _snapshot(tmp_path)
    keep = {"model": left_out != "model", "opt": left_out not in ("model", "optimizer"),
            "sched": left_out not in ("model", "optimizer", "scheduler"), "loader": left_out != "loader"}
    ex = _executor(keep["model"], keep["opt"], keep["sched"], keep["loader"])
    with pytest.warns(UserWarning, match="not restored") as record:
        snap.restore_into(ex)
    text = str(record[0].message)
    assert {"model": "model's tensors", "optimizer": "Adam", "scheduler": "ReduceLROnPlateau",
            "loader": "['loader']"}[left_out] in text
    assert record[0].filename == __file__  # (points at the caller's line)
    assert ex.iteration == 1  # restored all the same


def test_a_whole_resume_is_silent(tmp_path):
    snap = _snapshot(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        snap.restore_into(_executor(True, True, True, True))


def test_an_in_memory_snapshot_of_user_tensors_is_silent():
    ex = mg.Executor()
    ex.add_tensor("w", mg.ones(3))
    snap = Snapshot.from_executor(ex)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        snap.restore_into(mg.Executor())
