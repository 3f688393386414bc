"""SnapshotManager: retention by iteration, foreign files, incremental bases, verified fallback,
and exact resume (in a fresh process, and through the demo's --resume)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotManager

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # PYTHONPATH: set by conftest.py


def name(it: int) -> str:
    return f"snapshot-{it:012d}.mgsnap"


def snapshot_files(d: Path) -> set[str]:
    return {p.name for p in d.iterdir() if p.name.startswith("snapshot-") and p.name.endswith(".mgsnap")}


def manifest(d: Path) -> list[dict]:
    return msgpack.unpackb((d / "MANIFEST.msgpack").read_bytes(), raw=False)["snapshots"]


def executor(value: float = 0.0) -> mg.Executor:
    ex = mg.Executor()
    ex.add_tensor("big", np.full(2048, value, np.float32))
    ex.add_tensor("small", np.array([value, -value]))
    return ex


def flip_payload_byte(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0x40  # inside the last tensor's payload
    path.write_bytes(raw)


# ------------------------------------------------------------------ retention
def test_retention_keeps_the_newest_by_iteration_not_by_mtime(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=3)
    saved: list[int] = []
    for k, it in enumerate([50, 10, 30, 20, 40, 60, 5, 45]):
        path = m.save_snapshot(executor(it), it)
        assert path == tmp_path / name(it)
        saved.append(it)
        # make file times lie: the lower the iteration, the newer the file
        for f in tmp_path.glob("snapshot-*.mgsnap"):
            os.utime(f, (2e9 - int(f.name[9:21]), 2e9 - int(f.name[9:21])))
        expected = sorted(saved)[-3:]
        assert snapshot_files(tmp_path) == {name(i) for i in expected}, (k, it)
        assert [e["iteration"] for e in manifest(tmp_path)] == expected
        assert m.list_snapshots() == [tmp_path / name(i) for i in expected]
    latest = m.load_latest()
    assert latest.metadata.iteration == 60
    assert latest.tensors["small"].tolist() == [60.0, -60.0]


def test_max_snapshots_none_keeps_everything_and_bad_values_are_refused(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=None)
    for it in range(7):
        m.save_snapshot(executor(it), it)
    assert len(snapshot_files(tmp_path)) == 7
    with pytest.raises(ValueError):
        SnapshotManager(tmp_path, max_snapshots=0)
    with pytest.raises(ValueError):
        SnapshotManager(tmp_path, full_every=0)
    with pytest.raises(ValueError):
        m.save_snapshot(executor(), -1)


def test_default_iteration_and_custom_metadata(tmp_path):
    m = SnapshotManager(tmp_path)
    ex = executor(1.0)
    ex.iteration = 17
    path = m.save_snapshot(ex, metadata={"note": "hello"})
    assert path.name == name(17)
    snap = m.load_latest()
    assert snap.metadata.iteration == 17 and snap.get_metadata("note") == "hello"
    assert manifest(tmp_path)[0]["checksum"] == snap.metadata.checksum


def test_only_files_it_wrote_are_deleted(tmp_path):
    # foreign files, before the manager exists: matching and not matching its naming pattern
    foreign = {name(1): None, name(999_999): None, "snapshot-7.mgsnap": b"x", "notes.txt": b"keep me",
               "other-000000000002.mgsnap": b"y", "snapshot-000000000003.mgsnap.bak": b"z"}
    Snapshot.from_executor(executor(-1.0), 1).save(tmp_path / name(1))
    Snapshot.from_executor(executor(-2.0), 999_999).save(tmp_path / name(999_999))
    for fname, data in foreign.items():
        if data is not None:
            (tmp_path / fname).write_bytes(data)
    before = {f: (tmp_path / f).read_bytes() for f in foreign}
    m = SnapshotManager(tmp_path, max_snapshots=2)
    for it in (10, 20, 30, 40, 2):
        m.save_snapshot(executor(it), it)
    for fname, data in before.items():
        assert (tmp_path / fname).read_bytes() == data, fname
    assert snapshot_files(tmp_path) == {name(1), name(999_999), "snapshot-7.mgsnap", name(30), name(40)}
    # the manifest is the source of truth: the foreign newest is neither listed nor loaded
    assert [p.name for p in m.list_snapshots()] == [name(30), name(40)]
    assert m.load_latest().metadata.iteration == 40


def test_unreadable_manifest_never_leads_to_deleting(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=1)
    m.save_snapshot(executor(1), 1)
    (tmp_path / "MANIFEST.msgpack").write_bytes(b"\x93garbage")
    with pytest.warns(UserWarning, match="unreadable"):
        m.save_snapshot(executor(2), 2)
    assert snapshot_files(tmp_path) == {name(1), name(2)}  # it could not prove it wrote snapshot 1


MANIFEST_CHECK = textwrap.dedent("""
    import sys, warnings
    import msgpack, numpy as np
    import minigrad_ckpt as mg
    from minigrad_ckpt.snapshot import SnapshotManager
    assert not __debug__, "this check is about python -O"
    d = sys.argv[1]
    ex = mg.Executor(); ex.add_tensor("t", np.zeros(3))
    m = SnapshotManager(d, max_snapshots=1)
    m.save_snapshot(ex, 1)
    good = msgpack.unpackb(open(d + "/MANIFEST.msgpack", "rb").read())
    e = good["snapshots"][0]
    for bad in ({**e, "iteration": "1"}, {**e, "file": 7}, {**e, "file": "../x"}, {**e, "base": ["x"]},
                {**e, "seq": None}, {**e, "iteration": True}, [e]):
        open(d + "/MANIFEST.msgpack", "wb").write(msgpack.packb({**good, "snapshots": [bad]}))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.save_snapshot(ex, 2)
        assert any("unreadable" in str(x.message) for x in w), bad
    print("ok")
