"""std/var (and std_mean/var_mean) under PyTorch's meaning warn, as PyTorch's do, where they divide by
``N - correction <= 0``: the variance of one sample (a batch of 1), or a correction as large as the
slice.  The engine answered the same inf/NaN silently.  Found running PyTorch's test_reductions.py
(test_warn_invalid_degrees_of_freedom) against the engine; the words are torch 2.13's.
"""

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

WORDS = ("(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
         "(input numel divided by output numel).")


def _said(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in seen if "degrees of freedom" in str(w.message)]


T = mg.tensor(np.arange(200.0).reshape(10, 20))


@pytest.mark.parametrize("name, call", [
    ("std", lambda: mg.std(T, dim=-1, correction=20)),
    ("var", lambda: mg.var(T, dim=-1, correction=20)),
    ("var_mean", lambda: mg.var_mean(T, dim=-1, correction=20)),
    ("std_mean", lambda: mg.std_mean(T, dim=-1, correction=20)),
    ("var", lambda: T.var(dim=-1, correction=21)),
    ("std", lambda: T.std(1, correction=25.5)),
    ("var", lambda: mg.tensor([1.0]).var()),                # one sample, Bessel's correction
    ("std", lambda: mg.tensor(2.0).std(0)),                 # a 0-d tensor's one element
    ("var", lambda: mg.zeros(2, 0).var(0)),                 # an empty output: N counts as 0
    ("var", lambda: mg.zeros(0, 3).var(0, unbiased=False)),  # empty slices: 0 - 0 <= 0
    ("std_mean", lambda: mg.std_mean(mg.ones(1, 4), 0)),
])
def test_no_degrees_of_freedom_is_said_once_in_the_functions_name(name, call):
    _, said = _said(call)
    assert said == [name + WORDS]


@pytest.mark.parametrize("call", [
    lambda: mg.std(T, dim=-1, correction=19),
    lambda: T.var(),
    lambda: T.var(correction=-100),
    lambda: mg.var_mean(T, 0),
    lambda: mg.tensor([1.0, 2.0]).std(),
    lambda: mg.var(mg.ones(1)),  # NumPy's meaning (ddof=0) divides by N
])
def test_enough_degrees_of_freedom_say_nothing(call):
    _, said = _said(call)
    assert said == []


def test_the_answer_is_unchanged():
    (v, m), said = _said(lambda: mg.var_mean(mg.tensor([[1.0, 3.0]]), 0))
    assert np.isnan(v.numpy()).all() and m.tolist() == [1.0, 3.0] and len(said) == 1
    s, _ = _said(lambda: mg.tensor([1.0, 2.0]).std(correction=2))
    assert s.item() == float("inf")
