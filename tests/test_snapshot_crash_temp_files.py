"""A saver killed in the middle of a write leaves its temp file; the next save removes it.

``atomic_write`` writes a temp file beside the target and renames it; a process killed before
the rename (SIGKILL during an asynchronous save, a power cut) leaves ``.<name>.<...>.tmp``
behind, a snapshot's worth of disk each time. The manager removes such files of the names it
writes once their writer is gone -- and never a live writer's, another host's (a shared file
system), one of another naming, or a foreign file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotManager, fsutil

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # PYTHONPATH: set by conftest.py

CRASHING_WRITER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from minigrad_ckpt.snapshot.fsutil import atomic_write

    def write(f):
        f.write(b"half a snapshot")
        f.flush()
        os._exit(3)  # killed before the rename

    atomic_write(Path(sys.argv[1]) / sys.argv[2], write)
""")


def crash_while_writing(directory: Path, name: str) -> None:
    run = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(directory), name], env=ENV, timeout=120)
    assert run.returncode == 3


def temp_files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir() if p.name.endswith(".tmp")}


def dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, timeout=60)
    return int(child.stdout)


def executor() -> mg.Executor:
    ex = mg.Executor()
    ex.add_tensor("w", np.arange(4096, dtype=np.float32))
    return ex


def test_a_crashed_writers_temp_files_go_with_the_next_save(tmp_path):
    crash_while_writing(tmp_path, "snapshot-000000000012.mgsnap")
    crash_while_writing(tmp_path, "MANIFEST.msgpack")
    crash_while_writing(tmp_path, "ranks-000000000012-0123abcd.1-of-2.mgrank")  # a rank of a collective save
    left = temp_files(tmp_path)
    assert len(left) == 3  # what each crash left
    manager = SnapshotManager(tmp_path)
    ex = executor()
    ex.iteration = 13
    manager.save_snapshot(ex)
    assert temp_files(tmp_path) == set()
    assert manager.load_latest() is not None


def test_a_live_writers_another_hosts_and_foreign_temp_files_stay(tmp_path):
    host, gone = fsutil._host(), dead_pid()
    name, namespace = host.rsplit("_", 1)
    other_namespace = f"{name}_{int(namespace) + 1}"
    kept = [
        f".snapshot-000000000012.mgsnap.elsewhere-{gone}.abc_1234.tmp",  # another host's: cannot be asked
        f".snapshot-000000000012.mgsnap.{other_namespace}-{gone}.abc_1234.tmp",  # this host name, another
        # container's pids (host networking): its pid is no question for this namespace
        f".notes.txt.{host}-{gone}.abc_1234.tmp",  # not a name the manager writes
        ".snapshot-000000000012.mgsnap.abc_1234.tmp",  # no writer named: not provably stale
        f"snapshot-000000000012.mgsnap.{host}-{gone}.abc_1234.tmp",  # not hidden: not atomic_write's
    ]
    stale = f".snapshot-000000000012.mgsnap.{host}-{gone}.abc_1234.tmp"
    for name in [*kept, stale]:
        (tmp_path / name).write_bytes(b"x")
    os.symlink(tmp_path / kept[0], tmp_path / f".snapshot-000000000014.mgsnap.{host}-{gone}.lnk_1234.tmp")
    assert [p.name for p in fsutil.stale_temp_files(tmp_path, lambda n: n.endswith(".mgsnap"))] == [stale]
    ex = executor()
    ex.iteration = 15
    SnapshotManager(tmp_path).save_snapshot(ex)
    assert temp_files(tmp_path) == set(kept) | {f".snapshot-000000000014.mgsnap.{host}-{gone}.lnk_1234.tmp"}


def test_a_crashed_asynchronous_save_is_cleaned_up_by_a_later_process(tmp_path):
    script = textwrap.dedent("""
        import os, sys
        import numpy as np
        import minigrad_ckpt as mg
        from minigrad_ckpt.snapshot import SnapshotManager, fsutil

        real = fsutil.os.replace
        def die_before_rename(src, dst):
            os._exit(5)  # the background writer's process dies between writing and renaming
        fsutil.os.replace = die_before_rename
        ex = mg.Executor()
        ex.add_tensor("w", np.arange(4096, dtype=np.float32))
        ex.iteration = 3
        SnapshotManager(sys.argv[1]).save_snapshot(ex, blocking=False).wait()
    """)
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=ENV, timeout=120)
    assert run.returncode == 5
    assert len(temp_files(tmp_path)) == 1
    ex = executor()
    ex.iteration = 4
    SnapshotManager(tmp_path).save_snapshot(ex)
    assert temp_files(tmp_path) == set()


def test_this_process_keeps_its_writes_in_progress_and_removes_an_earlier_holder_of_its_pid(tmp_path):
    # A container restarted after its trainer was killed (OOM) runs the trainer as pid 1 again, on the same
    # host name: the dead run's temp file names this process's pid.  The manager kept it forever (a pid
    # that is alive); it is stale unless this process is writing it now.
    host = fsutil._host()
    earlier = f".snapshot-000000000012.mgsnap.{host}-{os.getpid()}.abc_1234.tmp"
    (tmp_path / earlier).write_bytes(b"half a snapshot")
    started, finish = threading.Event(), threading.Event()

    def slow_write(f):
        f.write(b"in progress")
        started.set()
        assert finish.wait(60)
        return 11

    writer = threading.Thread(target=fsutil.atomic_write, args=(tmp_path / "snapshot-000000000020.mgsnap",
                                                                slow_write))
    writer.start()
    try:
        assert started.wait(60)
        live = temp_files(tmp_path) - {earlier}
        assert len(live) == 1 and f"{host}-{os.getpid()}." in next(iter(live))
        owned = [p.name for p in fsutil.stale_temp_files(tmp_path, lambda n: n.endswith(".mgsnap"))]
        assert owned == [earlier]
        ex = executor()
        ex.iteration = 15
        SnapshotManager(tmp_path).save_snapshot(ex)
        assert temp_files(tmp_path) == live  # the write in progress stays; the earlier run's file is gone
    finally:
        finish.set()
        writer.join(60)
    assert temp_files(tmp_path) == set() and (tmp_path / "snapshot-000000000020.mgsnap").read_bytes() == b"in progress"


def test_a_child_forked_while_a_write_starts_can_write(tmp_path):
    # a DataLoader worker forked while the background snapshot thread held the temp-file lock: the
    # child's copy of that lock stayed held, and its first atomic_write would wait forever
    with fsutil._writing_lock:
        pid = os.fork()
        if pid == 0:  # the child
            try:
                fsutil.atomic_write(tmp_path / "from_child.bin", lambda f: f.write(b"ok"))
                os._exit(0)
            finally:
                os._exit(1)
    for _ in range(200):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child's atomic_write waited on its parent's lock")
    assert os.waitstatus_to_exitcode(status) == 0
    assert (tmp_path / "from_child.bin").read_bytes() == b"ok"


def test_a_name_too_long_for_the_writers_tag_is_still_written(tmp_path):
    """A file name near the 255-byte limit: its temp file goes without the writer's tag (as before the tag)."""
    target = tmp_path / ("s" * 240)
    assert fsutil.atomic_write(target, lambda f: f.write(b"data")) == 4
    assert target.read_bytes() == b"data" and temp_files(tmp_path) == set()
