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


# ---------------------------------------------------------------- elastic resume of a DataLoader
def _mid_epoch_states(dataset, world: int, batch_size: int, taken: int, drop_last: bool) -> list[dict]:
    """Each of ``world`` ranks' loader state after ``taken`` batches of epoch 0."""
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler

    states = []
    for r in range(world):
        sampler = DistributedSampler(dataset, num_replicas=world, rank=r, seed=1)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=drop_last)
        it = iter(loader)
        for _ in range(taken):
            next(it)
        states.append(loader.state_dict())
    return states


@pytest.mark.parametrize("n, batch_size, new_world", [(22, 2, 3), (23, 3, 3), (22, 4, 3), (40, 3, 4), (22, 2, 1)])
def test_an_elastic_resume_with_drop_last_hands_out_whole_batches_only(n, batch_size, new_world):
    """``drop_last=True`` promises no short batch -- a BatchNorm in training refuses a batch of
    one sample.  Resumed at another world size, each new rank trains on whole batches only, and
    across them every sample the interrupted epoch had left is seen exactly once."""
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset

    dataset = TensorDataset(mg.arange(n), mg.randn(n, 3))
    states = _mid_epoch_states(dataset, 2, batch_size, 1, drop_last=True)
    left = sorted(i for s in states for i in s["epoch"]["order"][batch_size:])
    seen = []
    for r in range(new_world):
        sampler = DistributedSampler(dataset, num_replicas=new_world, rank=r, seed=1)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True)
        loader.load_state_dict(loader.reshard_state_dict(states, r, new_world))
        norm = nn.BatchNorm1d(3)
        for ids, x in loader:
            assert len(ids) == batch_size
            norm(x)
            seen.extend(ids.tolist())
    assert sorted(seen) == left
