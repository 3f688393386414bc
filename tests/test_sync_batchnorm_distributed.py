"""``nn.SyncBatchNorm`` under ``mpiexec -n 2``: two ranks holding rows of one batch get what one plain
``BatchNorm`` given the whole batch gets (tests/sync_batchnorm_worker.py runs the scenarios).

The ranks' rows are uneven -- 5 and 2, 7 and none, 1 and 6 -- and the data's mean (3) is large beside
its spread (0.5).  Every launch has a timeout: a rank that never joins a collective fails the test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(Path(__file__).parent))
from test_distributed import TIMEOUT, mpiexec, results, run  # noqa: E402

WORKER = Path(__file__).with_name("sync_batchnorm_worker.py")


def launch(*args: str, timeout: float = TIMEOUT):
    return run([mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, str(WORKER), *args], timeout)


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-12), ("float32", 1e-5)])
def test_two_ranks_equal_one_batch_norm_over_the_whole_batch(dtype, tol):
    # values, input gradients, the ranks' summed weight and bias gradients, the running statistics
    # (momentum 0.1 and None) after two steps, and eval mode after them
    r = results(launch("equivalence", dtype))
    for rank in (0, 1):
        assert set(r[rank]) >= {"value", "input_grad", "weight_grad", "bias_grad", "running_mean", "running_var",
                                "num_batches_tracked", "eval"}
        assert max(r[rank].values()) <= tol, r[rank]


def test_a_checkpoint_replay_is_bitwise_runs_no_collective_and_counts_the_batch_once():
    r = results(launch("checkpoint"))
    for rank in (0, 1):
        got = r[rank]
        assert got["grads_bitwise"] and got["buffers_bitwise"]
        assert got["calls_plain"] == {"all_gather": 1, "all_reduce": 1}  # one each way
        assert got["calls_checkpointed"] == got["calls_plain"]  # the replay gathers nothing
        assert got["batches_tracked"] == 1


def test_ddp_over_a_converted_model_trains_as_one_process_with_batch_norm():
    r = results(launch("ddp", "float64"))
    for rank in (0, 1):
        assert r[rank]["parameters"] <= 1e-12 and r[rank]["buffers"] <= 1e-12, r[rank]


def test_a_killed_run_resumes_bitwise_running_statistics_included(tmp_path):
    full, cut = tmp_path / "full", tmp_path / "cut"
    full.mkdir()
    cut.mkdir()
    uninterrupted = results(launch("resume", str(full), "0", "fresh"))
    assert launch("resume", str(cut), "3", "fresh").returncode != 0  # dies after step 3; newest snapshot: 2
    resumed = results(launch("resume", str(cut), "0", "resume"))
    for rank in (0, 1):
        assert resumed[rank]["digest"] == uninterrupted[rank]["digest"]
