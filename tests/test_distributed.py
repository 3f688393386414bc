"""Data-parallel training under ``mpiexec -n 2`` on loopback.

Each test launches ``tests/distributed_worker.py`` under mpiexec, always with
a timeout, and reads the ``RESULT <rank> <json>`` lines it prints.  A failed
assertion inside a rank aborts the whole job (non-zero exit), so a test can
fail but never hang.  Without mpi4py (``pip install ".[distributed]"``) these
tests skip with the reason; the package itself imports without it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')

WORKER = Path(__file__).with_name("distributed_worker.py")
TIMEOUT = 60


def mpiexec() -> str:
    exe = Path(sys.executable).parent / "mpiexec"  # the MPICH wheel's, in this environment
    found = str(exe) if exe.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.skip('no mpiexec: pip install ".[distributed]" (mpi4py + mpich) or install an MPI')
    return found


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    return e


def run(cmd: list[str], timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    """Run ``cmd`` in its own session; past ``timeout`` kill the whole session (the
    launcher *and* its ranks, which would otherwise keep the output pipes open) and fail."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd)} did not finish within {timeout} s (killed)\n{out}\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def launch(*args: str, n: int = 2, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    # -launcher fork: start the ranks as local child processes (no ssh), loopback only.
    return run([mpiexec(), "-launcher", "fork", "-n", str(n), sys.executable, str(WORKER), *args], timeout)


def results(proc: subprocess.CompletedProcess, n: int = 2) -> dict[int, dict]:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    found = {int(m.group(1)): json.loads(m.group(2))
             for m in re.finditer(r"RESULT (\d+) (\{.*?\})(?=RESULT|\n|$)", proc.stdout)}
    assert sorted(found) == list(range(n)), f"missing results:\n{proc.stdout}\n{proc.stderr}"
    return found


