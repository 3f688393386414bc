"""docs/from-pytorch.md, "PyTorch's names for NumPy's functions": PyTorch's name for a NumPy
function is that function (``mg.mul is mg.multiply``), and ``mg.concat`` is ``mg.cat`` -- so an
alias takes every argument its twin takes (``torch.concat`` takes ``out=``, as ``torch.cat``)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad_ckpt as mg

ALIASES = [("mul", "multiply"), ("sub", "subtract"), ("div", "divide"), ("true_divide", "divide"),
           ("neg", "negative"), ("pow", "power"), ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
           ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"), ("acos", "arccos"),
           ("asin", "arcsin"), ("atan", "arctan"), ("atan2", "arctan2"), ("acosh", "arccosh"),
           ("asinh", "arcsinh"), ("atanh", "arctanh"), ("absolute", "abs"), ("concat", "cat")]


#: Aliases that read more than their twin: mg.sub takes PyTorch's deprecated sub(x, alpha, y) (subtract
#: does not, as torch.subtract), and mg.equal warns its two meanings (mg.eq has PyTorch's one): the same
#: function underneath, wrapped (functools.wraps keeps the way to it)
WRAPPED = {("sub", "subtract"), ("eq", "equal")}


@pytest.mark.parametrize("alias, name", ALIASES)
def test_an_alias_is_its_twin(alias, name):
    if (alias, name) in WRAPPED:
        assert inspect.unwrap(getattr(mg, alias)) is inspect.unwrap(getattr(mg, name))
        assert getattr(mg, alias) is not getattr(mg, name)
    else:
        assert getattr(mg, alias) is getattr(mg, name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_concat_takes_what_cat_takes(dtype):
    a = mg.tensor(np.arange(4.0).reshape(2, 2), dtype=dtype, requires_grad=True)
    out = mg.empty(4, 2, dtype=dtype)
    with mg.no_grad():
        assert mg.concat([a, a], dim=0, out=out) is out
    assert out.numpy().tolist() == [[0, 1], [2, 3], [0, 1], [2, 3]]
    joined = mg.concat((a, a), axis=1)
    assert joined.shape == (2, 4) and joined.dtype == a.dtype
    joined.sum().backward()
    assert a.grad.numpy().tolist() == [[2, 2], [2, 2]]
