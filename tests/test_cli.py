"""The command line entry point: ``python -m minigrad_ckpt``."""

from __future__ import annotations

import subprocess
import sys

import minigrad_ckpt as mg


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minigrad_ckpt", *args],
                          capture_output=True, text=True, timeout=60)


def test_version_exits_zero_and_prints_version():
    p = _run("--version")
    assert p.returncode == 0, p.stderr
    assert mg.__version__ in p.stdout
    assert p.stdout.strip() == f"minigrad-ckpt {mg.__version__}"


def test_help_exits_zero_and_prints_usage():
    p = _run("--help")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage:")
    assert "--version" in p.stdout


def test_no_arguments_prints_help():
    p = _run()
    assert p.returncode == 0, p.stderr
    assert "usage:" in p.stdout


def test_unknown_option_fails():
    p = _run("--definitely-not-an-option")
    assert p.returncode != 0
    assert "unrecognized arguments" in p.stderr


def test_main_function_in_process(capsys):
    from minigrad_ckpt.cli import main

    assert main([]) == 0
    assert "usage:" in capsys.readouterr().out
