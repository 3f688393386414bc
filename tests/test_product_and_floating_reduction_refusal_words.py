"""The products of fixed ranks (dot, vdot, inner, mm, mv, bmm, outer, ger) and the reductions that need
a floating input (mean, nanmean, std, var, std_mean, var_mean, norm) refuse in PyTorch's words (torch
2.13's, pasted here; dtypes by PyTorch's ScalarType names, ``Long`` not ``int64``), then the engine's.
Found by running PyTorch's OpInfo error inputs against the engine; the rest of each family checked
against torch by hand.  The words are made only where the refusal is raised.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

z = mg.zeros


def i64(*shape):
    return mg.zeros(*shape, dtype=mg.int64)


CASES = {
    "x.dot, a matrix": (lambda: z(1, 1).dot(z(3)), "1D tensors expected, but got 2D and 1D tensors"),
    "x.vdot, a matrix second": (lambda: z(2).vdot(z(2, 2)), "1D tensors expected, but got 1D and 2D tensors"),
    "mg.vdot, a matrix": (lambda: mg.vdot(z(1, 1), z(3)), "1D tensors expected, but got 2D and 1D tensors"),
    "mg.dot, misaligned ranks": (lambda: mg.dot(z(1, 1), z(3)), "1D tensors expected, but got 2D and 1D tensors"),
    "mg.dot, lengths differ": (lambda: mg.dot(z(9), z(3)), "inconsistent tensor size, expected tensor [9] and src [3] "
                               "to have the same number of elements, but got 9 and 3 elements respectively"),
    "x.dot, lengths differ": (lambda: z(9).dot(z(3)), "inconsistent tensor size, expected tensor [9] and src [3]"),
    "mg.vdot, lengths differ": (lambda: mg.vdot(z(9), z(3)), "inconsistent tensor size, expected tensor [9] and "
                                "src [3]"),
    "x.dot, dtypes differ": (lambda: z(1).dot(z(1, dtype=mg.float16)),
                             "dot : expected both vectors to have same dtype, but found Float and Half"),
    "inner, last dims differ": (lambda: mg.inner(z(2, 9), z(3)), "inner() the last dimension must match on both "
                                "input tensors but got shapes [2, 9] and [3]"),
    "mm, a vector first": (lambda: z(2).mm(z(2, 2)), "self must be a matrix"),
    "mm, a vector second": (lambda: z(2, 2).mm(z(2)), "mat2 must be a matrix"),
    "mv, a vector first": (lambda: z(2).mv(z(2)), "vector + matrix @ vector expected, got 1, 1, 1"),
    "bmm, a matrix first": (lambda: z(2, 2).bmm(z(2, 2, 2)), "batch1 must be a 3D tensor"),
    "bmm, a matrix second": (lambda: z(2, 2, 2).bmm(z(2, 2)), "batch2 must be a 3D tensor"),
    "outer, a matrix first": (lambda: z(2, 2).outer(z(2)), "outer: Expected 1-D argument self, but got 2-D"),
    "ger, a matrix second": (lambda: z(2).ger(z(2, 2)), "outer: Expected 1-D argument vec2, but got 2-D"),
    "x.mean of int64": (lambda: i64(3, 4, 5).mean([]), "mean(): could not infer output dtype. Input dtype must be "
                        "either a floating point or complex dtype. Got: Long"),
    "x.mean of bool": (lambda: z(3, dtype=mg.bool).mean(), "Input dtype must be either a floating point or complex "
                       "dtype. Got: Bool"),
    "mg.mean(dim=) of int64": (lambda: mg.mean(i64(3), dim=0), "Got: Long"),
    "x.mean(dtype=int64)": (lambda: z(3, 4, 5).mean([], dtype=mg.int64), "mean(): could not infer output dtype. "
                            "Optional dtype must be either a floating point or complex dtype. Got: Long"),
    "x.mean(dtype=int32)": (lambda: z(3).mean(dtype=mg.int32), "Optional dtype must be either a floating point or "
                            "complex dtype. Got: Int"),
    "x.nanmean of int64": (lambda: i64(3).nanmean(), "nanmean(): expected input to have floating point or complex "
                           "dtype but got Long"),
    "x.var of int64": (lambda: i64(3).var(), "std and var only support floating point and complex dtypes"),
    "mg.std(dim=) of int64": (lambda: mg.std(i64(3), dim=0), "std and var only support floating point and complex"),
    "std_mean of int64": (lambda: mg.std_mean(i64(3)), "std_mean only support floating point and complex dtypes"),
    "var_mean of int64": (lambda: mg.var_mean(i64(3)), "var_mean only support floating point and complex dtypes"),
    "norm of int64": (lambda: mg.norm(i64(3)), "linalg.vector_norm: Expected a floating point or complex tensor as "
                      "input. Got Long"),
}


@pytest.mark.parametrize("name", CASES)
def test_pytorchs_words_first(name):
    call, words = CASES[name]
    with pytest.raises(RuntimeError, match=re.escape(words)):
        call()


def test_the_engines_explanation_stays_after():
    with pytest.raises(RuntimeError, match=re.escape("Got: Long (mean(): input dtype must be floating point or "
                                                     "complex, got int64; cast first with x.float()")):
        i64(3).mean()
    with pytest.raises(RuntimeError, match=re.escape("respectively (dot: shapes (9,) and (3,) are not aligned")):
        mg.dot(z(9), z(3))
