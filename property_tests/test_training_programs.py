"""Random whole training programs (``tests/training_programs.py``), the oracles that need no reference:
a random set of the model's steps inside ``mg.checkpoint.checkpoint`` trains bitwise as the plain
model; a run snapshotted through an ``Executor`` at a random step and resumed into objects built
from other weights is bitwise the run that never stopped.  A program that adds a parameter group
under a scheduler whose formula needs each group's base lr raises (as PyTorch's does) and is skipped."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import training_programs as tp  # noqa: E402

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


def _or_skip(oracle, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return oracle(mg, seed)
        except (ValueError, KeyError) as e:
            assume("parameter groups" not in str(e))
            raise


@given(SEEDS)
def test_checkpointed_program_trains_bitwise_as_the_plain_one(seed):
    plain, checkpointed = _or_skip(tp.checkpointed_and_plain, seed)
    assert tp.first_difference(plain, checkpointed) is None


@pytest.mark.msgpack
@given(SEEDS)
def test_program_resumed_from_a_snapshot_is_bitwise_the_unbroken_one(seed):
    unbroken, resumed = _or_skip(tp.resumed_and_unbroken, seed)
    assert tp.first_difference(unbroken, resumed) is None
