"""The creation and sampling functions refuse what PyTorch's refuse, with PyTorch's exception types.

PyTorch raises ``RuntimeError`` for an argument value its kernel cannot take (an ``arange`` with a
zero step or an infinite bound, a negative size, a probability outside [0, 1]) and
``NotImplementedError`` (a ``RuntimeError`` too) for a dtype it has no kernel for (``randn`` of
int64).  The engine raised NumPy's ``ValueError``/``TypeError`` there, which PyTorch code's
``except RuntimeError`` misses; each refusal is now both.  ``bernoulli`` of a probability outside
[0, 1] answered silently (always 1 above 1, always 0 below 0).
"""

import math

import pytest

import minigrad_ckpt as mg

VALUE_REFUSALS = {  # PyTorch: RuntimeError; the engine before: ValueError (or nothing)
    "arange zero step": lambda: mg.arange(0, 10, 0),
    "arange zero float step": lambda: mg.arange(0.0, 1.0, 0.0),
    "arange NaN step": lambda: mg.arange(0, 1, math.nan),
    "arange step truncated to 0": lambda: mg.arange(0, 3, 0.5, dtype=mg.int64),
    "arange infinite end": lambda: mg.arange(0, math.inf),
    "arange infinite start": lambda: mg.arange(-math.inf, 0),
    "arange NaN end": lambda: mg.arange(0, math.nan),
    "arange too many values": lambda: mg.arange(0, 1e30),
    "eye negative n": lambda: mg.eye(-1),
    "eye negative m": lambda: mg.eye(2, -1),
    "randperm negative": lambda: mg.randperm(-1),
    "bernoulli p above 1": lambda: mg.bernoulli(mg.tensor([1.5])),
    "bernoulli p below 0": lambda: mg.bernoulli(mg.tensor([0.5, -0.5])),
    "bernoulli NaN p": lambda: mg.bernoulli(mg.tensor([math.nan])),
    "bernoulli number p": lambda: mg.bernoulli(mg.zeros(2), 1.5),
}

DTYPE_REFUSALS = {  # PyTorch: NotImplementedError; the engine before: TypeError
    "arange of bools": lambda: mg.arange(3, dtype=mg.bool),
    "rand of int64": lambda: mg.rand(2, dtype=mg.int64),
    "randn of int64": lambda: mg.randn(2, dtype=mg.int64),
    "normal of an int64 mean": lambda: mg.normal(mg.zeros(2, dtype=mg.int64), 1.0),
    "bernoulli of int64": lambda: mg.bernoulli(mg.tensor([0, 1])),
}


@pytest.mark.parametrize("name", sorted(VALUE_REFUSALS))
def test_value_refusals_are_runtime_and_value_errors(name):
    with pytest.raises(RuntimeError) as caught:
        VALUE_REFUSALS[name]()
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("name", sorted(DTYPE_REFUSALS))
def test_dtype_refusals_are_not_implemented_and_type_errors(name):
    with pytest.raises(NotImplementedError) as caught:
        DTYPE_REFUSALS[name]()
    assert isinstance(caught.value, (TypeError, RuntimeError))


def test_the_answers_beside_them_are_unchanged():
    assert mg.arange(0, 10, 3).tolist() == [0, 3, 6, 9]
    assert mg.arange(0, 3, 1.5, dtype=mg.int64).tolist() == [0, 1, 2]  # the step read as the int 1
    assert mg.eye(0).shape == (0, 0) and mg.eye(2, 0).shape == (2, 0)
    assert mg.randperm(0).shape == (0,)
    assert mg.bernoulli(mg.tensor([0.0, 1.0, 1.0])).tolist() == [0.0, 1.0, 1.0]
    assert mg.bernoulli(mg.zeros(3), 1.0).tolist() == [1.0, 1.0, 1.0]
    assert mg.bernoulli(mg.zeros(0)).shape == (0,)


@pytest.mark.parametrize("n, dtype", [(257, mg.uint8), (129, mg.int8), (2050, mg.float16)])
def test_randperm_refuses_a_dtype_that_cannot_hold_every_value(n, dtype):
    # the cast wrapped or rounded 0..n-1 into fewer distinct values: randperm(300, dtype=int8) held 256
    with pytest.raises(RuntimeError) as caught:
        mg.randperm(n, dtype=dtype)
    assert isinstance(caught.value, ValueError)


def test_randperm_at_the_edge_of_its_dtype_is_a_permutation():
    for n, dtype in [(256, mg.uint8), (128, mg.int8), (2049, mg.float16)]:
        assert sorted(mg.randperm(n, dtype=dtype).tolist()) == list(range(n))
    with pytest.raises(NotImplementedError):
        mg.randperm(3, dtype=mg.bool)
