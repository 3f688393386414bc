"""``mg.autograd.grad`` through a ``DistributedDataParallel`` output under ``mpiexec -n 2``.

It raised ``RuntimeError: queue_callback() can only be called while backward() runs``: the hook DDP
puts on its output to start the gradient averaging runs under ``autograd.grad`` too, which is no
``backward()`` (found by translating distributed_test.py's DDP tests and running them against torch
2.13 with gloo, where ``autograd.grad`` returns the rank's own gradients).  Now it returns this rank's
gradients, bitwise those of the plain module, and leaves ``.grad`` alone; a ``backward()`` through
the same forward afterwards still averages.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_distributed import launch, results  # noqa: E402


def test_autograd_grad_through_ddp_is_the_ranks_own_and_backward_still_averages():
    r = results(launch("ddp_autograd_grad"))
    for rank in (0, 1):
        got = r[rank]
        assert got["grad_is_local"] and got["grads_untouched"]
        assert got["backward_err"] <= 1e-12
    assert r[0]["retained_grad"] != r[1]["retained_grad"]  # each rank's own