""")


def test_manifest_checks_hold_under_python_O(tmp_path):
    """The manifest's checks are real checks, not asserts that ``python -O`` skips."""
    r = subprocess.run([sys.executable, "-O", "-c", MANIFEST_CHECK, str(tmp_path)], capture_output=True,
                       text=True, env=ENV, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_leftover_temp_files_do_not_break_the_manager(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=2)
    m.save_snapshot(executor(1), 1)
    junk = [f".{name(5)}.k3j4h5.tmp", ".MANIFEST.msgpack.abc123.tmp", f".{name(1)}.zzz.tmp"]
    good = (tmp_path / name(1)).read_bytes()
    (tmp_path / junk[0]).write_bytes(good[: len(good) // 2])  # a torn write
    (tmp_path / junk[1]).write_bytes(b"\x81")
    (tmp_path / junk[2]).write_bytes(b"")
    for it in (2, 3, 4):
        m.save_snapshot(executor(it), it)
    assert snapshot_files(tmp_path) == {name(3), name(4)}
    assert m.load_latest().metadata.iteration == 4
    # without a manifest (read-only use), temp files are not mistaken for snapshots either
    (tmp_path / "MANIFEST.msgpack").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SnapshotManager(tmp_path).load_latest().metadata.iteration == 4
    assert all((tmp_path / j).exists() for j in junk)


# ------------------------------------------------------------------ incremental bases
def test_incremental_bases_of_kept_snapshots_are_never_deleted(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=2, config=SnapshotConfig(incremental=True), full_every=3)
    ex = executor(0.0)
    for it in range(1, 11):
        ex.get_tensor("small").data[:] = it  # "big" stays: referenced from the base
        m.save_snapshot(ex, it)
        kept = m.list_snapshots()
        assert snapshot_files(tmp_path) == {p.name for p in kept}
        for p in kept:  # every kept snapshot still loads, base chain and all
            s = Snapshot.load(p)
            assert s.tensors["small"].tolist() == [s.metadata.iteration] * 2
        latest = m.load_latest()
        assert latest.metadata.iteration == it
    entries = {e["iteration"]: e["base"] for e in manifest(tmp_path)}
    assert entries[10] is None or entries[10] in snapshot_files(tmp_path)
    bases = [e["base"] for e in manifest(tmp_path) if e["base"]]
    assert bases, "the manager wrote no incremental snapshot"
    assert len(snapshot_files(tmp_path)) > 2  # bases kept beyond max_snapshots
    header = msgpack.Unpacker(open(tmp_path / name(9), "rb"), raw=False).unpack()
    refs = {t["name"]: t["ref"] for t in header["tensors"]}
    assert refs == {"big": "base", "small": None}


def test_resaving_an_iteration_that_is_a_base_keeps_dependants_loadable(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=5, config=SnapshotConfig(incremental=True))
    ex = executor(0.0)
    m.save_snapshot(ex, 1)
    ex.get_tensor("small").data[0] = 5
    m.save_snapshot(ex, 2)  # base: snapshot 1
    ex.get_tensor("big").data[0] = 7
    new_1 = m.save_snapshot(ex, 1)  # must not overwrite the base of snapshot 2
    assert new_1.name != name(1) and (tmp_path / name(1)).exists()
    for p in m.list_snapshots():
        Snapshot.load(p)
    assert Snapshot.load(new_1).tensors["big"][0] == 7
    assert [p.name for p in m.list_snapshots()] == [new_1.name, name(2)]
    # once nothing needs the superseded file, pruning removes it
    m2 = SnapshotManager(tmp_path, max_snapshots=1, config=SnapshotConfig(incremental=False))
    m2.save_snapshot(ex, 3)
    assert sorted(p.name for p in tmp_path.glob("*.mgsnap")) == [name(3)]


# ------------------------------------------------------------------ verified fallback
def test_load_latest_falls_back_past_damaged_snapshots(tmp_path):
    m = SnapshotManager(tmp_path, max_snapshots=5)
    for it in (3, 6, 9):
        m.save_snapshot(executor(it), it)
    flip_payload_byte(tmp_path / name(9))
    with pytest.warns(UserWarning, match=rf"skipped damaged snapshots: {name(9)}.*checksum"):
        snap = m.load_latest()
    assert snap.metadata.iteration == 6 and snap.tensors["small"].tolist() == [6.0, -6.0]
    (tmp_path / name(6)).write_bytes((tmp_path / name(6)).read_bytes()[:100])  # truncated
    with pytest.warns(UserWarning, match=name(6)):
        assert m.load_latest().metadata.iteration == 3
    flip_payload_byte(tmp_path / name(3))
    with pytest.raises(SnapshotError, match="no usable snapshot"):
        m.load_latest()
    with pytest.raises(SnapshotError, match="no usable snapshot"):
        SnapshotManager(tmp_path / "empty").load_latest()


def test_load_latest_without_a_manifest_uses_the_naming_pattern(tmp_path):
    for it in (4, 12, 8):
        Snapshot.from_executor(executor(it), it).save(tmp_path / name(it))
    (tmp_path / "snapshot-x.mgsnap").write_bytes(b"junk")
    assert SnapshotManager(tmp_path).load_latest().metadata.iteration == 12
    flip_payload_byte(tmp_path / name(12))
    with pytest.warns(UserWarning, match=name(12)):
        assert SnapshotManager(tmp_path).load_latest().metadata.iteration == 8


def test_a_missing_file_listed_in_the_manifest_is_skipped(tmp_path):
    m = SnapshotManager(tmp_path)
    for it in (1, 2):
        m.save_snapshot(executor(it), it)
    (tmp_path / name(2)).unlink()
    assert m.list_snapshots() == [tmp_path / name(1)]
    with pytest.warns(UserWarning, match=name(2)):
        assert m.load_latest().metadata.iteration == 1


# ------------------------------------------------------------------ exact resume in a fresh process
TRAIN = textwrap.dedent("""
    import numpy as np
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn, optim

    def build(seed):
        mg.manual_seed(seed)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.BatchNorm1d(16), nn.Linear(16, 3))
        opt = optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
        sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)
        return model, opt, sched, mg.Executor(model, opt, sched)

    def train(model, opt, sched, ex, until):
        while ex.iteration < until:
            x = mg.randn(8, 6)          # data from the engine generator too
            loss = ((model(x) - 1.0) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            ex.step()

    def state(model):
        return {k: v.numpy().copy() for k, v in model.state_dict().items()}
""")

RESUME = TRAIN + textwrap.dedent("""
    import sys
    from minigrad_ckpt.snapshot import SnapshotManager
    model, opt, sched, ex = build(1234)           # another seed: nothing carried over by accident
    before = state(model)
    SnapshotManager(sys.argv[1]).load_latest().restore_into(ex)
    assert ex.iteration == 4, ex.iteration
    train(model, opt, sched, ex, 10)
    np.savez(sys.argv[2], **state(model), **{"before/" + k: v for k, v in before.items()})
""")


def test_resume_in_a_fresh_process_is_bitwise_exact(tmp_path):
    ns: dict = {}
    exec(TRAIN, ns)
    model, opt, sched, ex = ns["build"](0)
    ns["train"](model, opt, sched, ex, 10)
    reference = ns["state"](model)
    # the interrupted run: 4 steps, snapshots, stop
    model, opt, sched, ex = ns["build"](0)
    m = SnapshotManager(tmp_path / "snaps", max_snapshots=2)
    for until in (2, 4):
        ns["train"](model, opt, sched, ex, until)
        m.save_snapshot(ex)
    at_snapshot = ns["state"](model)
    out = tmp_path / "final.npz"
    r = subprocess.run([sys.executable, "-c", RESUME, str(tmp_path / "snaps"), str(out)], env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    final = np.load(out)
    for k, v in reference.items():
        assert final[k].dtype == v.dtype and final[k].tobytes() == v.tobytes(), k
    assert "3.running_mean" in reference and "3.num_batches_tracked" in reference  # buffers compared too
    # the fresh model really started elsewhere, and training did move the state
    assert any(final["before/" + k].tobytes() != at_snapshot[k].tobytes() for k in at_snapshot)
    assert any(at_snapshot[k].tobytes() != reference[k].tobytes() for k in reference)


def _demo(out: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "minigrad_ckpt", "demo", "--steps", "8", "--snapshot-every", "4", "--out",
            str(out), "--sample-chars", "24", "--batch-size", "4", "--block-size", "16", "--d-model", "32",
            "--n-layers", "1", *extra]
    r = subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def test_demo_resume_reproduces_the_uninterrupted_run(tmp_path):
    full = tmp_path / "full"
    _demo(full)
    assert snapshot_files(full / "snapshots") == {name(4), name(8)}
    resumed = tmp_path / "resumed"
    shutil.copytree(full, resumed)
    for f in ("loss.csv", "summary.json", "sample.txt"):
        (resumed / f).unlink()
    (resumed / "snapshots" / name(8)).unlink()  # as if the run had died before step 8's snapshot
    r = _demo(resumed, "--resume")
    assert "resumed from " + name(4) in r.stdout + r.stderr
    s_full = json.loads((full / "summary.json").read_text())
    s_res = json.loads((resumed / "summary.json").read_text())
    assert s_res["start_step"] == 5 and s_full["start_step"] == 1
    assert s_res["final_loss"] == s_full["final_loss"]
    assert (resumed / "loss.csv").read_text() == (full / "loss.csv").read_text()
    assert len((full / "loss.csv").read_text().splitlines()) == 9
    assert (resumed / "sample.txt").read_text() == (full / "sample.txt").read_text()
    # and the re-written snapshot of step 8 holds the same tensors as the original one
    a = Snapshot.load(full / "snapshots" / name(8)).tensors
    b = Snapshot.load(resumed / "snapshots" / name(8)).tensors
    assert a.keys() == b.keys() and all(a[k].tobytes() == b[k].tobytes() for k in a)
