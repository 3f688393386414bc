"""``mg.load`` of a file ``mg.save`` did not write says what the file is, and for PyTorch's own
files how to bring their state dict across.  Found porting kuangliu/pytorch-cifar's main.py: its
``--resume`` path is ``checkpoint = torch.load('./checkpoint/ckpt.pth')``, and after the rename
``mg.load`` of a checkpoint PyTorch wrote said only "not a minigrad-ckpt snapshot, or its header
seal is missing or malformed" -- true, but no help: the file is PyTorch's zip (or legacy pickle)
format, which ``mg.load`` deliberately never unpickles.  Only the file's magic bytes and a zip's
list of names are read, never its pickle.

The zip below has the layout ``torch.save`` (torch 2.13) writes: ``<name>/data.pkl``,
``<name>/.format_version``, ``<name>/data/0``..."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotError

pytestmark = pytest.mark.msgpack


class _NeverUnpickled:
    """A pickled instance of this class, once unpickled, would run ``__reduce__``'s callable."""

    def __reduce__(self):
        return (_boom, ())


def _boom():
    raise AssertionError("mg.load unpickled the file")


def _pytorch_zip(path):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ckpt/data.pkl", pickle.dumps({"net": _NeverUnpickled()}, protocol=2))
        archive.writestr("ckpt/.format_version", "1")
        archive.writestr("ckpt/data/0", np.zeros(4, np.float32).tobytes())
    return path


def test_a_pytorch_zip_checkpoint_is_named_with_the_way_across(tmp_path):
    path = _pytorch_zip(tmp_path / "ckpt.pth")
    with pytest.raises(SnapshotError, match=r"ckpt\.pth: a PyTorch file \(torch\.save's zip format") as info:
        mg.load(path)
    assert "never unpickles" in str(info.value) and "np.savez" in str(info.value)
    with pytest.raises(SnapshotError, match=r"^the file object: a PyTorch file"):
        mg.load(io.BytesIO(path.read_bytes()))


def test_a_legacy_pickle_checkpoint_is_named(tmp_path):
    """``torch.save(..., _use_new_zipfile_serialization=False)`` writes a bare pickle (protocol 2)."""
    path = tmp_path / "legacy.pth"
    path.write_bytes(pickle.dumps(_NeverUnpickled(), protocol=2))
    with pytest.raises(SnapshotError, match=r"legacy\.pth: a pickle \(PyTorch's legacy torch\.save format"):
        mg.load(path)


def test_numpy_files_are_named():
    npz, npy = io.BytesIO(), io.BytesIO()
    np.savez(npz, w=np.ones(2))
    np.save(npy, np.ones(2))
    with pytest.raises(SnapshotError, match="a NumPy .npz archive: read it with np.load"):
        mg.load(io.BytesIO(npz.getvalue()))
    with pytest.raises(SnapshotError, match="a NumPy .npy file: read it with np.load"):
        mg.load(io.BytesIO(npy.getvalue()))


def test_other_bytes_keep_the_snapshot_readers_message():
    with pytest.raises(SnapshotError, match="not a minigrad-ckpt snapshot"):
        mg.load(io.BytesIO(b"x" * 100))


def test_the_way_across_loads(tmp_path):
    """The route the message gives: a state dict as NumPy arrays in an .npz, loaded by its keys
    (num_batches_tracked, an int64 scalar, included)."""
    net = mg.nn.Sequential(mg.nn.Conv2d(3, 4, 3, bias=False), mg.nn.BatchNorm2d(4))
    arrays = {k: np.full(v.shape, 0.5, dtype=v.numpy().dtype) for k, v in net.state_dict().items()}
    np.savez(tmp_path / "sd.npz", **arrays)
    net.load_state_dict(np.load(tmp_path / "sd.npz"))
    assert net[1].running_var.tolist() == [0.5] * 4 and net[0].weight.dtype == mg.float32
