"""``mg.autograd.gradcheck`` and ``gradgradcheck`` give PyTorch's verdict at kinks: every element
is compared by central differences, as PyTorch compares it, so ``gradcheck(abs)`` at 0 passes
(both sides give 0, as the gradient) and ``relu`` at 0 fails (1/2 against 0).  They failed every
input at a kink (the engine's ``kinks="fail"``), so a PyTorch test asserting
``gradcheck(torch.abs, x)`` with a 0 in ``x``, or ``torch.max`` with a tie, failed here.

PyTorch's verdicts (torch 2.13, float64, default tolerances) are in
``tests/data/torch_gradcheck_kinks.json`` (``tests/data/make_torch_gradcheck_kinks.py``); the
functions in ``tests/data/gradcheck_kink_cases.py``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import GradcheckError, GradcheckKinkWarning, gradcheck
from tests.data.gradcheck_kink_cases import CASES

VERDICTS = json.loads(Path(__file__).with_name("data").joinpath("torch_gradcheck_kinks.json").read_text())["cases"]


@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_verdict_is_pytorchs(name, check):
    fn, values = CASES[name]
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradcheckKinkWarning)  # compared, not left out with a warning
        got = getattr(mg.autograd, check)(lambda t: fn(mg, t), (x,), raise_exception=False)
    assert got is VERDICTS[name][check]


def test_a_failure_at_a_kink_raises_with_the_element():
    x = mg.tensor([-1.0, 0.0, 2.0], dtype=mg.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        mg.autograd.gradcheck(mg.nn.functional.relu, (x,))
    assert info.value.input_index == (1,) and info.value.numeric == pytest.approx(0.5)


def test_the_engines_own_check_can_compare_kinks_too():
    x = mg.tensor([-1.0, 0.0, 2.0], dtype=mg.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradcheckKinkWarning)
        assert gradcheck(mg.abs, [x], kinks="compare")
    with pytest.raises(ValueError, match="'skip', 'fail' or 'compare'"):
        gradcheck(mg.abs, [x], kinks="ignore")
