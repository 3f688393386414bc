"""No hang, ever: uneven inputs under ``ddp.join()``, collectives that cannot complete time out,
and ``all_gather`` of 0-d tensors -- each under ``mpiexec -n 2`` with a timeout (see
tests/test_distributed.py for the launcher)."""

from __future__ import annotations

import time

import pytest
from test_distributed import launch, results

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')


@pytest.mark.parametrize("divide", ["initial", "active"])
def test_join_lets_uneven_ranks_finish_and_averages_as_asked(divide):
    r = results(launch("join", divide))  # without join, rank 0 exits and rank 1 waits forever
    for rank in (0, 1):
        assert r[rank]["err"] < 1e-12, r[rank]
        assert r[rank]["same_optimizer_state"]


def test_join_can_raise_on_every_rank_instead_of_shadowing():
    r = results(launch("join_throw"))
    for rank in (0, 1):
        assert "1 rank(s) ran out of inputs (throw_on_early_termination=True)" in r[rank]["error"]


def test_join_with_three_ranks():
    r = results(launch("join", "initial", n=3), n=3)
    assert all(r[k]["err"] < 1e-12 and r[k]["same_optimizer_state"] for k in range(3))


@pytest.mark.msgpack
@pytest.mark.parametrize("n", [2, 3])
def test_join_brings_the_iteration_along_and_refuses_a_save_while_a_rank_shadows(tmp_path, n):
    r = results(launch("join_executor", str(tmp_path), n=n), n=n)
    for rank in range(n):
        # rank k had 3 + k batches: every rank ends at the last one's count, its scheduler too
        # (else the early ranks' next steps take another learning rate and the replicas drift apart)
        assert r[rank]["iterations"] == [2 + n] * n
        assert r[rank]["schedulers"] == [[2 + n, pytest.approx(0.01 / (3 + n))]] * n
        # second block: saves guarded by all_ranks_have_data, at m + 1..m + 3 (m = 2 + n); third
        # block: saves at 2m + 1..2m + 3 while every rank has data, then, on the ranks with a
        # 4th batch, while rank 0 shadows: refused on every rank
        assert r[rank]["error_inside"].startswith(
            "save_snapshot inside DistributedDataParallel.join() while 1 rank(s) had run out of inputs"), r[rank]
        assert "save different iterations" in r[rank]["error_after"], r[rank]
    assert [f for f in r[0]["saved"] if f.startswith("snapshot-")] == [
        f"snapshot-{it:012d}.mgsnap" for m in (2 + n, 4 + 2 * n) for it in range(m + 1, m + 4)]


def test_a_grad_scaler_agrees_on_every_rank_after_a_join_block():
    """Rank r has first + 2r batches and the last rank overflows on the batch after rank 0 ran
    out.  Inside the block every rank with data skips that step (the gradients it checks are
    all-reduced, as PyTorch's); rank 0, shadowing, missed the backoff, so after the block it scaled
    by 2048 where rank 1 scaled by 1024 -- averaged gradients unscaled by different scales, and the
    replicas drifted apart (PyTorch's do too).  The block now ends with every rank holding the
    scaler state of the rank that ran to the end: the scaler given (ddp.join(scaler=) or Join's
    kwargs) and those whose update() ran in the block; a rank with no batch in the block cannot
    tell which scaler to sync: a warning then, on every rank, and scaler= syncs it."""
    t0 = time.monotonic()
    r = results(launch("join_grad_scaler"))
    assert time.monotonic() - t0 < 30
    for rank in (0, 1):
        for how in ("none", "ddp", "Join"):
            case = r[rank][f"{how} 3"]
            assert case["scales"] == [[1024.0, 1], [1024.0, 1]] and case["same_after"], (how, case)
            assert case["skipped"] == [False] * 3 + [True, False] * rank + [False] * 2  # (rank 1's 4th backs off)
            assert case["warnings"] == []
        assert r[rank]["ddp 0"]["scales"] == [[512.0, 1], [512.0, 1]] and r[rank]["ddp 0"]["same_after"]
        unsynced = r[rank]["none 0"]
        assert not unsynced["same_after"] and unsynced["warnings"][0].startswith(
            "DistributedDataParallel.join: the ranks updated different numbers of GradScalers in the block ([0, 1]")


@pytest.mark.parametrize("kind", ["seconds", "timedelta"])
def test_a_collective_that_cannot_complete_times_out_and_ends_the_job(kind):
    start = time.monotonic()
    proc = launch("timeout", kind, timeout=45)
    took = time.monotonic() - start
    assert proc.returncode != 0, proc.stdout  # the job was ended, though rank 0 caught the error
    assert "caught after 2." in proc.stdout and "all_reduce did not complete within 2 s on rank 0" in proc.stdout
    assert "the process group is unusable" in proc.stdout  # later collectives refuse at once
    assert "aborting all 2 ranks" in proc.stderr
    assert "was not ended" not in proc.stdout
    assert took < 40


def test_all_gather_of_a_0d_tensor_gives_0d_tensors():
    r = results(launch("gather0d"))
    for rank in (0, 1):
        assert r[rank] == {"shapes": [[], []], "values": [1.5, 2.5]}


def test_the_default_timeout_is_finite_and_bad_values_are_refused():
    import datetime

    from minigrad_ckpt import distributed as dist
    from minigrad_ckpt.distributed.world import _seconds

    assert dist.DEFAULT_TIMEOUT == 1800.0
    assert _seconds(None) == 1800.0 and _seconds(datetime.timedelta(minutes=1)) == 60.0 and _seconds(5) == 5.0
    for bad in (0, -1, float("inf"), "10", True):
        with pytest.raises(ValueError, match="timeout"):
            _seconds(bad)



@pytest.fixture(scope="module")
def buffers():
    """One launch of both buffer scenarios, and PyTorch's numbers for them."""
    import json
    from pathlib import Path

    want = json.loads((Path(__file__).parent / "data" / "torch_ddp_buffers.json").read_text())
    return want, results(launch("buffers"))


def _close(got, want, what):
    import numpy as np

    assert len(got) == len(want), what
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=1e-12, atol=1e-14, err_msg=what)


def test_join_syncs_buffers_from_a_rank_with_data_as_torch(buffers):
    """PyTorch's DDP under Join broadcasts the buffers before each forward from the highest rank
    that still has data (not rank 0, whose buffers are stale once it ran out), at the end of the
    block from the highest rank that ran to the end, and the buffers not at all with
    ``broadcast_buffers=False`` (tests/data/make_torch_ddp_buffers.py wrote its numbers)."""
    want, r = buffers
    for rank in (0, 1):
        for case, got, ref in zip(want["cases"], r[rank]["join"], want["ranks"][rank]["join"]):
            _close([*got["steps"], got["end"]], [*ref["steps"], ref["end"]], f"rank {rank}, case {case}")


def test_buffers_are_broadcast_after_a_synced_forward_only_as_torch(buffers):
    """PyTorch broadcasts the buffers before a forward only when the one before it ran with grad
    and gradient sync: through no_sync accumulation before the first micro-batch only, through a
    run of forwards without grad before the first only."""
    want, r = buffers
    for rank in (0, 1):
        _close(r[rank]["accumulation"], want["ranks"][rank]["accumulation"], f"rank {rank}")
        # inside join() the rank that ran out follows the others (rank 1 ended under no_sync): after
        # the block no rank broadcasts where another does not (the old code hung here)
        _close(r[rank]["joined_accumulation"], want["ranks"][rank]["joined_accumulation"], f"rank {rank}, joined")
