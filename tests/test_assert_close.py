"""``mg.testing.assert_close`` is PyTorch's ``torch.testing.assert_close``: the same pairs, default
tolerances by dtype and messages, checked against torch 2.13's answers to the same cases
(``tests/data/torch_assert_close.json``, written offline by ``tests/data/make_torch_assert_close.py``),
and at the seams: the strict device, tensors that require grad, a model's state_dict."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import (
    assert_close,
    strict,  # noqa: F401 (registers the "strict" stand-in device)
)

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from assert_close_cases import CASES  # noqa: E402

# np.matrix, the one ndarray subclass NumPy builds in, is deprecated for linear algebra (not for this)
pytestmark = pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
TORCH = json.loads((DATA / "torch_assert_close.json").read_text())["answers"]
ENV = dict(T=mg.tensor, Z=mg.zeros, E=mg.eye, F64=mg.float64, F16=mg.float16, I8=mg.int8, np=np)


@pytest.mark.parametrize("name, actual, expected, keywords", CASES, ids=[c[0] for c in CASES])
def test_the_answer_and_message_are_pytorchs(name, actual, expected, keywords):
    try:
        assert_close(eval(actual, ENV), eval(expected, ENV), **keywords)
        got = None
    except (AssertionError, TypeError, ValueError) as exc:
        got = [type(exc).__name__, str(exc).replace(f"<class '{mg.Tensor.__module__}.Tensor'>", "<class 'Tensor'>")]
    assert got == TORCH[name]


def test_a_failure_inside_a_container_names_its_path():
    with pytest.raises(AssertionError, match=r"The failure occurred for item \[0\]\['a'\]\[1\]$"):
        assert_close([{"a": [1.0, 2.0]}], [{"a": [1.0, 2.5]}])


def test_a_message_can_be_replaced_or_rewritten():
    with pytest.raises(AssertionError, match="^weights moved: Tensor-likes are not close!"):
        assert_close(mg.tensor([1.0]), mg.tensor([2.0]), msg=lambda m: "weights moved: " + m)


def test_tensors_on_the_strict_device_and_ones_that_require_grad_compare_by_value():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    on_strict = mg.tensor([1.0, 2.0], device="strict")
    assert_close(x * 1, mg.tensor([1.0, 2.0]))
    assert_close(on_strict, mg.tensor([1.0, 2.0], device="strict"))
    with pytest.raises(AssertionError, match="'device' do not match: cpu != strict:0"):
        assert_close(x.detach(), on_strict)
    assert_close(x.detach(), on_strict, check_device=False)


def test_two_models_state_dicts_after_the_same_steps_are_close_and_a_step_more_is_not():
    def trained(steps):
        mg.manual_seed(0)
        model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1))
        opt = mg.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            model(mg.ones(2, 3)).sum().backward()
            opt.step()
        return model.state_dict()

    assert_close(trained(2), trained(2), rtol=0, atol=0)
    with pytest.raises(AssertionError, match=r"(?s)not close!.*The failure occurred for item \['0.weight'\]"):
        assert_close(trained(3), trained(2))


def test_stride_is_checked_only_when_asked():
    x = mg.arange(6.0).reshape(2, 3)
    assert_close(x.t().contiguous(), x.t())
    with pytest.raises(AssertionError, match=r"'stride\(\)' do not match"):
        assert_close(x.t().contiguous(), x.t(), check_stride=True)


def test_allow_subclasses_false_refuses_a_parameter_against_a_tensor_as_pytorch():
    # torch 2.13: TypeError: No comparison pair was able to handle inputs of type
    # <class 'torch.nn.parameter.Parameter'> and <class 'torch.Tensor'>. (the engine compared them)
    p, t = mg.nn.Parameter(mg.tensor([1.0])), mg.tensor([1.0])
    assert_close(p, t)
    with pytest.raises(TypeError, match=r"No comparison pair was able to handle inputs of type <class '.*Parameter'> "
                                        r"and <class '.*Tensor'>\."):
        assert_close(p, t, allow_subclasses=False)
    assert_close(t, mg.tensor([1.0]), allow_subclasses=False)


def test_the_deprecated_assert_allclose_is_pytorchs():
    # torch 2.13's torch.testing.assert_allclose on the same calls (an AttributeError here before)
    from minigrad_ckpt.testing import assert_allclose

    with pytest.warns(FutureWarning, match=r"`torch.testing.assert_allclose\(\)` is deprecated since 1.12"):
        assert_allclose(mg.tensor([1.0]), mg.tensor([1.00005]))  # its float32 rtol is 1e-4 (assert_close's 1.3e-6)
    with pytest.warns(FutureWarning):
        assert_allclose(mg.tensor([1, 2]), mg.tensor([1.0, 2.0]))  # dtypes may differ
        assert_allclose([1.0, 2.0], [1.0, 2.0001])  # lists become tensors
        assert_allclose(mg.tensor([float("nan")]), mg.tensor([float("nan")]))  # NaN equals NaN by default
        assert_allclose(mg.tensor([1.0], dtype=mg.float64), mg.tensor([1.000001], dtype=mg.float64))
        with pytest.raises(AssertionError, match=r"^Tensor-likes are not close!\n\nMismatched elements: 1 / 1 "
                                                 r"\(100\.0%\)\nGreatest absolute difference: 0\.5 at index \(0,\) "
                                                 r"\(up to 1e-05 allowed\)\nGreatest relative difference: "
                                                 r"0\.3333333432674408 at index \(0,\) \(up to 0\.0001 allowed\)$"):
            assert_allclose(mg.tensor([1.0]), mg.tensor([1.5]))
        with pytest.raises(AssertionError, match="^boom$"):
            assert_allclose(mg.tensor([1.0]), mg.tensor([2.0]), msg="boom")
        with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted"):
            assert_allclose(mg.tensor([1.0]), mg.tensor([2.0]), rtol=0.1)


@pytest.mark.parametrize("number", [float("nan"), 0.5, 1, -0.0, 2**70, np.float64(2.0)])
def test_a_python_bool_is_not_compared_with_a_number(number):
    # bool(nan) and bool(0.5) are True: read as bools they "matched" True, a silent pass with
    # check_dtype=False. torch 2.13 refuses the pair too, with an internal RuntimeError ("Originating a
    # NumberPair() ... resulted in the unexpected exception above"); here it is the TypeError of a pair
    # no comparison handles, as for a NumPy bool
    for actual, expected in ((number, True), (True, number), ([number], [bool(number)])):
        with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
            assert_close(actual, expected, check_dtype=False)
