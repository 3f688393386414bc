"""PyTorch's OpInfo error inputs (``torch.testing._internal.common_methods_invocations``) that the
engine refused with another exception class than PyTorch's, each pasted here as a literal: the
input, the arguments, PyTorch's class and the pattern its test matches the message against.

The engine raised NumPy's class (``ValueError``/``TypeError``) where PyTorch raises
``RuntimeError``: an ``except RuntimeError`` written for PyTorch did not catch it.  Each refusal
now raises a class that is both (PyTorch's and the one raised before), in PyTorch's words.  Found
by running every OpInfo's error inputs against the engine (torch 2.13).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

AT_LEAST = "torch.gradient expected each dimension size to be at least"
ROWS = np.arange(20.0, dtype=np.float32).reshape(5, 4) / 7


def _t(values, dtype=mg.float32):
    return mg.tensor(np.asarray(values), dtype=dtype)


CASES = {
    "cov of 3 dims": (lambda: mg.cov(mg.zeros(5, 5, 5)), RuntimeError,
                      "expected input to have two or fewer dimensions"),
    "cov, float fweights": (lambda: mg.cov(_t([1.0, 2, 3, 4, 5]), fweights=_t([1.0, 1, 1, 1, 1])), RuntimeError,
                            "expected fweights to have integral dtype"),
    "cov, negative fweights": (lambda: mg.cov(_t([1.0, 2, 3, 4, 5]), fweights=_t([1, -1, 1, 1, 1], mg.int64)),
                               RuntimeError, "fweights cannot be negative"),
    "cov, negative aweights": (lambda: mg.cov(_t([1.0, 2, 3, 4, 5]), aweights=_t([1.0, -1, 1, 1, 1])),
                               RuntimeError, "aweights cannot be negative"),
    "gradient, one spacing for two dims": (
        lambda: mg.gradient(mg.ones(3, 3), spacing=[0.1], dim=[1, 0], edge_order=1), RuntimeError,
        "torch.gradient expected spacing to be unspecified, a scalar "),
    "gradient, edge_order 3": (lambda: mg.gradient(mg.ones(3, 3), edge_order=3), RuntimeError,
                               r"torch.gradient only supports edge_order=1 and edge_order=2."),
    "gradient, a dim of 1 at edge_order 1": (lambda: mg.gradient(_t(np.ones((3, 1)), mg.int64), edge_order=1),
                                             RuntimeError, AT_LEAST),
    "gradient, a dim of 2 at edge_order 2": (lambda: mg.gradient(_t(np.ones((2, 2)), mg.int64), edge_order=2),
                                             RuntimeError, AT_LEAST),
    "multi_margin_loss, a 2-D float target": (
        lambda: F.multi_margin_loss(_t(ROWS), _t(ROWS)), RuntimeError,
        r"target tensor should be 1-D with size equal to.*Expected target size \[5\].*but got \[5, 4\]"),
    "multi_margin_loss, float targets": (lambda: F.multi_margin_loss(_t(ROWS), _t([0.0, 1, 2, 3, 0])), RuntimeError,
                                         "expected scalar type Long but found Float"),
    "multi_margin_loss, float targets and a weight of 5 for 4 classes": (
        lambda: F.multi_margin_loss(_t(ROWS), _t([0.0, 1, 2, 3, 0]), weight=mg.ones(5)), RuntimeError,
        r"inconsistent weight size, expected 4 but got \[5\]"),
    "multilabel_margin_loss, a float target of 4": (
        lambda: F.multilabel_margin_loss(_t(ROWS), _t([0.0, 1, 2, 3])), RuntimeError, ""),
    "multilabel_margin_loss, a 0-d float target": (
        lambda: F.multilabel_margin_loss(_t(ROWS), _t(0.0)), RuntimeError, ""),
    "hsplit at 'abc'": (lambda: mg.hsplit(mg.ones(5, 5, 5), "abc"), TypeError, ""),
    "vsplit at 'abc'": (lambda: mg.ones(5, 5, 5).vsplit("abc"), TypeError, ""),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_engine_refuses_with_pytorchs_class(case):
    call, error, pattern = CASES[case]
    with pytest.raises(error, match=pattern):
        call()


def test_the_classes_are_still_the_ones_raised_before():
    """An ``except`` written for the engine's earlier (NumPy's) class still catches each."""
    for call, before in ((lambda: mg.cov(mg.zeros(2, 2, 2)), ValueError),
                         (lambda: mg.gradient(mg.ones(3, 3), edge_order=3), ValueError),
                         (lambda: mg.gradient(mg.ones(3, 3), 0.1, 0.2, 0.3), TypeError),
                         (lambda: F.multi_margin_loss(_t(ROWS), _t([0.0, 1, 2, 3, 0])), TypeError),
                         (lambda: mg.hsplit(mg.ones(4, 4), (1, "a")), ValueError)):
        with pytest.raises(before):
            call()


def test_a_split_point_that_is_not_an_integer_is_refused_not_truncated():
    """``int()`` read the split point 1.5 as 1 and answered; NumPy's slices and PyTorch refuse it."""
    x = mg.arange(4.0)
    for points in ([1.5], (1, 2.5), [np.float64(2.0)]):
        with pytest.raises(TypeError, match="split points must be integers"):
            mg.split(x, points)
        with pytest.raises(TypeError):
            mg.hsplit(x, points)
    assert [p.tolist() for p in mg.split(x, [1, mg.tensor(3)])] == [[0.0], [1.0, 2.0], [3.0]]
    assert [p.shape for p in mg.hsplit(mg.ones(2, 4), np.array([1, 3]))] == [(2, 1), (2, 2), (2, 1)]
