"""Whole training programs drawn at random (``tests/training_programs.py``: layers, a loss, an optimizer
with random options and groups, schedulers and their chains, clipping, accumulation, GradScaler,
``add_param_group`` and a state-dict round trip mid-run), a fixed corpus of seeds:

* against torch 2.13's final parameters, optimizer state and lrs in float64, recorded offline by
  the fuzzer's probe (``tests/data/torch_training_programs.json``; a parameter whose gradient is
  round-off -- a bias before a norm layer -- is left out: normalising optimizers step it by the
  noise's sign);
* with a random set of the model's steps inside ``mg.checkpoint.checkpoint``: bitwise the plain run;
* snapshotted through an ``Executor`` at a random step and resumed into objects built from other
  weights: bitwise the run that never stopped.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import training_programs as tp  # noqa: E402

TORCH = json.loads((Path(__file__).resolve().parent / "data" / "torch_training_programs.json").read_text())["programs"]
# seeds whose programs add a parameter group under a scheduler whose formula needs each group's base lr: they
# raise (as PyTorch does), tested in test_lr_scheduler_one_rate_per_group.py
RAISING = {22, 27, 39, 45, 54}
CORPUS = [s for s in range(60) if s not in RAISING]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # schedulers stepped after a GradScaler's skipped step warn, as PyTorch's
        yield


@pytest.mark.parametrize("seed", sorted(TORCH, key=int))
def test_float64_program_ends_where_torchs_does(seed):
    sp = tp.draw(int(seed))
    sp["dtype"] = "float64"
    mg.manual_seed(int(seed))
    weights = tp.weights_of(tp.build(mg, sp)["net"])
    records, _ = tp.run(mg, sp, weights, tp.to_lib(mg, sp, tp.make_data(sp)))
    rec, last = records[-1]
    want = TORCH[seed]
    assert rec["loss"] == pytest.approx(want["loss"], rel=1e-10)
    for key, value in want["final"].items():
        got = np.asarray(last[key], dtype=np.float64).ravel()
        scale = max(np.abs(value).max(initial=0.0), 1e-6)
        assert np.abs(got - value).max(initial=0.0) <= 1e-9 * scale, key


@pytest.mark.parametrize("seed", CORPUS)
def test_checkpointed_program_trains_bitwise_as_the_plain_one(seed):
    plain, checkpointed = tp.checkpointed_and_plain(mg, seed)
    assert tp.first_difference(plain, checkpointed) is None


@pytest.mark.msgpack
@pytest.mark.parametrize("seed", CORPUS)
def test_program_resumed_from_a_snapshot_is_bitwise_the_unbroken_one(seed):
    unbroken, resumed = tp.resumed_and_unbroken(mg, seed)
    assert tp.first_difference(unbroken, resumed) is None


@pytest.mark.parametrize("seed", sorted(RAISING))
def test_the_raising_programs_raise_for_the_added_group(seed):
    with pytest.raises((ValueError, KeyError), match="parameter groups"):
        tp.checkpointed_and_plain(mg, seed)
