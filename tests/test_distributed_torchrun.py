"""``python -m minigrad_ckpt.distributed.run``, PyTorch's ``torchrun`` on mpiexec: a script written
for torchrun (it reads ``RANK``/``LOCAL_RANK``/``WORLD_SIZE`` and accumulates gradients through
DDP's ``require_backward_grad_sync``) runs unchanged and trains what one process trains on the
whole batch.  Every launch has a timeout (tests/test_distributed.py's ``run``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from minigrad_ckpt.distributed.run import build_parser, main, torchrun_environment

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
from test_distributed import mpiexec, run  # noqa: E402  (after the skip: needs mpi4py)

SCRIPT = Path(__file__).with_name("torchrun_style_script.py")
LAUNCHER = [sys.executable, "-m", "minigrad_ckpt.distributed.run"]


def rank_results(stdout: str) -> dict[int, dict]:
    return {int(m.group(1)): json.loads(m.group(2))
            for m in re.finditer(r"RESULT (\d+) (\{.*?\})(?=RESULT|\n|$)", stdout)}


def test_a_torchrun_script_trains_on_two_ranks_what_one_process_trains():
    mpiexec()  # skips without an MPI launcher
    two = run([*LAUNCHER, "--nproc-per-node", "2", str(SCRIPT), "--micro", "4"])
    assert two.returncode == 0, two.stderr
    ranks = rank_results(two.stdout)
    assert sorted(ranks) == [0, 1], two.stdout
    for r, res in ranks.items():
        assert res["env"] == {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2",
                              "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "OMP_NUM_THREADS": "1"}
        # with require_backward_grad_sync off, a micro-step's backward only accumulates locally
        assert res["differ"] == [True, True, True]
    assert ranks[0]["weights"] == ranks[1]["weights"]
    one = run([sys.executable, str(SCRIPT), "--micro", "4"])  # no launcher: RANK unset, not distributed
    assert one.returncode == 0, one.stderr
    alone = rank_results(one.stdout)[0]
    assert alone["env"]["RANK"] is None
    for a, b in zip(alone["weights"], ranks[0]["weights"]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)


def test_the_launcher_runs_a_program_and_a_module_on_each_rank(tmp_path):
    mpiexec()
    prog = run([*LAUNCHER, "--nproc_per_node=2", "--standalone", "--no-python", "printenv", "RANK"])
    assert prog.returncode == 0, prog.stderr
    assert sorted(prog.stdout.split()) == ["0", "1"]
    (tmp_path / "where_am_i.py").write_text(
        # one write per rank: print() of several arguments to an unbuffered stdout writes them one by one,
        # and the two ranks' words interleaved in the launcher's output (" 1 of 2 ..." once in a full run)
        "import os, sys\n"
        "os.write(1, f\"rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']} {sys.argv[1:]}\\n\".encode())\n")
    mod = run(["env", f"PYTHONPATH={tmp_path}", *LAUNCHER, "--nproc-per-node", "2", "-m", "where_am_i", "--x", "1"])
    assert mod.returncode == 0, mod.stderr
    assert sorted(mod.stdout.strip().splitlines()) == ["rank 0 of 2 ['--x', '1']", "rank 1 of 2 ['--x', '1']"]


def test_a_failing_rank_fails_the_launch(tmp_path):
    mpiexec()
    (tmp_path / "fails.py").write_text("import os, sys\nsys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    out = run([*LAUNCHER, "--nproc-per-node", "2", str(tmp_path / "fails.py")])
    assert out.returncode != 0


@pytest.mark.parametrize("argv, message", [
    (["--nnodes", "2", "x.py"], "one machine only"),
    (["--node-rank", "1", "x.py"], "one machine only"),
    (["--max-restarts", "3", "x.py"], "restarting failed ranks is not offered"),
    (["--nproc-per-node", "two", "x.py"], "must be a number"),
    (["--nproc-per-node", "0", "x.py"], "at least 1"),
])
def test_options_it_cannot_honour_are_refused(argv, message):
    with pytest.raises(SystemExit, match=message):
        main(argv)


def test_the_parser_takes_torchruns_spellings():
    a = build_parser().parse_args(["--nproc_per_node", "4", "--master_port", "1234", "train.py", "--lr", "3"])
    assert (a.nproc_per_node, a.master_port, a.training_script, a.training_script_args) == \
        ("4", 1234, "train.py", ["--lr", "3"])


@pytest.mark.parametrize("launcher, expected", [
    ({"PMI_RANK": "3", "PMI_SIZE": "4", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}, ("3", "1", "4", "2")),
    ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_LOCAL_RANK": "2",
      "OMPI_COMM_WORLD_LOCAL_SIZE": "3"}, ("2", "2", "3", "3")),
    ({}, ("0", "0", "1", "1")),
])
def test_torchrun_variables_come_from_the_mpi_launchers(monkeypatch, launcher, expected):
    for var in ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_RANK",
                "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"):
        monkeypatch.delenv(var, raising=False)
    for k, v in launcher.items():
        monkeypatch.setenv(k, v)
    env = torchrun_environment(master_port=4242)
    assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"]) == expected
    assert env["MASTER_PORT"] == "4242" and env["ROLE_RANK"] == expected[0]
