"""Programs of ``optim`` whose answer is an error, against torch 2.13's answers recorded by
``tests/data/make_torch_optim_refusals.py`` from ``tests/data/optim_refusal_cases.py`` (the test
never imports torch): Adam's refusals of tensor hyper-parameters its foreach kernels cannot take
and of betas that are not both floats or both tensors; a MultiplicativeLR stepped after a
parameter group was added."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from optim_refusal_cases import CASES  # noqa: E402

TORCH = json.loads((DATA / "torch_optim_refusals.json").read_text())["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_is_torchs(name):
    want = TORCH[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "error" not in want:
            assert CASES[name](mg) == want["value"]
            return
        with pytest.raises(Exception) as caught:
            CASES[name](mg)
    assert type(caught.value).__name__ == want["error"]
    if not want["message"].startswith("zip()"):  # PyTorch's words, after mg's optimizer name if any
        assert str(caught.value).endswith(want["message"])
