"""PyTorch's "Hooks for autograd saved tensors" tutorial, ported
(``examples/ported/saved_tensors_hooks.py``), gives PyTorch's numbers and prints:
``tests/data/make_ported_saved_tensors_hooks.py`` ran the same source with the rename undone under
torch 2.13.  It exercises ``grad_fn._saved_self`` / ``_saved_result``, ``grad_fn._raw_saved_self
.register_hooks`` (an AttributeError before), ``saved_tensors_hooks`` (prints, ``x * 4`` / ``x / 4``,
an index into a list, a copy on the CPU), ``save_on_cpu`` in a model's ``forward``, and ``mg.save`` /
``mg.load`` of each saved value to a self-deleting file (all of them, or those of 1000 elements and
more), under which four trainings of a small conv net must agree with PyTorch's and with each other.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_saved_tensors_hooks_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS = {"hooks": ([], False), "hooks_f64": (["--double"], True)}  # the generator's list
# The engine's a * b packs a, then b; PyTorch's MulBackward0 packs other first (docs/from-pytorch.md: the
# hooks see the arrays the engine's ops save, in their order): that printed line is compared as a set.
ORDER_FREE = 6


@pytest.mark.parametrize("run", list(RUNS))
def test_saved_tensors_hooks_tutorial_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("saved_tensors_hooks", argv, REF, run, seed=17, float64=float64)
    history = REF[f"{run}|history"].reshape(4, -1)
    np.testing.assert_allclose(history, np.broadcast_to(history[0], history.shape), rtol=1e-14)  # hooks change nothing


@pytest.mark.parametrize("run", list(RUNS))
def test_saved_tensors_hooks_tutorial_prints_what_pytorch_prints(run):
    program = load_program("saved_tensors_hooks")
    argv, _ = RUNS[run]
    with contextlib.redirect_stdout(io.StringIO()):
        program.main(argv)
    want = [str(line) for line in REF[f"{run}|log"]]
    assert len(program.log) == len(want)
    for i, (got, line) in enumerate(zip(program.log, want)):
        if i == ORDER_FREE:  # the same events, every pack before every unpack
            events = [re.findall(r"(Unpacking|Packing) (\[[^]]*\])", text) for text in (got, line)]
            assert sorted(events[0]) == sorted(events[1]) and [e[0] for e in events[0]] == [e[0] for e in events[1]]
        else:
            assert got == line
