"""A collective's argument errors are PyTorch's exception classes, so a ported script's ``except`` catches them.

PyTorch 2.13 with gloo (checked offline, one and two processes) refuses a root rank outside the group with
``RuntimeError: ProcessGroupGloo::broadcast: invalid root rank: 1`` (``broadcast``, ``reduce``,
``gather``, ``scatter``, ``broadcast_object_list``), an ``op`` that is no ``ReduceOp`` with its binding's
``TypeError``, ``all_gather``'s ``tensor_list`` that is no list with ``TypeError``, and split sizes of
``all_to_all_single`` that do not sum to dim 0 with ``RuntimeError: Split sizes doesn't match total dim
0 size``.  The engine raised ``ValueError`` (or ``RuntimeError`` for the non-list) for all of them.

Run in a world of one process (``init_process_group`` without ``mpiexec``), in a subprocess: the group is
process-wide state.
"""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from test_distributed import run  # noqa: E402

SCRIPT = r"""
import json
import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist

dist.init_process_group("gloo")
t = mg.zeros(2)
cases = {
    "broadcast src=1": lambda: dist.broadcast(t, 1),
    "broadcast src=-1": lambda: dist.broadcast(t, -1),
    "reduce dst=1": lambda: dist.reduce(t, 1),
    "gather dst=1": lambda: dist.gather(t, None, dst=1),
    "scatter src=1": lambda: dist.scatter(t, None, src=1),
    "broadcast_object_list src=3": lambda: dist.broadcast_object_list([1], src=3),
    "all_reduce op=17": lambda: dist.all_reduce(t, op=17),
    "all_reduce op=None": lambda: dist.all_reduce(t, op=None),
    "reduce op='nope'": lambda: dist.reduce(t, 0, op="nope"),
    "all_gather tensor_list=Tensor": lambda: dist.all_gather(mg.zeros(2), t),
    "gather gather_list=Tensor": lambda: dist.gather(t, mg.zeros(2), dst=0),
    "all_to_all_single sizes": lambda: dist.all_to_all_single(mg.zeros(2), t, [3], [2]),
    "scatter scatter_list=Tensor": lambda: dist.scatter(t, mg.zeros(1, 2), src=0),
    "all_gather short list": lambda: dist.all_gather([], t),
}
got = {}
for name, call in cases.items():
    try:
        call()
        got[name] = "no error"
    except Exception as e:
        got[name] = f"{type(e).__name__}: {e}"
print("RESULT", json.dumps(got))
"""


def test_argument_errors_of_the_collectives_are_pytorchs_exception_classes():
    proc = run([sys.executable, "-c", SCRIPT])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.split("RESULT ", 1)[1])
    for name in ("broadcast src=1", "reduce dst=1", "gather dst=1", "scatter src=1", "broadcast_object_list src=3"):
        root = name.split("=")[1]
        assert got[name].startswith(f"RuntimeError: invalid root rank: {root} "), (name, got[name])
    assert got["broadcast src=-1"].startswith("RuntimeError: invalid root rank: -1 ")
    for name in ("all_reduce op=17", "all_reduce op=None", "reduce op='nope'"):
        assert got[name].startswith("TypeError: "), (name, got[name])
    assert got["all_gather tensor_list=Tensor"].startswith("TypeError: all_gather: tensor_list must be a list")
    # PyTorch's gather/scatter ask a tensor list for its truth value: RuntimeError, here too
    assert got["gather gather_list=Tensor"].startswith("AmbiguousTruthValue: ")
    assert got["scatter scatter_list=Tensor"].startswith("AmbiguousTruthValue: ")
    assert got["all_to_all_single sizes"].startswith("RuntimeError: all_to_all_single: output_split_sizes")
    assert got["all_gather short list"].startswith("RuntimeError: all_gather: invalid tensor_list")  # unchanged
