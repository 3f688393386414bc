"""PyTorch's function names for what the package has under NumPy's: ``mg.mul`` is
``mg.multiply``, ``mg.acos`` is ``mg.arccos``, ... -- and ``t``, ``numel``, ``concat``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad_ckpt as mg

SAME = {"mul": "multiply", "sub": "subtract", "div": "divide", "true_divide": "divide", "neg": "negative",
        "pow": "power", "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
        "ge": "greater_equal", "acos": "arccos", "asin": "arcsin", "atan": "arctan", "atan2": "arctan2",
        "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh", "absolute": "abs"}


@pytest.mark.parametrize("torch_name", sorted(SAME))
def test_a_pytorch_name_is_the_numpy_named_function(torch_name):
    # (mg.sub reads PyTorch's deprecated sub(x, alpha, y), mg.equal warns its two meanings: each wraps the
    # one function both names reach)
    assert inspect.unwrap(getattr(mg, torch_name)) is inspect.unwrap(getattr(mg, SAME[torch_name]))
    assert torch_name in mg.__all__


def test_div_sub_and_pow_take_pytorchs_keywords_and_differentiate():
    a = mg.tensor([-3.0, 5.0], requires_grad=True)
    assert mg.div(a, 2.0, rounding_mode="floor").numpy().tolist() == [-2.0, 2.0]
    assert mg.div(a, 2.0, rounding_mode="trunc").numpy().tolist() == [-1.0, 2.0]
    assert mg.sub(a, mg.tensor([1.0, 1.0]), alpha=2).numpy().tolist() == [-5.0, 3.0]
    (mg.pow(a, 2.0) + mg.mul(a, 3.0)).sum().backward()
    assert a.grad.numpy().tolist() == [-3.0, 13.0]


def test_t_numel_and_concat():
    m = mg.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(mg.t(m).numpy(), np.arange(6.0).reshape(2, 3).T)
    v = mg.tensor([1.0, 2.0])
    assert mg.t(v) is v and mg.t(mg.tensor(3.0)).shape == ()
    with pytest.raises(ValueError, match="<= 2 dimensions"):
        mg.t(mg.ones(2, 2, 2))
    assert mg.numel(m) == 6 and mg.numel(mg.tensor(1.0)) == 1 and mg.numel(mg.ones(0, 3)) == 0
    assert mg.concat([m, m], dim=1).shape == (2, 6) and mg.concat([m, m]).shape == (4, 3)