def test_package_imports_without_mpi4py():
    code = ("import sys; sys.modules['mpi4py'] = None\n"  # importing mpi4py now fails
            "import minigrad_ckpt as mg\n"
            "assert mg.distributed.get_world_size() == 1 and not mg.distributed.is_initialized()\n"
            "try:\n    mg.distributed.init_process_group()\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert 'pip install ".[distributed]"' in out.stdout
    # With mpi4py installed, importing the package (and DDP, the sampler) still does not import it.
    lazy = ("import sys, minigrad_ckpt, minigrad_ckpt.nn.parallel, minigrad_ckpt.utils.data\n"
            "assert 'mpi4py' not in sys.modules, 'imported at package import'\n")
    out = subprocess.run([sys.executable, "-c", lazy], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr


def test_collectives():
    r = results(launch("collectives"))
    for rank in (0, 1):
        assert r[rank]["sum"] == [3.0, 30.0]
        assert r[rank]["mean"] == [1.5, 15.0]
        assert r[rank]["max"] == [2.0, 20.0] and r[rank]["min"] == [1.0, 10.0]
        assert r[rank]["broadcast"] == [[1.0] * 3] * 2  # from rank 1
        assert r[rank]["strided"] == [3.0, 15.0, 27.0]  # a non-contiguous view, reduced in place
        assert r[rank]["gather"] == [[0, 0], [1, 1]]


def test_the_profiler_shows_each_ranks_collectives_and_their_waits(tmp_path):
    """Where a rank's step goes: each collective an event named as PyTorch names its backends'
    (``gloo:all_reduce``), the time spent waiting for the other rank inside it, a DDP bucket summed
    in shared memory, and each rank's trace saying whose it is (PyTorch's ``distributedInfo``)."""
    r = results(launch("profiled", str(tmp_path)))
    for rank in (0, 1):
        names = set(r[rank]["names"])
        assert {"DistributedDataParallel.forward", "shared_memory:all_reduce", "mpi:all_reduce", "mpi:broadcast",
                "mpi:all_gather", "mpi:barrier", "mpi:wait"} <= names
        assert {"mpi:all_reduce", "mpi:broadcast", "mpi:all_gather", "mpi:barrier"} <= set(r[rank]["wait_parents"])
        assert r[rank]["info"] == {"backend": "mpi", "rank": rank, "world_size": 2}
        assert r[rank]["after"] == ["mpi:all_reduce", "mpi:wait"] and r[rank]["sum"] == [4.0] * 3
        assert not r[rank]["wrapped"]  # no profiler, no wrapper: the collectives as they were


def test_world_of_one_without_mpiexec():
    r = results(run([sys.executable, str(WORKER), "single"]), n=1)[0]
    assert r == {"rank": 0, "world": 1, "t": [1.0, 2.0], "gathered": 1, "grads": True}


def test_two_ranks_equal_one_process_and_each_other():
    # MLP and CNN with SGD and Adam, a causal transformer block (fused norms and attention
    # softmax) with SGD, a regression CNN on 18-wide images (the fused regression losses, the
    # widened rows' input gradient) with SGD, a recurrence over an unbound projection with tied weights
    # (slices' gradients placed, partial sums in place) with SGD, two LSTMCells (their one-node steps) with
    # Adam, 5 steps, float64: <= 1e-11 relative to one process
    # on the whole batch; the worker also asserts bitwise-equal parameters on both ranks after
    # construction and every step.
    r = results(launch("equivalence"))
    assert r[0] == r[1]
    assert set(r[0]) == {"mlp/sgd", "mlp/adam", "cnn/sgd", "cnn/adam", "attention/sgd", "wide/sgd", "tied/sgd",
                         "lstm/adam"}
    assert all(err <= 1e-11 for err in r[0].values())


@pytest.mark.parametrize("n", [2, 3])
def test_sums_through_shared_memory_are_in_rank_order_and_train_as_mpi(n):
    # every slot size (none, fewer values than ranks, uneven parts), float32/float64/complex, with
    # and without the mean, slots reused: bitwise the rank-order sum; DDP's training through it is
    # bitwise that through MPI's all-reduce for two ranks (a + b is b + a), the same on every rank
    r = results(launch("node_sums", n=n), n=n)
    assert all(r[i] == r[0] for i in range(n)) and r[0]["node"] == n
    if n == 2:
        assert r[0]["same_as_mpi"]


def test_a_rank_that_never_joins_a_shared_memory_sum_times_out():
    start = time.monotonic()
    proc = launch("node_sum_timeout", timeout=45)
    assert proc.returncode != 0, proc.stdout  # the job was ended, though rank 0 caught the error
    assert "caught after 2." in proc.stdout and "a gradient all-reduce did not complete within 2 s" in proc.stdout
    assert "was not ended" not in proc.stdout
    assert time.monotonic() - start < 40


def test_destroying_the_group_does_not_wait_forever_for_a_rank_that_left():
    proc = launch("destroy_alone", timeout=45)
    assert "rank 0 destroyed the group in" in proc.stdout, proc.stdout + proc.stderr
    took = int(proc.stdout.split("rank 0 destroyed the group in ")[1].split(" s")[0])
    assert took <= 12  # its wait for the others is bounded (10 s), not the group's 30-minute timeout


def test_buckets_no_sync_checkpointing_unused_and_create_graph():
    r = results(launch("variants"))[0]
    assert r["tiny_buckets"] == [1] * 6 and r["one_buckets"] == [6]
    assert r["tiny_err"] <= 1e-12 and r["one_err"] <= 1e-12
    assert r["no_sync_err"] <= 1e-12
    assert r["checkpoint_bitwise"] is True
    assert r["unused_grad_max"] == 1.0  # rank 1's gradient averaged with rank 0's zeros
    assert "does not support backward(create_graph=True)" in r["create_graph_error"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_large_gradients_are_reduced_in_place_and_train_as_one_process(dtype):
    r = results(launch("large_gradients", dtype))
    assert r[0] == r[1]
    assert r[0]["large"] == [2**20] * 3  # wide.weight, t and unused (nothing else): 1 MiB each
    assert r[0]["in_place"] and r[0]["joined"]
    assert r[0]["hook_saw_its_own_gradient"] and r[1]["hook_saw_its_own_gradient"]
    assert r[0]["adam_in_pieces"] and r[1]["adam_in_pieces"]  # (each rank's Adam over the 1 MiB weights)


def test_a_gradient_memory_shared_by_two_parameters_is_reduced_in_place_once():
    """Two parameters whose ``.grad`` were set by hand to one array: the first is reduced where it
    lies, the second from a copy (two in-place reductions of one buffer would add it twice); a
    transposed gradient is copied, a missing one is zeros."""
    import numpy as np

    import minigrad_ckpt as mg
    from minigrad_ckpt.nn.parallel import DistributedDataParallel as DDP

    f64 = "float64"
    a, b = mg.zeros((4, 3), dtype=f64, requires_grad=True), mg.zeros((4, 3), dtype=f64, requires_grad=True)
    a.grad = b.grad = mg.ones((4, 3), dtype=f64)
    taken: set[int] = set()
    first = DDP._reducible_grad(a, np.dtype("float64"), taken)
    second = DDP._reducible_grad(b, np.dtype("float64"), taken)
    assert np.shares_memory(first, a.grad.numpy()) and not np.shares_memory(second, a.grad.numpy())
    c = mg.zeros((3, 4), dtype=f64, requires_grad=True)
    c.grad = mg.tensor(np.ones((4, 3))).T  # a transposed view
    assert not np.shares_memory(DDP._reducible_grad(c, np.dtype("float64"), taken), c.grad.numpy())
    e = mg.zeros((5,), dtype=f64, requires_grad=True)
    assert DDP._reducible_grad(e, np.dtype("float64"), taken).tolist() == [0.0] * 5


def test_ddp_averages_only_a_backward_from_a_synced_forward_through_it():
    # torch 2.13 (gloo, 2 ranks): a backward through ddp.module stays local (1.0 and 2.0), a synced forward
    # then a no_sync() one backwarded together averages (3.0 on both); the engine had averaged every
    # backward that reached the parameters, and let the last forward's no_sync() cancel the averaging
    r = results(launch("averaging_follows_the_forward"))
    for rank in (0, 1):
        own = rank + 1.0
        assert r[rank]["module before any forward"] == own
        assert r[rank]["through the wrapper"] == 1.5
        assert r[rank]["module after a forward"] == own
        assert r[rank]["module inside no_sync"] == own
        assert r[rank]["module, create_graph"] == own
        assert r[rank]["synced forward, then a no_sync one"] == 3.0
    assert r[0]["module on rank 0 alone"] == 1.0


def test_collectives_of_tensors_that_differ_across_ranks_are_refused_on_every_rank():
    r = results(launch("collectives_of_different_tensors"))
    for rank in (0, 1):
        for what, msg in r[rank]["refused"].items():
            assert msg is not None and "the ranks' tensors differ in shape or dtype" in msg, what
        assert r[rank]["then"] == [2.0, 2.0, 2.0]


def test_mismatched_models_raise_on_every_rank():
    r = results(launch("mismatch"))
    for rank in (0, 1):
        msg = r[rank]["error"]
        assert msg is not None and "parameter '0.weight' has shape (16, 8) on rank 0 but (17, 8) on rank 1" in msg


def test_a_rank_raising_aborts_the_job():
    start = time.monotonic()
    proc = launch("raise", timeout=TIMEOUT)  # a hang fails the test
    assert proc.returncode != 0
    assert "rank 1 fails mid-step" in proc.stderr
    assert "aborting all 2 ranks" in proc.stderr
    assert time.monotonic() - start < TIMEOUT


@pytest.mark.msgpack
def test_exact_resume_after_kill(tmp_path):
    full, cut = tmp_path / "full", tmp_path / "cut"
    full.mkdir()
    cut.mkdir()
    uninterrupted = results(launch("resume", str(full), "8", "0", "fresh"))
    killed = launch("resume", str(cut), "8", "5", "fresh")  # dies after step 5; newest snapshot: step 4
    assert killed.returncode != 0
    resumed = results(launch("resume", str(cut), "8", "0", "resume"))
    for rank in (0, 1):
        assert resumed[rank]["digest"] == uninterrupted[rank]["digest"]  # bitwise, dropout included
        assert resumed[rank]["rng"] == uninterrupted[rank]["rng"]  # each rank's own stream
    assert uninterrupted[0]["rng"] != uninterrupted[1]["rng"]
    # Another world size resumes too (an elastic resume; tests/test_distributed_elastic.py checks the
    # data): the replicated state loads on every rank, a new rank 2 is seeded as manual_seed_per_rank
    # would have seeded it ...
    three = results(launch("resume", str(cut), "8", "0", "resume", n=3), n=3)
    assert three[2]["rng"]["seed"] == uninterrupted[0]["rng"]["seed"] + 2
    assert len({three[k]["digest"] for k in range(3)}) == 1
    # ... and so does one process, as rank 0.
    from minigrad_ckpt.snapshot import SnapshotManager

    snap = SnapshotManager(cut / "snapshots").load_latest()
    assert snap.state["rng"]["seed"] == uninterrupted[0]["rng"]["seed"]


@pytest.mark.msgpack
def test_collective_snapshot_failures_raise_on_every_rank(tmp_path):
    r = results(launch("snapshot_failure", str(tmp_path)))
    for rank in (0, 1):
        assert "differs from rank 0's" in r[rank]["drift"]
        assert "rank 0: OSError: disk full" in r[rank]["write"]
        assert r[rank]["ok"] == "snapshot-000000000003.mgsnap"
        assert "rank 1: OSError: cannot write the rank file" in r[rank]["rank_file"]
        # A collective save that did not commit leaves no rank file behind (none would ever be pruned)
        assert not [f for f in r[rank]["left_after_failures"] if f.endswith(".mgrank")]
        assert sorted(f for f in r[rank]["left"] if f.endswith(".mgrank")) == [
            f for f in r[rank]["left"] if f.startswith("ranks-000000000003-")]
        assert len([f for f in r[rank]["left"] if f.endswith(".mgrank")]) == 2
    assert "disk full" in r[0]["async"]


@pytest.mark.msgpack
def test_an_asynchronous_collective_save_is_the_state_of_the_call(tmp_path):
    r = results(launch("async_copy_on_write", str(tmp_path)))
    assert r[0] == r[1] and r[0]["iteration"] == 2 and r[0]["tensors"] > 6


@pytest.mark.msgpack
def test_a_crash_between_the_rank_files_and_the_commit_leaves_orphans_the_next_save_deletes(tmp_path):
    crashed = launch("orphans", str(tmp_path), "crash")
    assert crashed.returncode != 0
    r = results(launch("orphans", str(tmp_path), "resume"))
    for rank in (0, 1):
        assert r[rank]["loaded"] == 1
        assert len([f for f in r[rank]["before"] if f.startswith("ranks-000000000002-")]) == 2  # the orphans
        assert [f.split("-")[1] for f in r[rank]["after"]] == ["000000000001"] * 2 + ["000000000003"] * 2
        assert r[rank]["claims"] == []


@pytest.mark.msgpack
def test_demo_trains_data_parallel_under_mpiexec(tmp_path):
    out = tmp_path / "run"
    cmd = [mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, "-m", "minigrad_ckpt", "demo", "--steps", "4",
           "--batch-size", "4", "--d-model", "16", "--n-layers", "1", "--sample-chars", "10", "--out", str(out),
           "--snapshot-every", "2"]
    proc = run(cmd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("minigrad_ckpt demo:") == 1  # rank 0 prints, once
    assert "data-parallel on 2 processes" in proc.stdout
    assert proc.stdout.count("final loss") == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["world_size"] == 2
    assert sorted(p.name for p in (out / "snapshots").glob("*.mgsnap")) == [
        "snapshot-000000000002.mgsnap", "snapshot-000000000004.mgsnap"]
    # A batch that does not divide among the ranks: refused on every rank, no hang.
    bad = run(cmd[:-4] + ["--batch-size", "5"])
    assert bad.returncode != 0 and "does not divide among 2 ranks" in bad.stderr


@pytest.mark.msgpack
def test_example_script_resumes_exactly_under_mpiexec(tmp_path):
    script = str(Path(__file__).resolve().parent.parent / "examples" / "ddp_spirals.py")
    base = [mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, script]
    whole = run(base + ["--steps", "60"])
    first = run(base + ["--steps", "50", "--out", str(tmp_path)])  # a snapshot at step 50
    rest = run(base + ["--steps", "60", "--out", str(tmp_path), "--resume"])
    for proc in (whole, first, rest):
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count("2 rank(s)") == 1  # rank 0 prints
    assert whole.stdout.strip().splitlines()[-1] == rest.stdout.strip().splitlines()[-1]


def test_benchmark_runs_in_quick_mode(capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root holds benchmarks/
    from benchmarks import distributed as bench

    r = bench.main(["--quick"])
    assert r["buckets"] == 2  # DDP's default: the first bucket holds at most 1 MiB
    assert r["samples_per_s_2ranks"] > 0 and 0.0 <= r["hidden_share"] <= 1.0
    # both ranks on this machine: shared memory, unless /dev/shm lacks room for the 21 MiB window twice over
    assert r["path"] in ("shared memory", "MPI Iallreduce")
    assert "hidden behind backward" in capsys.readouterr().out


def test_ddp_buckets_follow_pytorchs_first_bucket_rule():
    # Left at its default (25 MiB), DDP's first bucket -- the last layers, ready first in
    # backward -- holds at most 1 MiB, so its all-reduce starts early; an explicit
    # bucket_cap_mb applies to every bucket (PyTorch's rule)
    from minigrad_ckpt import nn
    from minigrad_ckpt.nn.parallel import DistributedDataParallel as DDP

    net = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    params = list(net.parameters())
    default = DDP._make_buckets(params, 25, 1)
    assert [len(b.params) for b in default] == [3, 3]  # 10x1024 + biases, then the 4 MiB and 3 MiB weights
    assert default[0].nbytes <= 2**20 < default[1].nbytes
    assert [len(b.params) for b in DDP._make_buckets(params, 25, 25)] == [6]
