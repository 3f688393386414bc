"""PyTorch's OpInfo error inputs whose refusal the engine raised in PyTorch's class but in its own
words, so the pattern PyTorch's test matches did not match: each pasted here as a literal (the call,
PyTorch's class and pattern).  Found by running every OpInfo's error inputs against the engine
(torch 2.13).  The reduction check is one for every loss; unbind of a 0-d tensor raised Python's
"tuple index out of range" from inside the engine.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

ROWS = mg.tensor(np.arange(20.0, dtype=np.float32).reshape(5, 4) / 7)
V = mg.tensor(np.linspace(-1, 1, 10, dtype=np.float32))
BAD_REDUCTION = {
    "l1_loss": lambda: F.l1_loss(V, V, reduction="abc"),
    "huber_loss": lambda: F.huber_loss(V, V, reduction="abc"),
    "hinge_embedding_loss": lambda: F.hinge_embedding_loss(V, V, reduction="abc"),
    "margin_ranking_loss": lambda: F.margin_ranking_loss(V, V, V, reduction="abc"),
    "multi_margin_loss": lambda: F.multi_margin_loss(ROWS, mg.tensor([0, 1, 2, 3, 0]), reduction="abc"),
    "multilabel_margin_loss": lambda: F.multilabel_margin_loss(ROWS, mg.zeros(5, 4, dtype=mg.int64),
                                                               reduction="abc"),
    "poisson_nll_loss": lambda: F.poisson_nll_loss(V, V, reduction="abc"),
    "soft_margin_loss": lambda: F.soft_margin_loss(V, V, reduction="abc"),
    "triplet_margin_loss": lambda: F.triplet_margin_loss(ROWS, ROWS, ROWS, reduction="abc"),
    "triplet_margin_with_distance_loss": lambda: F.triplet_margin_with_distance_loss(ROWS, ROWS, ROWS,
                                                                                     reduction="abc"),
    "kl_div": lambda: F.kl_div(V, V, reduction="abc"),
}
CASES = {
    "gaussian_nll_loss, reduction abc": (lambda: F.gaussian_nll_loss(V, V, mg.ones(10), reduction="abc"),
                                         ValueError, "abc is not valid"),
    "unbind of a 0-d tensor": (lambda: mg.unbind(mg.tensor(1.0), 0), IndexError,
                               "Dimension specified as 0 but tensor has no dimensions"),
    "x.unbind() of a 0-d tensor": (lambda: mg.tensor(1.0).unbind(), IndexError,
                                   "Dimension specified as 0 but tensor has no dimensions"),
    "kthvalue, k past the dim": (lambda: mg.ones(2, 2).kthvalue(3, 0), RuntimeError,
                                 "selected number k out of range for dimension"),
    "kthvalue of a 0-d tensor, k 3": (lambda: mg.kthvalue(mg.tensor(2), 3), RuntimeError,
                                      "selected number k out of range for dimension"),
    "huber_loss, delta 0": (lambda: F.huber_loss(V, V, delta=0.0), RuntimeError,
                            r"huber_loss does not support non-positive values for delta."),
    "hardtanh, min above max": (lambda: F.hardtanh(V, 0.5, -0.5), ValueError, "min_val cannot be greater than max_val"),
    "triplet_margin_loss, margin -1": (lambda: F.triplet_margin_loss(ROWS, ROWS, ROWS, margin=-1.0), ValueError,
                                       "margin must be greater than 0, got -1.0"),
    "multilabel_margin_loss, a target of 4": (lambda: F.multilabel_margin_loss(ROWS, mg.tensor([0.0, 1, 2, 3])),
                                              RuntimeError, r"inconsistent target size: \[4\] for input of size"),
    "multilabel_margin_loss, a 0-d target": (lambda: F.multilabel_margin_loss(ROWS, mg.tensor(0.0)),
                                             RuntimeError, r"inconsistent target size: \[\] for input of size"),
}


@pytest.mark.parametrize("loss", sorted(BAD_REDUCTION))
def test_an_unknown_reduction_is_refused_in_pytorchs_words(loss):
    with pytest.raises(ValueError, match="abc is not a valid value for reduction"):
        BAD_REDUCTION[loss]()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_refusal_says_pytorchs_words(case):
    call, error, pattern = CASES[case]
    with pytest.raises(error, match=pattern):
        call()
