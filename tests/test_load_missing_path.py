"""A path ``mg.load`` or ``Snapshot.load`` cannot read is a SnapshotError and also the OSError
PyTorch's ``torch.load`` raises for it (torch 2.13: ``FileNotFoundError`` for a missing file,
``IsADirectoryError`` for a directory), so that a resume written for PyTorch --
``try: ckpt = load(path) except FileNotFoundError: ckpt = None`` -- starts afresh here too.  Before,
only ``SnapshotError`` was raised and the ``except`` let it through."""

from __future__ import annotations

import pickle

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotManager

pytestmark = pytest.mark.msgpack

LOADERS = {"mg.load": mg.load, "Snapshot.load": Snapshot.load}


def _resume_or_start(load, path):
    """The PyTorch idiom."""
    try:
        return load(path)
    except FileNotFoundError:
        return None


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_missing_file_is_a_file_not_found_error_and_a_snapshot_error(tmp_path, loader):
    path = tmp_path / "ckpt.pt"
    assert _resume_or_start(LOADERS[loader], path) is None
    with pytest.raises(SnapshotError, match=r"cannot open snapshot '.*ckpt\.pt': No such file or directory") as info:
        LOADERS[loader](str(path))
    assert isinstance(info.value, FileNotFoundError)
    again = pickle.loads(pickle.dumps(info.value))  # (as an error crosses processes)
    assert type(again) is type(info.value) and str(again) == str(info.value)
    mg.save({"w": mg.ones(2)}, path)
    assert _resume_or_start(mg.load, path)["w"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_directory_is_an_is_a_directory_error(tmp_path, loader):
    with pytest.raises(IsADirectoryError, match="is not a regular file \\(it is a directory\\)") as info:
        LOADERS[loader](tmp_path)
    assert isinstance(info.value, SnapshotError)


def test_a_missing_base_is_damage_not_absence(tmp_path):
    """An incremental snapshot whose base was deleted exists: the error is a SnapshotError only,
    which an ``except FileNotFoundError`` meant for 'no checkpoint yet' does not swallow."""
    ex = mg.Executor()
    ex.add_tensor("w", mg.ones(3))
    manager = SnapshotManager(tmp_path, config=SnapshotConfig(incremental=True))
    manager.save_snapshot(ex, 1)
    ex.add_tensor("v", mg.zeros(2))
    newest = manager.save_snapshot(ex, 2)
    manager.path_for(1).unlink()
    with pytest.raises(SnapshotError, match="needs its base") as info:
        Snapshot.load(newest)
    assert not isinstance(info.value, OSError)
