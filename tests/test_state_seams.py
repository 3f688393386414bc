"""Training state across resume, ranks and checkpointing: what a resumed run continues with.

Each test resumes (or replays) a piece of training state and compares with the run that
was never interrupted, bit for bit.  Several-rank cases run ``tests/state_seams_worker.py``
under ``mpiexec -n 2``, each launch under a timeout.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("state_seams_worker.py")


def _launch(*args: str, n: int = 2, timeout: float = 120):
    from test_distributed import mpiexec, run

    return run([mpiexec(), "-launcher", "fork", "-n", str(n), sys.executable, str(WORKER), *args], timeout)


def _results(proc, n: int = 2) -> dict[int, dict]:
    from test_distributed import results

    return results(proc, n)


@pytest.mark.msgpack
def test_each_rank_resumes_its_own_batchnorm_statistics(tmp_path):
    """With ``broadcast_buffers=False`` a rank's running statistics are its own state: a snapshot
    keeps each rank's (in its rank file), so a resumed rank continues with its own, not rank 0's."""
    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    whole = _results(_launch("own_buffers", str(tmp_path / "whole"), "fresh"))
    assert whole[0]["digest"] != whole[1]["digest"]  # the ranks' statistics did differ
    shutil.copytree(tmp_path / "whole", tmp_path / "resumed")
    resumed = _results(_launch("own_buffers", str(tmp_path / "resumed"), "resume"))
    assert [resumed[r]["start"] for r in (0, 1)] == [3, 3]
    assert [resumed[r]["digest"] for r in (0, 1)] == [whole[r]["digest"] for r in (0, 1)]
