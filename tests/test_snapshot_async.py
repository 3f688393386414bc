"""``SnapshotManager.save_snapshot(..., blocking=False)``: the loop goes on while a thread writes.

The state is the one at the call; the handle reports the path or the failure; a failure is
raised by the next save or ``wait()``; the interpreter finishes saves in flight; a crash during
one leaves the previous snapshot the newest loadable one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import SnapshotError, SnapshotManager

pytestmark = pytest.mark.msgpack
ROOT = Path(__file__).resolve().parent.parent


def _setup():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    opt = optim.Adam(model.parameters(), lr=0.1)
    ex = mg.Executor(model, opt)
    return model, opt, ex


def _step(model, opt, ex):
    opt.zero_grad()
    (model(mg.randn(3, 4)) ** 2).sum().backward()
    opt.step()
    ex.step()


def test_the_snapshot_holds_the_state_at_the_call(tmp_path):
    model, opt, ex = _setup()
    _step(model, opt, ex)
    manager = SnapshotManager(tmp_path)
    want = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    handle = manager.save_snapshot(ex, blocking=False)
    for _ in range(3):  # the loop goes on, changing every parameter in place
        _step(model, opt, ex)
    path = handle.result()
    assert handle.done() and path == handle.path == manager.path_for(1) and handle.wait() == path
    snap = mg.snapshot.Snapshot.load(path)
    for k, v in want.items():
        assert snap.tensors[f"model.{k}"].tobytes() == v.tobytes(), k
    assert manager.load_latest().metadata.iteration == 1
    h2 = manager.save_snapshot(ex, blocking=False)
    manager.wait()
    assert h2.done() and manager.load_latest().metadata.iteration == 4


def test_a_failure_is_raised_by_the_handle_and_once_by_the_next_save(tmp_path, monkeypatch):
    model, opt, ex = _setup()
    manager = SnapshotManager(tmp_path)
    import minigrad_ckpt.snapshot.snapshot as snapmod

    original = snapmod.Snapshot.save

    def disk_full(self, path):
        raise OSError("disk full")

    monkeypatch.setattr(snapmod.Snapshot, "save", disk_full)
    failed = manager.save_snapshot(ex, 1, blocking=False)
    with pytest.raises(OSError, match="disk full"):
        failed.result()
    manager.save_snapshot(ex, 2, blocking=False)  # the first failure was seen by its handle already
    with pytest.raises(OSError, match="disk full"):
        manager.wait()  # ... the second one only here
    third = manager.save_snapshot(ex, 3, blocking=False)
    while not third.done():  # (not third.wait(): that would report the failure)
        import time

        time.sleep(0.01)
    monkeypatch.setattr(snapmod.Snapshot, "save", original)
    with pytest.raises(OSError, match="disk full"):
        manager.save_snapshot(ex, 4)  # raised at the next save_snapshot, before it writes
    assert manager.save_snapshot(ex, 5) == manager.path_for(5)
    manager.wait()  # nothing left to raise
    assert [p.name for p in manager.list_snapshots()] == ["snapshot-000000000005.mgsnap"]


def _script(body: str) -> str:
    return textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        import minigrad_ckpt as mg
        from minigrad_ckpt.snapshot import SnapshotManager
        ex = mg.Executor()
        ex.add_tensor("big", mg.tensor(np.ones(4 << 20)))  # 32 MiB
        manager = SnapshotManager(sys.argv[1])
    """) + textwrap.dedent(body)


def test_interpreter_exit_finishes_saves_in_flight(tmp_path):
    code = _script("""
        manager.save_snapshot(ex, 7, blocking=False)
        print("returned", flush=True)
    """)  # and the script ends at once
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    snap = SnapshotManager(tmp_path).load_latest()
    assert snap.metadata.iteration == 7 and float(snap.tensors["big"].sum()) == 4 << 20


def test_a_crash_during_an_asynchronous_save_leaves_the_previous_snapshot(tmp_path):
    code = _script("""
        manager.save_snapshot(ex, 1)
        import minigrad_ckpt.snapshot.fsutil as fsutil
        original = fsutil.os.replace
        def crash_before_rename(*a, **k):   # the new file is written, not yet renamed: die here
            os._exit(9)
        fsutil.os.replace = crash_before_rename
        handle = manager.save_snapshot(ex, 2, blocking=False)
        time.sleep(60)
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 9, out.stderr
    manager = SnapshotManager(tmp_path)
    assert manager.load_latest().metadata.iteration == 1
    assert [p.name for p in manager.list_snapshots()] == ["snapshot-000000000001.mgsnap"]


def test_blocking_is_the_default_and_returns_a_path(tmp_path):
    model, opt, ex = _setup()
    path = SnapshotManager(tmp_path).save_snapshot(ex)
    assert isinstance(path, Path) and path.exists()
    with pytest.raises(SnapshotError):
        SnapshotManager(tmp_path / "empty").load_latest()
    assert np.isfinite(mg.snapshot.Snapshot.load(path).tensors["model.0.weight"]).all()


def test_a_process_forked_while_the_lock_is_held_does_not_keep_it(tmp_path):
    """A DataLoader worker forked while a background save holds the directory's lock must not
    keep the lock (a flock belongs to the open file, which the child shares) -- it did, and the
    next save waited for the worker to exit."""
    import fcntl
    import multiprocessing
    import os
    import time

    manager = SnapshotManager(tmp_path)
    ctx = multiprocessing.get_context("fork")
    with manager._lock(exclusive=True):
        child = ctx.Process(target=time.sleep, args=(30,), daemon=True)
        child.start()
    try:
        fd = os.open(tmp_path / ".manager.lock", os.O_RDWR)
        try:
            for attempt in range(100):  # the child closes its copy as soon as it runs
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:  # before the fix: held for the child's whole life (30 s)
                    if attempt == 99:
                        raise
                    time.sleep(0.05)
        finally:
            os.close(fd)
    finally:
        child.terminate()
        child.join()


@pytest.mark.parametrize("view", [False, True])
def test_a_write_through_from_numpys_array_after_the_call_stays_out_of_the_snapshot(tmp_path, monkeypatch, view):
    # The caller's NumPy array is written without the engine (no write guard sees it): the tensor
    # sharing it must be copied at the call, not when the writer thread gets to it.
    from minigrad_ckpt.snapshot import background

    release = __import__("threading").Event()
    real = background.copy_keeping_layout

    def slow_copy(arr):  # the writer thread copies only after the loop's write below
        release.wait(10)
        return real(arr)

    monkeypatch.setattr(background, "copy_keeping_layout", slow_copy)
    source = np.ones((3, 4), dtype=np.float32)
    shared = mg.from_numpy(source)
    ex = mg.Executor()
    ex.add_tensor("buffer", shared.T if view else shared)
    ex.add_tensor("other", mg.ones(5))
    manager = SnapshotManager(tmp_path)
    handle = manager.save_snapshot(ex, 1, blocking=False)
    source[...] = 7.0
    release.set()
    handle.result()
    got = manager.load_latest().tensors["buffer"]
    assert np.array_equal(np.asarray(got), np.ones((4, 3) if view else (3, 4), dtype=np.float32))
