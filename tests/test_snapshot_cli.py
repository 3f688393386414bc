"""``minigrad-ckpt snapshot inspect | verify | diff``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.cli import main
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig

pytestmark = pytest.mark.msgpack  # every test here writes snapshot files

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # PYTHONPATH: set by conftest.py


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["snapshot", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def files(tmp_path):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.1)
    ex = mg.Executor(model, opt)
    (model(mg.randn(2, 3)) ** 2).sum().backward()
    opt.step()
    ex.add_tensor("w", np.zeros((64, 64), np.float32))
    ex.add_tensor("k", np.arange(8, dtype=np.int32))
    ex.add_tensor("gone", np.array(1.5))
    ex.add_tensor("nan", np.array([np.nan, 1.0, np.inf]))
    snap = Snapshot.from_executor(ex, 7)
    snap.add_metadata("note", "hello world")
    a = snap.save(tmp_path / "a.mgsnap")
    ex.get_tensor("w").data[1, 2] = 0.5
    ex.get_tensor("w").data[3, 3] = -0.25
    ex.add_tensor("k", np.arange(8, dtype=np.int64))
    ex.remove_tensor("gone")
    ex.add_tensor("new", np.ones(3, np.uint8))
    b = Snapshot.from_executor_with_config(ex, 8, SnapshotConfig(incremental=True), base=a).save(tmp_path / "b.mgsnap")
    c = Snapshot.from_executor_with_config(ex, 9, SnapshotConfig(enable_compression=True)).save(tmp_path / "c.mgsnap")
    return {"a": a, "b": b, "c": c, "ex": ex}


def test_inspect_prints_metadata_and_a_tensor_table(capsys, files):
    code, out, err = run(capsys, "inspect", str(files["a"]))
    assert code == 0 and err == ""
    assert str(files["a"]) in out
    assert re.search(r"format\s+minigrad-ckpt/snapshot v1", out)
    assert re.search(r"iteration\s+7\b", out)
    assert re.search(r"timestamp\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", out)  # a date and time, not epoch seconds
    assert re.search(r"custom\s+note = hello world", out)
    assert re.search(r"optimizer\s+Adam", out)
    assert re.search(r"rng\s+\{'seed': 0, 'counter': \d+\}", out)
    assert re.search(r"name\s+dtype\s+shape\s+bytes", out)
    rows = {m.group(1): m.groups()[1:] for m in
            re.finditer(r"^\s+(\S+)\s+(float16|float32|float64|int32|int64|uint8)\s+(\[[\d, ]*\])\s+([\d,]+)",
                        out, re.M)}
    assert rows["w"] == ("float32", "[64, 64]", "16,384")
    assert rows["k"] == ("int32", "[8]", "32")
    assert rows["gone"] == ("float64", "[]", "8")
    assert rows["model.0.weight"] == ("float32", "[4, 3]", "48")
    assert rows["optimizer.state.1.bias.exp_avg_sq"] == ("float32", "[2]", "8")
    assert len(rows) == 4 + 8 + 4
    assert re.search(r"16 tensors, [\d,]+ bytes of data", out)


def test_inspect_shows_base_references_and_codecs(capsys, files):
    code, out, _ = run(capsys, "inspect", str(files["b"]))
    assert code == 0
    assert re.search(r"base\s+a\.mgsnap \(crc32:[0-9a-f]{8}\)", out)
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ") and len(ln.split()) >= 4}
    assert lines["model.0.weight"].rstrip().endswith("in base")
    assert lines["nan"].rstrip().endswith("in base")
    assert not lines["w"].rstrip().endswith("in base")
    assert not lines["new"].rstrip().endswith("in base")
    code, out, _ = run(capsys, "inspect", str(files["c"]))
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ") and len(ln.split()) >= 4}
    assert lines["w"].rstrip().endswith("zlib")


def test_inspect_of_a_bad_file_is_an_error(capsys, tmp_path):
    code, out, err = run(capsys, "inspect", str(tmp_path / "missing.mgsnap"))
    assert code == 1 and "error" in err
    (tmp_path / "junk").write_bytes(b"\x00" * 100)
    code, out, err = run(capsys, "inspect", str(tmp_path / "junk"))
    assert code == 1 and "error" in err


def test_verify_exit_codes(capsys, files, tmp_path):
    for key in ("a", "b", "c"):
        code, out, _ = run(capsys, "verify", str(files[key]))
        assert code == 0 and out.startswith("OK"), out
    code, out, _ = run(capsys, "verify", str(files["a"]))
    assert "16 tensors" in out and "iteration 7" in out and "crc32:" in out
    raw = bytearray(files["a"].read_bytes())
    raw[-2] ^= 0x01
    bad = tmp_path / "bad.mgsnap"
    bad.write_bytes(raw)
    code, out, err = run(capsys, "verify", str(bad))
    assert code == 1 and err.startswith("error:") and "checksum" in err and len(err.splitlines()) == 1
    bad.write_bytes(raw[:-1])
    assert run(capsys, "verify", str(bad))[0] == 1
    assert run(capsys, "verify", str(tmp_path / "missing.mgsnap"))[0] == 1
    # an incremental snapshot whose base is damaged does not verify either
    files["a"].write_bytes(raw)
    code, out, _ = run(capsys, "verify", str(files["b"]))
    assert code == 1


def test_diff_identical(capsys, files, tmp_path):
    copy = tmp_path / "copy.mgsnap"
    Snapshot.load(files["a"]).save(copy)
    code, out, _ = run(capsys, "diff", str(files["a"]), str(copy))
    assert code == 0
    assert out.strip().splitlines()[-1] == "0 of 16 tensors differ"
    code, out, _ = run(capsys, "diff", str(files["b"]), str(files["c"]))
    assert out.strip() == "0 of 16 tensors differ"  # same state, incremental vs compressed


def test_diff_lists_changed_tensors_with_max_abs_difference(capsys, files):
    code, out, _ = run(capsys, "diff", str(files["a"]), str(files["b"]))
    assert code == 1  # they differ (0: identical, 2: a file cannot be read)
    lines = out.strip().splitlines()
    assert lines[-1] == "4 of 17 tensors differ"
    body = {ln.split()[1]: ln for ln in lines[:-1]}
    assert set(body) == {"w", "k", "gone", "new"}
    assert re.fullmatch(r"~ w\s+max abs difference 0\.5", body["w"])
    assert "int32[8] -> int64[8]" in body["k"]
    assert body["gone"].startswith("- ") and "only in A" in body["gone"]
    assert body["new"].startswith("+ ") and "only in B" in body["new"]
    assert "nan" not in body  # NaN == NaN for the diff


def test_diff_of_a_bad_file_is_an_error(capsys, files, tmp_path):
    code, out, err = run(capsys, "diff", str(files["a"]), str(tmp_path / "missing.mgsnap"))
    assert code != 0 and "error" in err


@pytest.mark.parametrize("bad_side", ["a", "b"])
@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_diff_of_a_damaged_file_names_that_file(capsys, files, tmp_path, bad_side, damage):
    raw = bytearray(files["a"].read_bytes())
    if damage == "truncated":
        raw = raw[: len(raw) // 2]
    else:
        raw[-2] ^= 0x01  # tensor bytes: the checksum catches it
    bad = tmp_path / "damaged.mgsnap"
    bad.write_bytes(bytes(raw))
    pair = (bad, files["c"]) if bad_side == "a" else (files["c"], bad)
    code, out, err = run(capsys, "diff", *map(str, pair))
    assert code == 2 and out == ""
    assert err.startswith(f"error: {bad} is not a readable snapshot: "), err
    assert str(files["c"]) not in err


@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_a_damaged_base_is_named_as_the_base(capsys, files, damage):
    """b.mgsnap is incremental on a.mgsnap: damage in a was reported as b's own ("tensor 'w':
    checksum mismatch", b holding a 'w' of its own), or with no file named at all."""
    raw = bytearray(files["a"].read_bytes())
    if damage == "truncated":
        raw = raw[: len(raw) // 2]
    else:
        raw[-2] ^= 0x01
    files["a"].write_bytes(bytes(raw))
    with pytest.raises(mg.snapshot.SnapshotError, match=r"^'b\.mgsnap': its base 'a\.mgsnap' is damaged: "):
        Snapshot.load(files["b"])
    code, out, err = run(capsys, "verify", str(files["b"]))
    assert code == 1 and "its base 'a.mgsnap' is damaged" in err, err
    code, out, err = run(capsys, "verify", str(files["a"]))  # the damaged file itself: said as before
    assert code == 1 and "its base" not in err, err


def test_console_script_exit_codes(files, tmp_path):
    exe = Path(sys.executable).with_name("minigrad-ckpt")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "minigrad_ckpt"]
    raw = bytearray(files["a"].read_bytes())
    raw[-2] ^= 0x01
    (tmp_path / "bad.mgsnap").write_bytes(raw)
    ok = subprocess.run([*cmd, "snapshot", "verify", str(files["c"])], capture_output=True, text=True, env=ENV)
    bad = subprocess.run([*cmd, "snapshot", "verify", str(tmp_path / "bad.mgsnap")], capture_output=True, text=True,
                         env=ENV)
    assert (ok.returncode, bad.returncode) == (0, 1), (ok.stderr, bad.stderr)
    assert "Traceback" not in bad.stdout + bad.stderr
