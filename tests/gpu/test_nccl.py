"""The 'nccl' backend of mg.distributed on real GPUs: ``pytest -m gpu``.

NCCL refuses two ranks on one GPU, so a one-GPU machine tests a one-rank
communicator (unique id, communicator, in-place collectives on the stream,
DDP on CUDA tensors); two ranks run where two GPUs are visible.  Without
CuPy, a GPU, NCCL or mpi4py these tests skip with the reason.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg

pytestmark = pytest.mark.gpu

WORKER = Path(__file__).resolve().parent.parent / "distributed_worker.py"


def _needs_nccl() -> None:
    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    try:
        mg.backend.cupy_nccl()
    except ImportError as exc:
        pytest.skip(str(exc))


def _run(cmd: list[str]) -> dict[int, dict]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    return {int(m.group(1)): json.loads(m.group(2))
            for m in re.finditer(r"RESULT (\d+) (\{.*?\})(?=RESULT|\n|$)", proc.stdout)}


def test_nccl_one_rank_communicator():
    _needs_nccl()
    r = _run([sys.executable, str(WORKER), "nccl"])[0]
    assert r["world"] == 1
    assert r["sum"] == [1.0, 2.0] and r["max"] == [1.0, 2.0]
    assert r["broadcast"] == [0.0, 0.0, 0.0] and r["gather"] == [[0]]
    assert r["grad_err"] < 1e-5


def test_nccl_two_ranks_on_two_gpus():
    _needs_nccl()
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("two NCCL ranks need two GPUs (NCCL refuses two ranks on one device)")
    exe = Path(sys.executable).parent / "mpiexec"
    r = _run([str(exe), "-launcher", "fork", "-n", "2", sys.executable, str(WORKER), "nccl"])
    for rank in (0, 1):
        assert r[rank]["sum"] == [3.0, 4.0] and r[rank]["max"] == [2.0, 2.0]
        assert r[rank]["broadcast"] == [1.0, 1.0, 1.0] and r[rank]["gather"] == [[0], [1]]
        assert r[rank]["grad_err"] < 1e-5
