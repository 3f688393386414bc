"""The snapshot manager under stress: several processes in one directory (2 and 4 at once), any int64
iteration, foreign files never overwritten or deleted, an untrusted manifest (every field x
every type, base cycles) rebuilt from verified snapshots, a damaged newest snapshot, and
retention with incremental snapshots (``full_every``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timeouts import deadline  # tests/timeouts.py

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotManager

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")
pytestmark = pytest.mark.msgpack

FAST = SnapshotConfig(fsync=False)
INC = SnapshotConfig(fsync=False, incremental=True)



def executor(value: float) -> mg.Executor:
    ex = mg.Executor()
    ex.add_tensor("fixed", np.arange(64, dtype=np.float32))
    ex.add_tensor("moving", np.full(16, value))
    return ex


def snapshot_files(d: Path) -> set[str]:
    return {p.name for p in d.iterdir() if p.name.startswith("snapshot-") and p.name.endswith(".mgsnap")}


def manifest(d: Path) -> list[dict]:
    return msgpack.unpackb((d / "MANIFEST.msgpack").read_bytes(), raw=False)["snapshots"]


def damage(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0x40
    path.write_bytes(raw)


# ------------------------------------------------------------------ any int64 iteration
@pytest.mark.parametrize("base", [1_700_000_000_000, 10**18, 2**63 - 10])
def test_iterations_of_any_width_are_named_found_and_pruned(tmp_path, base):
    m = SnapshotManager(tmp_path, max_snapshots=2, config=FAST)
    for k in range(4):
        m.save_snapshot(executor(k), base + k)
    assert len(snapshot_files(tmp_path)) == 2
    assert m.load_latest().metadata.iteration == base + 3
    assert [p.name for p in m.list_snapshots()] == [m.path_for(base + 2).name, m.path_for(base + 3).name]


def test_iterations_outside_int64_are_refused(tmp_path):
    m = SnapshotManager(tmp_path, config=FAST)
    m.save_snapshot(executor(0), 2**63 - 1)
    for bad in (2**63, -1):
        with pytest.raises(ValueError):
            m.save_snapshot(executor(0), bad)
    with pytest.raises(TypeError):
        m.save_snapshot(executor(0), "3")
    assert m.load_latest().metadata.iteration == 2**63 - 1


# ------------------------------------------------------------------ foreign files
def test_a_foreign_file_with_the_managers_name_is_never_overwritten_or_deleted(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=1, config=FAST)
    m.save_snapshot(executor(1), 1)
    foreign = {m.path_for(5): b"not a snapshot", m.path_for(2): None}
    Snapshot.from_executor_with_config(executor(-2), 2, FAST).save(m.path_for(2))  # a valid one, not ours
    m.path_for(5).write_bytes(b"not a snapshot")
    before = {p: p.read_bytes() for p in foreign}
    for it in (2, 5, 6, 7):
        m.save_snapshot(executor(it), it)
    assert {p: p.read_bytes() for p in foreign} == before
    files = {e["file"] for e in manifest(tmp_path)}
    assert m.path_for(2).name not in files and m.path_for(5).name not in files
    assert m.load_latest().metadata.iteration == 7
    assert snapshot_files(tmp_path) == {m.path_for(2).name, m.path_for(5).name, m.path_for(7).name}


# ------------------------------------------------------------------ the manifest is untrusted
FIELD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**64 - 1), st.floats(), st.text(max_size=20),
                         st.binary(max_size=4), st.lists(st.integers(-2**63, 2**64 - 1), max_size=2),
                         st.dictionaries(st.text(max_size=3), st.integers(-2**63, 2**64 - 1), max_size=2),
                         st.sampled_from(["snapshot-000000000001.mgsnap", "../x", "snapshot-1.mgsnap"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["file", "iteration", "checksum", "base", "seq", "superseded", "adopted", "extra",
                              "format", "version", "snapshots"]), value=FIELD_VALUES)
def test_a_manifest_with_any_field_of_any_type_never_crashes_the_manager(tmp_path, field, value):
    d = tmp_path / "m"
    if d.exists():
        for p in d.iterdir():
            p.unlink()
    m = SnapshotManager(d, max_snapshots=2, config=INC)
    for it in (1, 2):
        m.save_snapshot(executor(it), it)
    data = msgpack.unpackb((d / "MANIFEST.msgpack").read_bytes(), raw=False)
    if field in ("format", "version", "snapshots"):
        data[field] = value
    else:
        data["snapshots"][-1][field] = value
    (d / "MANIFEST.msgpack").write_bytes(msgpack.packb(data))
    with deadline(what="the manager"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.save_snapshot(executor(3), 3)
        assert m.load_latest().metadata.iteration == 3
        m.list_snapshots()
    assert Snapshot.load(m.path_for(1)).metadata.iteration == 1 or not m.path_for(1).exists()


def test_a_base_cycle_in_the_manifest_does_not_hang_and_is_rebuilt(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=3, config=INC)
    for it in (1, 2):
        m.save_snapshot(executor(it), it)
    data = msgpack.unpackb((tmp_path / "MANIFEST.msgpack").read_bytes(), raw=False)
    a, b = data["snapshots"]
    a["base"], b["base"] = b["file"], a["file"]  # A -> B -> A
    (tmp_path / "MANIFEST.msgpack").write_bytes(msgpack.packb(data))
    with deadline(what="the manager"), pytest.warns(UserWarning, match="cycle"):
        m.save_snapshot(executor(3), 3)
    assert m.load_latest().metadata.iteration == 3
    assert {e["file"] for e in manifest(tmp_path)} == snapshot_files(tmp_path)


def test_after_a_rebuild_load_latest_still_reaches_older_good_snapshots(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=5, config=FAST)
    for it in (1, 2, 3):
        m.save_snapshot(executor(it), it)
    (tmp_path / "MANIFEST.msgpack").write_bytes(b"\x93garbage")
    with pytest.warns(UserWarning, match="unreadable"):
        m.save_snapshot(executor(4), 4)
    damage(m.path_for(4))
    with pytest.warns(UserWarning, match="skipped damaged"):
        assert m.load_latest().metadata.iteration == 3
    # adopted snapshots are kept: the manager cannot prove it wrote them
    m2 = SnapshotManager(tmp_path, max_snapshots=1, config=FAST)
    for it in (5, 6):
        m2.save_snapshot(executor(it), it)
    assert {m.path_for(i).name for i in (1, 2, 3, 6)} <= snapshot_files(tmp_path)


def test_a_fifo_named_like_a_snapshot_does_not_block_the_manager(tmp_path):
    os.mkfifo(tmp_path / "snapshot-000000000009.mgsnap")
    Snapshot.from_executor_with_config(executor(3), 3, FAST).save(tmp_path / "snapshot-000000000003.mgsnap")
    with deadline(20, "the manager"):
        with pytest.warns(UserWarning, match="FIFO"):
            assert SnapshotManager(tmp_path).load_latest().metadata.iteration == 3
        (tmp_path / "MANIFEST.msgpack").write_bytes(b"junk")
        m = SnapshotManager(tmp_path, config=FAST)
        with pytest.warns(UserWarning, match="unreadable"):
            m.save_snapshot(executor(4), 4)
        assert m.load_latest().metadata.iteration == 4


def test_special_files_as_the_manifest_or_the_lock_file_never_block(tmp_path):
    m = SnapshotManager(tmp_path, config=FAST)
    m.save_snapshot(executor(1), 1)
    (tmp_path / "MANIFEST.msgpack").unlink()
    os.mkfifo(tmp_path / "MANIFEST.msgpack")
    with deadline(20, "the manager"):
        with pytest.warns(UserWarning, match="unreadable"):
            assert m.load_latest().metadata.iteration == 1
        (tmp_path / "MANIFEST.msgpack").unlink()
        os.mkfifo(tmp_path / ".manager.lock.tmp")
        (tmp_path / ".manager.lock").unlink()
        os.rename(tmp_path / ".manager.lock.tmp", tmp_path / ".manager.lock")
        with pytest.raises(SnapshotError, match="lock"):
            m.save_snapshot(executor(2), 2)
        assert SnapshotManager(tmp_path).load_latest().metadata.iteration == 1  # reading does without the lock


# ------------------------------------------------------------------ damaged newest, full_every
def test_a_damaged_newest_snapshot_makes_the_next_incremental_a_full_one(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=5, config=INC)
    m.save_snapshot(executor(1), 1)
    m.save_snapshot(executor(2), 2)
    damage(m.path_for(2))
    with pytest.warns(UserWarning, match="damaged"):
        p = m.save_snapshot(executor(3), 3)
    snap = Snapshot.load(p)
    assert snap.base is None and snap.tensors["moving"][0] == 3
    m.save_snapshot(executor(4), 4)  # and incrementals resume on top of it
    assert Snapshot.load(m.path_for(4)).base.path.name == p.name


@pytest.mark.parametrize("full_every", [None, 1, 2, 3])
def test_retention_with_incrementals_prunes_old_chains(tmp_path, full_every):
    m = SnapshotManager(tmp_path, max_snapshots=2, config=INC, full_every=full_every)
    k = m.full_every
    assert k == (2 if full_every is None else full_every)
    for it in range(1, 13):
        m.save_snapshot(executor(it), it)
        assert len(snapshot_files(tmp_path)) <= 2 + k - 1
    fulls = [Snapshot.load(tmp_path / e["file"]).base is None for e in manifest(tmp_path)]
    assert any(fulls)
    assert m.load_latest().tensors["moving"][0] == 12
    for e in manifest(tmp_path):  # every kept chain loads
        Snapshot.load(tmp_path / e["file"])


def test_full_every_is_validated(tmp_path):
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError):
            SnapshotManager(tmp_path, full_every=bad)


# ------------------------------------------------------------------ several processes
WORKER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import minigrad_ckpt as mg
    from minigrad_ckpt.snapshot import SnapshotConfig, SnapshotManager
    d, rank, world, n, incremental = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    while not os.path.exists(os.path.join(d, "go")):
        time.sleep(0.001)
    m = SnapshotManager(d, max_snapshots=3, config=SnapshotConfig(fsync=False, incremental=incremental == "1"))
    for k in range(n):
        it = k * world + rank
        ex = mg.Executor()
        ex.add_tensor("fixed", np.arange(256, dtype=np.float32))
        ex.add_tensor("moving", np.full(8, float(it)))
        m.save_snapshot(ex, it)
        m.load_latest()
    print("done")
""")


@pytest.mark.parametrize("world,incremental", [(2, "0"), (2, "1"), (4, "0"), (4, "1")])
def test_processes_saving_into_one_directory_keep_the_manifest_whole(tmp_path, world, incremental):
    n = 8
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path), str(r), str(world), str(n), incremental],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(world)]
    (tmp_path / "go").touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    entries = manifest(tmp_path)
    current = [e for e in entries if not e.get("superseded")]
    top = world * n - 1
    assert [e["iteration"] for e in current][-3:] == [top - 2, top - 1, top]  # no update lost
    assert {e["file"] for e in entries} == snapshot_files(tmp_path)  # no orphan, nothing forgotten
    assert len(current) == 3 or incremental == "1"
    m = SnapshotManager(tmp_path)
    assert m.load_latest().tensors["moving"][0] == top
    for e in entries:
        Snapshot.load(tmp_path / e["file"])
