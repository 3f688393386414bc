"""``examples/ported/dist_tuto.py`` (PyTorch's "Writing Distributed Applications" tutorial: send/recv,
isend/irecv, the collectives, a ring all-reduce built from them and synchronous SGD that averages the
gradients by hand) run under ``mpiexec -n 2`` as the tutorial's MPI section runs it, against torch
2.13's gloo run of the same source that ``tests/data/make_ported_dist_tuto.py`` recorded.  Always
with a timeout: a rank that fails aborts the job, so the test can fail but never hang."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(Path(__file__).parent))
from test_distributed import mpiexec, run  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ported" / "dist_tuto.py"
TORCH = json.loads((Path(__file__).parent / "data" / "ported_dist_tuto.json").read_text())


def test_dist_tuto_matches_pytorch_under_mpiexec(tmp_path, monkeypatch):
    monkeypatch.setenv("DIST_TUTO_RESULTS", str(tmp_path))  # (a file per rank: prints may interleave)
    proc = run([mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, str(EXAMPLE)], timeout=120)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    got = {r: json.loads((tmp_path / f"rank{r}.json").read_text()) for r in ("0", "1")}
    for rank in ("0", "1"):
        mine, torch = got[rank], TORCH[rank]
        exact = [k for k in torch if k not in ("epoch_loss", "weights")]
        assert {k: mine[k] for k in exact} == {k: torch[k] for k in exact}, rank
        np.testing.assert_allclose(mine["epoch_loss"], torch["epoch_loss"], rtol=1e-5)
        for name, values in torch["weights"].items():
            np.testing.assert_allclose(mine["weights"][name], values, rtol=1e-4, atol=1e-6, err_msg=name)
    assert got["0"]["weights"] == got["1"]["weights"]  # the averaged gradients keep the replicas equal
