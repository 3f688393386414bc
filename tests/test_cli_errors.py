"""The command line talks to people: one ``error:`` line and a non-zero exit for
every user error (2 for usage errors, 1 for failures), never a traceback; help
for every option with its default; the README's commands work as written."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--steps", "2", "--d-model", "16", "--n-layers", "1", "--block-size", "16", "--batch-size", "2",
        "--sample-chars", "4"]


def _cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("MINIGRAD_CKPT_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "minigrad_ckpt", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _snapshot_run(tmp: Path) -> Path:
    r = _cli("demo", *TINY, "--snapshot-every", "1", "--out", "run", cwd=tmp)
    assert r.returncode == 0, r.stderr
    return tmp / "run"


def _truncated(tmp: Path) -> str:
    run = _snapshot_run(tmp)
    good = sorted((run / "snapshots").glob("*.mgsnap"))[-1]
    bad = tmp / "truncated.mgsnap"
    bad.write_bytes(good.read_bytes()[:100])
    return str(bad)


def _file(tmp: Path) -> Path:
    path = tmp / "a-file"
    path.write_text("not a directory")
    return path


# (name, arguments (a callable gets tmp_path and may set files up), expected exit code, words in the error)
BAD_INVOCATIONS = [
    ("resume without --out", lambda t: ["demo", "--resume"], 2, "--out"),
    ("snapshot-every without --out", lambda t: ["demo", "--snapshot-every", "5"], 2, "--out"),
    ("resume on an empty directory", lambda t: ["demo", "--resume", "--out", str(t / "empty")], 1, "no snapshot"),
    ("memory budget without optimal", lambda t: ["demo", "--memory-budget", "4MB"], 2, "--checkpoint optimal"),
    ("memory budget not a size", lambda t: ["demo", "--checkpoint", "optimal", "--memory-budget", "lots"], 2,
     "bytes"),
    ("infeasible budget", lambda t: ["demo", *TINY, "--checkpoint", "optimal", "--memory-budget", "1KB"], 1,
     "smallest feasible budget"),
    ("missing corpus", lambda t: ["demo", "--corpus", str(t / "nope.txt")], 1, "nope.txt"),
    ("zero steps", lambda t: ["demo", "--steps", "0"], 2, "--steps"),
    # sizes that make no model: refused before any work, not a NaN loss or a ZeroDivisionError after it
    ("zero batch size", lambda t: ["demo", *TINY, "--batch-size", "0"], 2, "--batch-size must be at least 1"),
    ("negative batch size", lambda t: ["demo", *TINY, "--batch-size", "-3"], 2, "--batch-size"),
    ("zero block size", lambda t: ["demo", *TINY, "--block-size", "0"], 2, "--block-size must be at least 1"),
    ("zero heads", lambda t: ["demo", *TINY, "--n-heads", "0"], 2, "--n-heads must be at least 1"),
    ("heads not dividing the width", lambda t: ["demo", *TINY, "--d-model", "15", "--n-heads", "2"], 2,
     "divisible by --n-heads 2"),
    ("negative layers", lambda t: ["demo", *TINY, "--n-layers", "-1"], 2, "--n-layers"),
    ("negative sample length", lambda t: ["demo", *TINY, "--sample-chars", "-1"], 2, "--sample-chars"),
    ("infinite learning rate", lambda t: ["demo", *TINY, "--lr", "inf"], 2, "--lr"),
    ("out is a file", lambda t: ["demo", *TINY, "--out", str(_file(t))], 2, "is not a directory"),
    ("out is under a file", lambda t: ["demo", *TINY, "--out", str(_file(t) / "run")], 2, "is not a directory"),
    ("cuda without CuPy", lambda t: ["demo", *TINY, "--device", "cuda"], 1, "CuPy"),
    ("resume with another d-model",
     lambda t: ["demo", "--resume", "--out", str(_snapshot_run(t)), "--d-model", "32"], 1, "--d-model 32"),
    ("inspect a missing file", lambda t: ["snapshot", "inspect", str(t / "missing.mgsnap")], 1, "missing.mgsnap"),
    ("inspect a truncated snapshot", lambda t: ["snapshot", "inspect", _truncated(t)], 1, ""),
    ("verify a truncated snapshot", lambda t: ["snapshot", "verify", _truncated(t)], 1, ""),
    ("diff a truncated snapshot", lambda t: ["snapshot", "diff", _truncated(t), _truncated(t)], None, ""),
    ("unknown subcommand", lambda t: ["frobnicate"], 2, "invalid choice"),
]


@pytest.mark.parametrize("name,make_args,code,words", BAD_INVOCATIONS, ids=[b[0] for b in BAD_INVOCATIONS])
def test_a_user_error_is_one_error_line_and_no_traceback(tmp_path, name, make_args, code, words):
    if name == "cuda without CuPy":
        pytest.importorskip("minigrad_ckpt.cuda")
        import minigrad_ckpt as mg

        if mg.cuda.is_available():
            pytest.skip("a GPU is usable here")
    r = _cli(*make_args(tmp_path), cwd=tmp_path)
    assert "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if re.match(r"^(minigrad-ckpt[\w ]*: )?error: ", line)]
    assert len(errors) == 1, r.stderr
    assert r.returncode != 0
    if code is not None:
        assert r.returncode == code, (r.returncode, r.stderr)
    assert words in errors[0], errors[0]


def test_a_failure_traceback_is_available_on_request(tmp_path):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MINIGRAD_CKPT_TRACEBACK="1")
    r = subprocess.run([sys.executable, "-m", "minigrad_ckpt", "demo", "--corpus", str(tmp_path / "nope")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" in r.stderr and "FileNotFoundError" in r.stderr


def test_output_piped_into_head_ends_quietly(tmp_path):
    run = _snapshot_run(tmp_path)
    snap = sorted((run / "snapshots").glob("*.mgsnap"))[-1]
    cmd = f"{shlex.quote(sys.executable)} -m minigrad_ckpt snapshot inspect {shlex.quote(str(snap))} | head -n 1"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
    assert r.stdout.count("\n") == 1


def _subparsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _subparsers(sub)


def test_every_option_of_every_subcommand_has_help_and_shows_its_default():
    from minigrad_ckpt.cli import build_parser

    missing = []
    for p in _subparsers(build_parser()):
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
                continue
            if not a.help:
                missing.append(f"{p.prog} {a.dest}: no help")
            elif a.option_strings and "default" not in a.help:
                missing.append(f"{p.prog} {'/'.join(a.option_strings)}: help does not show the default")
    assert not missing, "\n".join(missing)


def test_a_resumed_demo_keeps_snapshotting_and_says_when_nothing_is_left(tmp_path):
    run = _snapshot_run(tmp_path)  # 2 steps, a snapshot every step
    r = _cli("demo", "--resume", "--out", str(run), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "nothing left to do" in r.stdout + r.stderr
    r = _cli("demo", "--resume", "--out", str(run), "--steps", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "applying the changed --steps" in r.stdout + r.stderr
    assert "wrote 2 snapshots" in r.stdout  # steps 3 and 4: --snapshot-every 1 came from the snapshot
    assert (run / "snapshots" / "snapshot-000000000004.mgsnap").is_file()


def test_the_demo_ends_with_its_loss_curve_and_one_final_loss(tmp_path):
    r = _cli("demo", *TINY[:1], "4", *TINY[2:], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "> steps" in r.stdout  # the text chart's axis
    assert len(re.findall(r"final loss \d", r.stdout)) == 1


def test_sqrt_checkpointing_on_a_model_too_small_says_so(tmp_path):
    r = _cli("demo", *TINY, "--checkpoint", "sqrt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "too small for checkpointing" in out
    assert "planner's prediction" in out and "whole step" in out  # which peak covers what


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("## More commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines()
            if line.strip().startswith("minigrad-ckpt ")]


@pytest.mark.slow
def test_the_readme_more_commands_work_in_order_as_written(tmp_path):
    commands = _readme_commands()
    assert any("inspect" in c for c in commands) and any("--resume" in c for c in commands)
    for command in commands:
        args = shlex.split(command)[1:]
        r = _cli(*args, cwd=tmp_path, timeout=400)
        assert r.returncode == 0, f"{command}\n{r.stderr[-2000:]}"


def test_the_snapshots_listed_at_the_end_are_the_ones_kept(tmp_path):
    """With --keep the older snapshots are removed during the run: the last lines listed all four
    written as if they were there ("wrote 4 snapshots to run/snapshots: ...1, ...2, ...3, ...4")."""
    r = _cli("demo", *TINY[:1], "4", *TINY[2:], "--out", "run", "--snapshot-every", "1", "--keep", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    there = sorted(p.name for p in (tmp_path / "run" / "snapshots").glob("*.mgsnap"))
    assert there == ["snapshot-000000000004.mgsnap"]
    line = next(line for line in r.stdout.splitlines() if line.startswith("wrote 4 snapshots"))
    assert line == "wrote 4 snapshots to run/snapshots, of which --keep kept 1: snapshot-000000000004.mgsnap"
