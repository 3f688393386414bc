"""The benchmark scripts still run against the current engine (quick mode).

They are not timed here -- timings belong in ``python -m benchmarks`` -- but
a benchmark that crashes on an internal rename is found by CI, not by the
next person who wants the numbers.  Each script checks its own results
(every engine's first step against the NumPy floor; measured == predicted
checkpoint peaks; snapshots load back bit-exactly).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root holds benchmarks/


@pytest.mark.msgpack
def test_snapshot_throughput_quick(tmp_path, capsys):
    from benchmarks import snapshot_throughput

    results = snapshot_throughput.main(["--quick", "--repeats", "1", "--dir", str(tmp_path)])
    assert results, "no rows"
    out = capsys.readouterr().out
    assert "minigrad_ckpt snapshot" in out and "checksums cost" in out


@pytest.mark.msgpack
def test_snapshot_stall_quick(tmp_path, capsys):
    from benchmarks import snapshot_stall

    r = snapshot_stall.main(["--quick", "--repeats", "2", "--dir", str(tmp_path)])
    assert r["state_mb"] == 10 and r["blocking_s"] > 0 and r["stall_s"] > 0  # ratios printed, never asserted
    assert "of the blocking save" in capsys.readouterr().out


def test_checkpoint_sweep_quick(capsys):
    from benchmarks import checkpoint_sweep

    rows = checkpoint_sweep.main(["--quick", "--samples", "1"])
    assert rows
    for row in rows:
        assert row["measured_peak"] == row["predicted_peak"], row


def test_engine_benchmarks_quick(capsys):
    from benchmarks import run

    results = run.main(["--quick", "--only", "per_op,mlp"])
    assert set(results["benchmarks"]) == {"per_op", "mlp"}
    assert results["problems"] == []  # every engine's first step matched the NumPy floor
    assert results["float32_check"].startswith("ok")
    for bench in results["benchmarks"].values():
        assert "minigrad_ckpt" in bench["engines"]


def test_instruction_count_workloads_build_and_run():
    """benchmarks/instructions.py runs these under Valgrind; here, once each, natively."""
    from benchmarks import instructions

    for workload in instructions.STEPS:
        step = instructions._make_step(workload, "minigrad")
        step()
        floor = instructions._make_step(workload, "numpy")
        if floor is not None:  # the programs have a PyTorch twin, no hand-written floor
            floor()


def test_instruction_count_script_answers_help(capsys):
    from benchmarks import instructions

    with pytest.raises(SystemExit) as stop:
        instructions.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "callgrind" in out and "--all" in out and "mnist" in out


def test_program_benchmarks_quick(capsys):
    """The pytorch/examples and micrograd programs run, agree with their PyTorch twin on the
    first step where torch is installed (alone otherwise), and reach the summary table."""
    import importlib.util

    from benchmarks import run

    results = run.main(["--quick", "--only", "regression,moons"])
    assert results["problems"] == []
    for bench in results["benchmarks"].values():
        assert "minigrad_ckpt" in bench["engines"]
    out = capsys.readouterr().out
    if importlib.util.find_spec("torch"):
        assert "Summary" in out and "pytorch/examples regression" in out


def test_peak_resident_memory_of_a_step():
    from benchmarks import peak_rss

    rows = peak_rss.measure("regression", engines=("minigrad_ckpt",), steps=1)
    mine = rows["minigrad_ckpt"]
    assert mine["peak"] >= mine["before"] > 0 and mine["step_peak"] >= 0 and isinstance(mine["hwm_reset"], bool)


def test_the_high_water_mark_is_reset_before_the_steps():
    """A setup's peak is not the step's: the reset brings VmHWM down to the resident set."""
    import numpy as np

    from benchmarks import peak_rss

    big = np.ones(64 * 2**20 // 8)  # 64 MiB, touched, then returned (a mapping of its own)
    del big
    if not peak_rss._reset_peak_resident():
        pytest.skip("this kernel does not let a process reset its high-water mark")
    assert peak_rss._peak_resident_bytes() < peak_rss._resident_bytes() + 32 * 2**20


def test_planner_benchmark_quick(capsys):
    from benchmarks import planner

    rows = planner.main(["--quick", "--budgets", "1"])
    assert {r["what"] for r in rows} == {"min_peak_bytes", "plan_for_budget(1 x smallest)"}
    assert all(r["peak"] <= r["budget"] for r in rows if "budget" in r)
    assert "planner on 1,000 layers" in capsys.readouterr().out


def test_cnn_and_transposed_chain_benchmarks_quick(capsys):
    """The CNN (float32), the transposed-weight chain and examples/cnn_shapes.py's model:
    every engine's first step (loss and first gradients) agrees with the hand-written NumPy
    floor (the CNN, the chain) or with PyTorch (ShapeNet, with dropout 0 for the check)."""
    import importlib.util

    from benchmarks import run

    # cnn_shapes is measured against PyTorch only: it is asked for where torch is installed
    wanted = ["cnn", "tchain"] + (["cnn_shapes"] if importlib.util.find_spec("torch") else [])
    results = run.main(["--quick", "--only", ",".join(wanted)])
    assert set(results["benchmarks"]) == set(wanted)
    assert results["problems"] == []


def test_residual_recompute_bound_small_cases():
    from benchmarks.residual_recompute_bound import least_convolutions

    assert least_convolutions(1, 3) == 0  # the block's input, relu output and output, all held
    assert least_convolutions(2, 3) is None  # block 1 reads x_1, r_1 and x_2, and x_0 stays
    assert least_convolutions(2, 4) == 1  # hold x_0, x_1, r_1, x_2: only r_0 is made again


def test_planner_reaches_the_residual_recompute_bound(monkeypatch):
    """At every budget, the planner's plan for the sweep's residual net replays exactly as
    many convolutions as the fewest any schedule of held and recomputed arrays needs."""
    import minigrad_ckpt as mg
    from benchmarks import checkpoint_sweep
    from benchmarks.residual_recompute_bound import least_convolutions
    from minigrad_ckpt import checkpoint as ck
    from minigrad_ckpt.checkpoint.segment import Segment

    blocks = 4
    layers = checkpoint_sweep.resnet_layers(blocks, 2)
    x = mg.randn(1, 2, 4, 4)
    profile = ck.profile_chain(layers, x, repeats=1)
    for lp in profile.layers:  # time in convolutions: a block runs two, its replay as a last layer one
        lp.forward_seconds, lp.kept_output_seconds = 2.0, 1.0
    replayed = []
    forward = Segment._forward

    def counting(self, node, ins):
        replayed.append(node.op.name)
        return forward(self, node, ins)

    monkeypatch.setattr(Segment, "_forward", counting)
    array = 2 * 4 * 4 * 4  # bytes of one activation
    for held in range(4, 2 * blocks + 2):
        plan = ck.plan_for_budget(profile, held * array)
        replayed.clear()
        ck.run_plan(layers, plan, x).sum().backward()
        assert replayed.count("Conv2d") == least_convolutions(blocks, held), (held, plan.describe())
    with pytest.raises(ck.InfeasibleBudgetError):
        ck.plan_for_budget(profile, 3 * array)


def test_batch_norm_resnet_checkpointed_equals_the_plain_step():
    """The sweep's ResNet of basic blocks (batch norm in training mode), planned at 30% of its
    peak and at its smallest (nested seven deep): the ledger's peak is the planner's
    prediction, and the step's gradients and the batch norms' running statistics are bitwise
    those of the step without checkpointing -- its replays, replays inside replays too,
    recompute the batch norms without updating their statistics again."""
    import minigrad_ckpt as mg
    from benchmarks import checkpoint_sweep
    from minigrad_ckpt import checkpoint as ck

    blocks = 8  # fewer do not fit in 30%: reversing a block holds four arrays besides the kept inputs
    x = mg.randn(2, 3, 6, 6)
    profile = ck.profile_chain(checkpoint_sweep.resnet_bn_layers(blocks, 3), x, repeats=1)
    base = ck.NoCheckpointing().plan(blocks)
    thirty = ck.plan_for_budget(profile, int(0.3 * ck.simulate_peak(profile, base)))
    smallest = ck.plan_for_budget(profile, ck.min_peak_bytes(profile))
    assert thirty.depth >= 1 and smallest.depth == blocks - 1, (thirty.describe(), smallest.describe())
    results = []
    for plan in (base, thirty, smallest):
        layers = checkpoint_sweep.resnet_bn_layers(blocks, 3)  # the same weights and statistics each time
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, x).sum().backward()
        assert ledger.peak("saved") == ck.simulate_peak(profile, plan), plan.describe()
        results.append([a.numpy().tobytes() for layer in layers
                        for a in [*(q.grad for q in layer.parameters()), *layer.buffers()]])
    assert len(results[0]) == blocks * 12  # 2 convolution weights, 2 x 2 batch norm weights, 2 x 3 buffers
    assert results[0] == results[1] == results[2]


def test_avx512_left_unused_is_named_only_for_avx2_kernels_on_a_cpu_with_every_flag_they_need():
    from benchmarks import blas

    every = {"avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
    assert blas.unused_avx512("Haswell", every) and blas.unused_avx512("Zen", every)
    assert not blas.unused_avx512("SkylakeX", every)  # AVX-512 already
    assert not blas.unused_avx512(None, every)  # not OpenBLAS
    assert not blas.unused_avx512("Haswell", every - {"avx512vl"})  # SkylakeX's kernels need VL too
    assert not blas.unused_avx512("Haswell", {"avx2", "fma"})
    assert isinstance(blas.unused_avx512(blas.openblas_core()), bool)  # this machine's own flags


def test_the_blas_kernels_are_reported_and_chosen_only_before_numpy_loads():
    """``--blas-core``: the kernels OpenBLAS runs are read back from the library, a choice made
    after NumPy loaded it is refused (it would silently do nothing), and in a fresh process the
    named kernels are the ones that run."""
    import platform
    import subprocess

    from benchmarks import blas

    core = blas.openblas_core()
    assert core is None or (isinstance(core, str) and core)
    with pytest.raises(RuntimeError, match="before NumPy"):
        blas.choose_core("Haswell")  # this process imported NumPy long ago
    if core is None or platform.machine() not in ("x86_64", "AMD64"):
        return  # another BLAS, or kernels named otherwise: nothing more to choose here
    root = Path(__file__).resolve().parent.parent
    code = "from benchmarks import blas; blas.choose_core('Nehalem'); print(blas.openblas_core())"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Nehalem"  # SSE4.2: every x86-64 CPU of the last fifteen years runs these


def test_the_gpu_benchmarks_phase_profile_runs_on_a_stand_in_device():
    # benchmarks/gpu.sh runs only where a GPU is lent (rarely): its profile must not be first run there
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from benchmarks import gpu_bench

    phases = gpu_bench.mlp_phases_mg("strict-f32", steps=2, warmup=1)
    assert len(phases) == 4 and all(t > 0 for t in phases)


def test_optimizer_step_benchmark_runs_each_optimizer_both_ways(capsys):
    """benchmarks/optimizer_step.py, once, small: a row per optimizer, both paths timed."""
    from benchmarks import optimizer_step

    optimizer_step.main(["--shape", "512x512", "--count", "1", "--steps", "1"])
    out = capsys.readouterr().out
    for name in optimizer_step.OPTIMIZERS:
        row = next(line for line in out.splitlines() if line[:30].rstrip() == name)
        pieces, whole = (float(v) for v in row[30:].split()[:2])
        assert pieces > 0 and whole > 0, row


def test_the_gpt_program_steps_and_its_loss_falls():
    """The character GPT of ``python -m benchmarks --only gpt`` builds, steps and learns (its PyTorch
    twin is compared with it on the first step where torch is installed)."""
    import numpy as np

    from benchmarks import programs

    params, ids, targets = programs.gpt_setup()
    step = programs.gpt_minigrad(params, ids, targets)
    first, grads = step()
    second, _ = step()
    assert np.isfinite(first) and second < first
    assert [g.shape for g in grads] == [(4 * programs.GPT["width"], programs.GPT["width"]),
                                        (programs.GPT["vocab"], programs.GPT["width"])]
