"""Text the explorer writes but does not choose -- leaf names, a snapshot's file name, the numbers
it summarizes -- comes out as it is: a name that is no str is written as text (it raised
AttributeError in ``html.escape``), a lone surrogate (a file name that is not UTF-8, which Python
reads as surrogate escapes) is written as its escape (``UnicodeEncodeError`` while writing the
page), and the statistics of finite values are finite (the norm of float16 values was taken in
float16, and 100 values of 60000 had the norm ``inf``)."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.explorer import record_backward, summarize


def _embedded(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="tape-data">(.*?)</script>', text, re.S)[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_name_that_is_no_str_is_written_as_text(tmp_path, dtype):
    x = mg.tensor(np.array([1.0, 2.0], dtype=dtype), requires_grad=True)
    page = mg.viz.explore((x * x).sum(), tmp_path / "t.html", names={id(x): 7})
    text = page.read_text(encoding="utf-8")
    assert _embedded(text)["leaves"][0]["name"] == "7" and 'data-leaf="7"' in text


def test_a_lone_surrogate_in_a_name_or_the_title_is_written_as_its_escape(tmp_path):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    page = mg.viz.explore((x * x).sum(), tmp_path / "t.html", names={id(x): "w\ud800"}, title="run \udcff")
    text = page.read_text(encoding="utf-8")
    assert "w\\ud800" in text and "<title>run \\udcff</title>" in text
    assert _embedded(text)["leaves"][0]["name"] == "w\ud800"  # JSON has a spelling for it: kept as it is


@pytest.mark.msgpack
@pytest.mark.skipif(os.name == "nt", reason="file names are UTF-16 there")
def test_a_snapshot_whose_file_name_is_not_utf8_is_explored(tmp_path, capsys):
    from minigrad_ckpt import nn
    from minigrad_ckpt.cli import main
    from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig

    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
    ex = mg.Executor(model)
    ex.record((model(mg.randn(4, 3)) ** 2).mean())
    path = os.fsdecode(os.fsencode(str(tmp_path)) + b"/run-\xff.mgsnap")  # "run-\udcff.mgsnap"
    Snapshot.from_executor_with_config(ex, 3, SnapshotConfig.for_training()).save(path)
    out = tmp_path / "tape.html"
    assert main(["explore", path, "--out", str(out)]) == 0, capsys.readouterr().err
    assert "<title>Tape explorer: run-\\udcff.mgsnap (iteration 3)</title>" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("dtype, value", [("float16", 60000.0), ("float32", 3e38), ("complex64", 2e38 + 2e38j)])
def test_the_statistics_of_finite_values_are_finite(dtype, value):
    a = np.full(100, value, dtype=dtype)
    s = summarize(a)
    assert s["dtype"] == dtype
    assert s["norm"] == float(f"{np.linalg.norm(a.astype(np.complex128 if a.dtype.kind == 'c' else np.float64)):.6g}")
    assert s["mean"] != "inf" and s["mean"] != "nan+nanj"
    assert isinstance(s["norm"], float) and np.isfinite(s["norm"])


def test_the_statistics_of_the_page_are_finite_for_a_float16_tape():
    x = mg.tensor(np.full(64, 200.0, dtype=np.float16), requires_grad=True)
    data = record_backward((x * 2.0).sum())
    assert data["leaves"][0]["value"]["norm"] == 1600.0
    assert data["nodes"][0]["value"] is None or data["nodes"][0]["value"]["norm"] == 3200.0
