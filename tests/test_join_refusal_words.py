"""``cat`` (and ``hstack``/``vstack``/``dstack``, which join through it) and ``stack`` refuse tensors that
do not fit in PyTorch's words, then the engine's: ported tests match PyTorch's with ``assertRaisesRegex``.
Found by running PyTorch's OpInfo error inputs against the engine (torch 2.13's words, pasted here).
The words are made only in the failure branch: the check itself is the one cat always ran.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

z = mg.zeros
CASES = {
    "cat, a size differs": (lambda: mg.cat([z(5, 1, 10), z(5, 1, 1), z(5, 10, 1)], dim=1), RuntimeError,
                            "Sizes of tensors must match except in dimension 1. Expected size 10 but got size 1 "
                            "for tensor number 1 in the list."),
    "cat, a negative dim named as wrapped": (lambda: mg.cat([z(2, 3), z(2, 4)], dim=-2), RuntimeError,
                                             "Sizes of tensors must match except in dimension 0. Expected size 3 "
                                             "but got size 4 for tensor number 1 in the list."),
    "cat, a legacy empty tensor keeps its place": (lambda: mg.cat([z(0), z(2, 3), z(3, 4)]), RuntimeError,
                                                   "Expected size 3 but got size 4 for tensor number 2 in the list."),
    "cat, ranks differ": (lambda: mg.cat([z(20, 1), z(20, 1, 1), z(20, 1, 1)]), RuntimeError,
                          "Tensors must have same number of dimensions: got 2 and 3"),
    "cat, a 0-d tensor first": (lambda: mg.cat([z(()), z(2)]), RuntimeError,
                                "zero-dimensional tensor (at position 0) cannot be concatenated"),
    "cat, a 0-d tensor later": (lambda: mg.cat([z(2), z(())]), RuntimeError,
                                "zero-dimensional tensor (at position 1) cannot be concatenated"),
    "cat, None in the list": (lambda: mg.cat([z(5, 1, 1), None]), TypeError,
                              "expected Tensor as element 1 in argument 0, but got NoneType"),
    "cat of a tensor, not a list": (lambda: mg.cat(z(2, 3)), TypeError, "must be tuple of Tensors"),
    "hstack, ranks differ": (lambda: mg.hstack([z(5, dtype=mg.int32), z(5, 5, 5, 5, dtype=mg.int32)]),
                             RuntimeError, "Tensors must have same number of dimensions: got 1 and 4"),
    "vstack, ranks differ": (lambda: mg.vstack([z(5), z(5, 5, 5, 5)]), RuntimeError,
                             "Tensors must have same number of dimensions: got 2 and 4"),
    "dstack, ranks differ": (lambda: mg.dstack([z(5), z(5, 5, 5, 5)]), RuntimeError,
                             "Tensors must have same number of dimensions: got 3 and 4"),
    "stack, shapes differ": (lambda: mg.stack([z(2), z(2), z(3)]), RuntimeError,
                             "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 2"),
}


@pytest.mark.parametrize("name", CASES)
def test_pytorchs_words_first(name):
    call, cls, words = CASES[name]
    with pytest.raises(cls, match=re.escape(words)):
        call()


def test_the_engines_explanation_stays_after():
    with pytest.raises(RuntimeError, match=r"tensor number 1 in the list\. \(concatenate: shapes \(2, 3\) and "
                                           r"\(2, 4\) differ outside axis 0\)"):
        mg.cat([z(2, 3), z(2, 4)])
