"""PyTorch's "Extending torch.autograd" notes, its "Extending torch.func with autograd.Function" notes and the
"Double Backward with Custom Functions" tutorial, ported (``examples/ported/extending_autograd.py``), give
PyTorch's numbers and prints: ``tests/data/make_ported_extending_autograd.py`` ran the same source with the
rename undone under torch 2.13.  It exercises ``autograd.Function`` with ``forward``/``setup_context`` apart
and together, ``needs_input_grad``, a non-tensor argument, intermediates returned as outputs for double
backward, intermediates kept on ``ctx`` (``gradgradcheck`` fails, as it should), a backward that is itself a
Function, ``mark_dirty``, ``set_materialize_grads``, ``once_differentiable``, ``mark_non_differentiable``,
NumPy inside ``forward``, ``vmap`` staticmethods, ``generate_vmap_rule``, ``save_for_forward`` with ``jvp``,
under ``mg.func.grad``, ``vmap``, ``jvp``, ``jacrev`` and forward AD, and a network of the notes' ``Linear``.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_extending_autograd_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS = {"extending": ([], False), "extending_f64": (["--double"], True)}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_extending_autograd_matches_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("extending_autograd", argv, REF, run, seed=41, float64=float64)


@pytest.mark.parametrize("run", list(RUNS))
def test_extending_autograd_prints_what_pytorch_prints(run):
    program = load_program("extending_autograd")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program.main(RUNS[run][0])
    assert program.log == [str(line) for line in REF[f"{run}|log"]]
