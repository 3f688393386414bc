"""Spellings of PyTorch's "Writing Distributed Applications" tutorial (``intermediate_source/dist_tuto.rst``)
that the engine refused: its MPI section starts each rank with ``init_process_group("mpi", rank=0,
world_size=0)`` under ``mpirun`` -- PyTorch 2.13 ignores both with a ``UserWarning`` ("For MPI backend,
world_size (0) and rank (0) are ignored since they are assigned by the MPI runtime."), the engine raised
``ValueError`` -- and it reduces with the deprecated ``op=dist.reduce_op.SUM`` (PyTorch: the member, with
a ``FutureWarning``; the engine: ``AttributeError``).  The ported tutorial (point-to-point, collectives,
the ring all-reduce and its synchronous SGD) otherwise printed what torch prints, under ``mpiexec -n 2``.

Run in a world of one process (no ``mpiexec``), in a subprocess: the group is process-wide state.
"""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_distributed import run  # noqa: E402

SCRIPT = r"""
import json, warnings
import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist

got = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dist.init_process_group("mpi", rank=0, world_size=0)
got["init"] = [f"{w.category.__name__}: {w.message}" for w in caught]
got["world"] = [dist.get_rank(), dist.get_world_size()]
t = mg.ones(2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    op = dist.reduce_op.SUM
    dist.all_reduce(t, op=op)
got["reduce_op"] = [op is dist.ReduceOp.SUM, t.tolist(), [w.category.__name__ for w in caught]]
got["members"] = sorted(dir(dist.reduce_op))
try:
    dist.reduce_op.NOPE
except AttributeError as e:
    got["missing"] = str(e)
dist.destroy_process_group()
try:
    dist.init_process_group("gloo", world_size=3)  # only "mpi" ignores them, as PyTorch's
except ValueError as e:
    got["gloo"] = "ValueError"
print("RESULT", json.dumps(got))
"""


def test_the_tutorials_mpi_spellings_run_as_pytorchs_do():
    proc = run([sys.executable, "-c", SCRIPT])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.split("RESULT ", 1)[1])
    assert got["init"] == ["UserWarning: For MPI backend, world_size (0) and rank (0) are ignored since they "
                           "are assigned by the MPI runtime."]
    assert got["world"] == [0, 1]
    assert got["reduce_op"] == [True, [1.0, 1.0], ["FutureWarning"]]
    assert {"SUM", "PRODUCT", "MAX", "MIN", "AVG"} <= set(got["members"])
    assert "NOPE" in got["missing"]
    assert got["gloo"] == "ValueError"
