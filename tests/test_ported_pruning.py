"""PyTorch's "Pruning Tutorial", ported (``examples/ported/pruning.py``), gives PyTorch's numbers and
prints: ``tests/data/make_ported_pruning.py`` ran the same source with the rename undone under torch
2.13, and recorded the ``torch.rand_like`` draws of ``random_unstructured``, which are given back here
to the engine's (``minigrad_ckpt.nn.utils.prune`` draws through ``rand_like`` too).  It exercises
``random_unstructured``, ``l1_unstructured`` (a count), ``ln_structured`` over an earlier mask (a
``PruningContainer``), the state dict keys, ``remove``, ``global_unstructured`` and its sparsities, a
``BasePruningMethod`` subclass, and training through the masks.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.utils.prune as prune_module

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_pruning_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run, run_program  # noqa: E402

RUNS = {"prune": ([], False), "prune_f64": (["--double"], True)}  # the generator's list


def _replay_rand_like(monkeypatch, run):
    draws = iter(REF[k] for k in sorted((k for k in REF.files if k.startswith(f"{run}|rand_like|")),
                                        key=lambda k: int(k.rsplit("|", 1)[1])))

    def rand_like(t, **kwargs):
        value = next(draws)
        assert value.shape == tuple(t.shape)
        return mg.tensor(value, dtype=t.dtype)

    monkeypatch.setattr(prune_module, "rand_like", rand_like)


@pytest.mark.parametrize("run", list(RUNS))
def test_pruning_tutorial_matches_pytorch(monkeypatch, run):
    argv, float64 = RUNS[run]
    _replay_rand_like(monkeypatch, run)
    check_run("pruning", argv, REF, run, seed=23, float64=float64)


def test_pruning_tutorial_prints_what_pytorch_prints(monkeypatch):
    _replay_rand_like(monkeypatch, "prune")
    program = load_program("pruning")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_program(program, [], 23, (), lambda model, weights: model.load_state_dict(weights, strict=False))
    assert program.log == [str(line) for line in REF["prune|log"]]
