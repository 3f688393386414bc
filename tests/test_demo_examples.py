"""The demo (``minigrad-ckpt demo``) learns for real, its CLI works, and every
example runs with tiny sizes."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minigrad_ckpt import demo

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(batch_size=16, block_size=32, d_model=32, n_heads=2, n_layers=1, dropout=0.0, sample_chars=20)


def quiet(_: str) -> None:
    pass


def test_demo_loss_really_goes_down(tmp_path, capsys):
    config = demo.DemoConfig(steps=30, seed=0, out=str(tmp_path / "run"), **TINY)
    result = demo.train(config, log=quiet)
    losses = result["losses"]
    assert len(losses) == 30 and all(np.isfinite(losses))
    # starts near log(vocab) (an untrained model is close to uniform) ...
    vocab = len(demo.CharTokenizer(demo.load_corpus()).chars)
    assert abs(losses[0] - np.log(vocab)) < 0.5
    # ... and really learns: the mean of the last 5 steps is well below the first loss
    assert np.mean(losses[-5:]) < losses[0] - 0.5, losses
    assert result["first_loss"] == losses[0]
    assert result["final_loss"] == pytest.approx(np.mean(losses[-10:]))

    out = tmp_path / "run"
    rows = list(csv.reader((out / "loss.csv").open()))
    assert rows[0] == ["step", "loss"] and len(rows) == 31
    assert [float(r[1]) for r in rows[1:]] == losses
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["steps"] == 30 and summary["first_loss"] == losses[0]
    assert (out / "sample.txt").read_text(encoding="utf-8").startswith(config.prompt)


def test_demo_without_learning_does_not_improve():
    """Control for the test above: with lr=0 the loss stays where it started (the drop is learning)."""
    result = demo.train(demo.DemoConfig(steps=10, seed=0, lr=0.0, **TINY), log=quiet)
    losses = result["losses"]
    assert abs(np.mean(losses[-5:]) - losses[0]) < 0.2


def test_demo_is_reproducible_with_seed():
    a = demo.train(demo.DemoConfig(steps=3, seed=5, **TINY), log=quiet)
    b = demo.train(demo.DemoConfig(steps=3, seed=5, **TINY), log=quiet)
    c = demo.train(demo.DemoConfig(steps=3, seed=6, **TINY), log=quiet)
    assert a["losses"] == b["losses"] and a["sample"] == b["sample"]
    assert a["losses"] != c["losses"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "minigrad_ckpt", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_demo_help(tmp_path):
    r = _cli("demo", "--help", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for opt in ("--steps", "--seed", "--out"):
        assert opt in r.stdout


def test_cli_demo_runs_and_writes_out_dir(tmp_path):
    r = _cli("demo", "--steps", "3", "--out", "tmp", "--seed", "1", "--sample-chars", "10", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "loss:" in r.stdout
    for name in ("loss.csv", "sample.txt", "summary.json"):
        assert (tmp_path / "tmp" / name).is_file(), name
    summary = json.loads((tmp_path / "tmp" / "summary.json").read_text())
    assert summary["config"]["steps"] == 3 and summary["config"]["seed"] == 1


def test_cli_demo_rejects_zero_steps(tmp_path):
    r = _cli("demo", "--steps", "0", cwd=tmp_path)
    assert r.returncode != 0 and "--steps" in r.stderr


# ------------------------------------------------------------------ examples
def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_mlp_spirals(capsys):
    accuracy = load_example("mlp_spirals").main(["--steps", "60", "--hidden", "32"])
    assert 0.6 < accuracy <= 1.0  # chance is 1/3
    assert "training accuracy" in capsys.readouterr().out


def test_example_cnn_shapes(capsys):
    accuracy = load_example("cnn_shapes").main(["--steps", "20", "--batch-size", "16"])
    assert 0.5 < accuracy <= 1.0  # chance is 1/3
    assert "test accuracy" in capsys.readouterr().out


def test_example_char_transformer_is_the_demo_run():
    first, last = load_example("char_transformer").main(["--steps", "3", "--batch-size", "2", "--block-size", "16"])
    result = demo.train(demo.DemoConfig(steps=3, batch_size=2, block_size=16, sample_chars=1), log=quiet)
    assert (first, last) == (result["losses"][0], result["losses"][-1])  # bitwise: the same run


def test_example_char_transformer(capsys):
    first, last = load_example("char_transformer").main(["--steps", "5", "--batch-size", "4", "--block-size", "16"])
    assert np.isfinite(first) and np.isfinite(last)
    assert last < first
    out = capsys.readouterr().out
    assert "CharTransformer(" in out and "step" in out


def test_example_lstm_majority(capsys):
    accuracy = load_example("lstm_majority").main(["--epochs", "3", "--n", "480"])
    assert 0.7 < accuracy <= 1.0  # chance is 1/2
    out = capsys.readouterr().out
    assert "held-out accuracy" in out and "epoch  3" in out


@pytest.mark.parametrize("name", ["mlp_spirals", "cnn_shapes", "char_transformer", "lstm_majority"])
def test_example_help_runs_as_script(name, tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "examples" / f"{name}.py"), "--help"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--steps" in r.stdout or "--epochs" in r.stdout
