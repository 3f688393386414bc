"""``all_reduce`` with ``ReduceOp.MAX``/``MIN`` gives every rank the same bits when some ranks hold NaN or -0.0.

MPI's MAX and MIN compare with ``>``/``<``, so a NaN's fate depends on which operand it is, and
MPICH combines the two ranks' values in a different order on each rank: under ``mpiexec -n 2`` rank
0 got ``[1.0, nan]`` and rank 1 ``[nan, 2.0]`` for the same all-reduce (found by running PyTorch's
collective tests under mpiexec against torch 2.13's gloo, which answers the same on both ranks).
The same held for ``-0.0`` against ``0.0``.  Replicas reduced that way drift apart silently.  The
engine now reduces floats in their total order (``-0.0 < 0.0``) and propagates NaN as
``torch.maximum`` and ``torch.minimum`` do: an element is NaN on every rank where any rank's is NaN,
and otherwise the maximum (minimum) of the ranks' values; ``reduce``, ``reduce_scatter_tensor`` and
``reduce_scatter`` answer the same.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_distributed import launch, results  # noqa: E402


def expected(dtype: str, op: str, world: int) -> list[float]:
    rows = []
    for rank in range(world):
        row = np.arange(world + 2, dtype=dtype) * (1 + rank) - rank
        row[rank] = np.nan
        rows.append(row)
    pick = np.maximum if op == "MAX" else np.minimum  # NaN-propagating, as torch.maximum / torch.minimum
    return pick.reduce(np.stack(rows), axis=0).tolist()


@pytest.mark.parametrize("n", [2, 3])
def test_max_and_min_with_nan_are_the_same_on_every_rank_and_propagate_it(n):
    r = results(launch("nan_reductions", n=n), n=n)
    for key, first in r[0].items():
        dtype, op = key.split()
        want = [repr(v) for v in expected(dtype, op, n)]
        assert any(math.isnan(float(v)) for v in first["values"])
        for rank in range(n):
            assert r[rank][key]["all_reduce"] == first["all_reduce"], (key, rank)  # the same bits
            assert r[rank][key]["values"] == want, (key, rank)
            assert r[rank][key]["reduce_scatter"] == want[:2], (key, rank)
        assert r[n - 1][key]["reduce"] == want, key
        zero = np.float64(0.0 if op == "MAX" else -0.0).astype(dtype)  # every element met both signs
        for rank in range(n):
            assert r[rank][key]["signed_zeros"] == np.array([zero] * 3).tobytes().hex(), (key, rank)
