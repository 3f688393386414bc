"""``minigrad-ckpt explore SNAPSHOT --out tape.html``: the tape explorer for the tape a snapshot
holds (saved with ``include_tape``), the same page ``mg.viz.explore`` writes for the live tape;
a clear error for a snapshot without one."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from explorer_programs import light  # tests/explorer_programs.py

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.cli import main
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig

pytestmark = pytest.mark.msgpack  # every test here writes snapshot files


def _data(path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="tape-data">(.*?)</script>', text, re.S)[1])


def _snapshot(tmp_path, include_tape: bool = True):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    ex = mg.Executor(model)
    loss = (model(mg.randn(5, 3)) ** 2).mean()
    ex.record(loss)
    config = SnapshotConfig.for_training() if include_tape else SnapshotConfig()
    path = Snapshot.from_executor_with_config(ex, 7, config).save(tmp_path / "step-7.mgsnap")
    return path, loss, model


def test_explore_a_snapshot_writes_the_page_of_its_tape(tmp_path, capsys):
    path, loss, model = _snapshot(tmp_path)
    out = tmp_path / "tape.html"
    assert main(["explore", str(path), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    data = _data(out)
    steps = [light(s) for s in mg.backward_steps(loss)]  # the live tape the snapshot stored
    assert [(s["op"], s["grad_output"], s["grad_inputs"]) for s in data["steps"]] == \
           [(s["op"], s["grad_output"], s["grad_inputs"]) for s in steps]
    assert data["ledger"]["source"] == "counted" and all(s["released_bytes"] is not None for s in data["steps"])
    assert {leaf["name"] for leaf in data["leaves"]} == {f"model.{k}" for k, _ in model.named_parameters()}
    by_name = {leaf["name"]: leaf["grad"] for leaf in data["leaves"]}
    from minigrad_ckpt.explorer import summarize
    for k, p in model.named_parameters():
        assert by_name[f"model.{k}"] == summarize(p.grad)
    text = out.read_text(encoding="utf-8")
    assert 'data-action="next"' in text and "step-7.mgsnap" in text and "http://" not in text


def test_a_snapshot_without_a_tape_is_a_clear_error(tmp_path, capsys):
    path, _, _ = _snapshot(tmp_path, include_tape=False)
    out = tmp_path / "tape.html"
    assert main(["explore", str(path), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "holds no tape" in err and "include_tape=True" in err and "Traceback" not in err
    assert not out.exists()


def test_a_file_that_is_no_snapshot_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "notes.mgsnap"
    bad.write_text("not a snapshot")
    assert main(["explore", str(bad), "--out", str(tmp_path / "t.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    assert main(["explore", str(tmp_path / "missing.mgsnap")]) == 1
    assert "error: " in capsys.readouterr().err


def test_the_command_runs_in_a_fresh_process(tmp_path):
    path, _, _ = _snapshot(tmp_path)
    out = tmp_path / "fresh.html"
    r = subprocess.run([sys.executable, "-m", "minigrad_ckpt", "explore", str(path), "--out", str(out)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(_data(out)["steps"]) == len(_data(out)["nodes"]) > 0
    help_text = subprocess.run([sys.executable, "-m", "minigrad_ckpt", "explore", "--help"], capture_output=True,
                               text=True, timeout=120).stdout
    assert "--out" in help_text and "include_tape" in help_text


@pytest.mark.parametrize("target", ["the snapshot", "its base"])
def test_out_is_never_the_snapshot_read(tmp_path, capsys, target):
    """``explore s.mgsnap --out s.mgsnap`` wrote the page over the snapshot (and the training
    state it held was gone); so did an --out naming the base an incremental snapshot reads."""
    base, loss, model = _snapshot(tmp_path)
    ex = mg.Executor(model)
    ex.record((model(mg.randn(5, 3)) ** 2).mean())
    inc = Snapshot.from_executor_with_config(ex, 8, SnapshotConfig(include_tape=True, incremental=True),
                                             base=base).save(tmp_path / "step-8.mgsnap")
    read, out = (base, base) if target == "the snapshot" else (inc, base)
    before = out.read_bytes()
    with pytest.raises(SystemExit) as info:  # a usage error: the parser's exit 2
        main(["explore", str(read), "--out", str(out.parent / "." / out.name)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "would destroy it" in err and "Traceback" not in err
    assert out.read_bytes() == before
    Snapshot.load(inc, SnapshotConfig(verify_checksum=True))  # both still intact


def test_max_values_is_a_whole_number_not_below_zero(tmp_path, capsys):
    path, _, _ = _snapshot(tmp_path)
    for bad in ("-1", "many"):
        with pytest.raises(SystemExit) as info:
            main(["explore", str(path), "--max-values", bad])
        assert info.value.code == 2
        assert "--max-values" in capsys.readouterr().err
