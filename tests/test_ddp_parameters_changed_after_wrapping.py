"""``DistributedDataParallel`` lays its gradient buckets out for the parameters, dtypes and devices
the model has when it is wrapped.  A ``ddp.double()`` after wrapping (found porting pytorch/examples'
imagenet with a ``--double`` flag that converted the model after the DDP wrap: the run matched torch
2.13 only to float32's precision) averaged the float64 gradients in the float32 buckets -- rounded to
float32, silently, in a world of one process too -- and a parameter added after wrapping was never
averaged.  PyTorch's rule is never to change the parameters after wrapping (its own run goes wrong
silently); here the next forward with gradient sync refuses, before any collective, on every rank alike.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
from minigrad_ckpt import distributed as dist  # noqa: E402
from minigrad_ckpt.nn.parallel import DistributedDataParallel  # noqa: E402

X = np.random.default_rng(0).standard_normal((4, 3))


@pytest.fixture
def world_of_one():
    dist.init_process_group()
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_converting_the_dtype_after_wrapping_is_refused_not_rounded(world_of_one):
    ddp = DistributedDataParallel(mg.nn.Linear(3, 1))
    ddp.double()
    with pytest.raises(RuntimeError, match="'weight' is float64 .* float32 .* before wrapping"):
        ddp(mg.tensor(X))


def test_converting_before_wrapping_averages_in_float64(world_of_one):
    lin = mg.nn.Linear(3, 1).double()
    DistributedDataParallel(lin)(mg.tensor(X)).sum().backward()
    assert lin.weight.grad.dtype == mg.float64
    np.testing.assert_array_equal(lin.weight.grad.numpy(), X.sum(0, keepdims=True))  # bitwise: no float32 trip


def test_a_parameter_added_after_wrapping_is_refused(world_of_one):
    model = mg.nn.Sequential(mg.nn.Linear(3, 2))
    ddp = DistributedDataParallel(model)
    model.append(mg.nn.Linear(2, 1))
    with pytest.raises(RuntimeError, match="'1.weight' was added"):
        ddp(mg.tensor(X, dtype=mg.float32))


def test_freezing_after_wrapping_and_evaluating_after_converting_still_run(world_of_one):
    model = mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.Linear(2, 1))
    ddp = DistributedDataParallel(model)
    model[0].weight.requires_grad_(False)  # a frozen parameter takes part as zeros
    ddp(mg.tensor(X, dtype=mg.float32)).sum().backward()
    assert not model[0].weight.grad.numpy().any() and model[1].weight.grad.numpy().any()
    ddp.double()
    with mg.no_grad():  # nothing to average: no refusal
        assert ddp(mg.tensor(X)).dtype == mg.float64


TWO_RANKS = """
import sys
sys.path.insert(0, {root!r})
import minigrad_ckpt as mg
import minigrad_ckpt.distributed as dist

dist.init_process_group()
ddp = mg.nn.parallel.DistributedDataParallel(mg.nn.Linear(3, 2))
ddp(mg.ones(4, 3)).sum().backward()        # (a step as wrapped: averaged)
ddp.double()
try:
    ddp(mg.ones(4, 3, dtype=mg.float64)).sum().backward()
except RuntimeError as e:
    # One file per rank: the ranks' prints share one pipe and may interleave mid-line.
    with open({out!r} + str(dist.get_rank()), "w") as f:
        f.write("REFUSED " + str("when the model was wrapped" in str(e)))
dist.destroy_process_group()
"""


def test_on_two_ranks_each_refuses_before_any_collective(tmp_path):
    """Raised before the forward on every rank alike: no rank waits in an all-reduce the other never
    starts (the run ends within its timeout, both ranks refusing)."""
    import sys
    from pathlib import Path

    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    sys.path.insert(0, str(Path(__file__).parent))
    from test_distributed import mpiexec, run

    script = tmp_path / "two_ranks.py"
    out = str(tmp_path / "rank")
    script.write_text(TWO_RANKS.format(root=str(Path(__file__).resolve().parents[1]), out=out))
    done = run([mpiexec(), "-launcher", "fork", "-n", "2", sys.executable, str(script)], timeout=120)
    assert done.returncode == 0, done.stderr
    assert [Path(out + str(r)).read_text() for r in (0, 1)] == ["REFUSED True"] * 2, done.stdout
