"""``reshape``/``view`` to a shape with a 0 and a -1, ``unflatten`` to such sizes, and ``sum_to_size``
to a size the tensor is no broadcast of refuse in PyTorch's words (torch 2.13's, pasted here), then the
engine's.  PyTorch calls the -1 ambiguous only where there are no elements to place; with elements it
says the shape is invalid for them.  Found by running PyTorch's OpInfo error inputs against the engine.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

z = mg.zeros
CASES = {
    "reshape [0, -1] of 1 element": (lambda: z(1).reshape([0, -1]), "shape '[0, -1]' is invalid for input of size 1"),
    "mg.reshape [0, -1] of 6": (lambda: mg.reshape(z(6), (0, -1)), "shape '[0, -1]' is invalid for input of size 6"),
    "view [0, -1] of 1 element": (lambda: z(1).view([0, -1]), "shape '[0, -1]' is invalid for input of size 1"),
    "reshape [0, -1] of nothing": (lambda: z(0, 3).reshape(0, -1),
                                   "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
                                   "dimension size -1 can be any value and is ambiguous"),
    "unflatten [0, -1] of 6": (lambda: mg.unflatten(z(6), 0, (0, -1)),
                               "unflatten: Provided sizes [0, -1] don't multiply up to the size of dim 0 (6) in the "
                               "input tensor"),
    "sum_to_size, a dim that is not 1": (lambda: z(10, 5, 10).sum_to_size(10, 10),
                                         "size {[10, 10]} is not expandable to size {[10, 5, 10]}."),
    "sum_to_size, more dims": (lambda: z(3, 4).sum_to_size(3, 1, 4), "size {[3, 1, 4]} is not expandable to size "
                                                                     "{[3, 4]}."),
    "sum_to_size, a list": (lambda: z(11, 5, 5, 10).sum_to_size([11, 1]),
                            "size {[11, 1]} is not expandable to size {[11, 5, 5, 10]}."),
}


@pytest.mark.parametrize("name", CASES)
def test_pytorchs_words(name):
    call, words = CASES[name]
    with pytest.raises(RuntimeError, match=re.escape(words)):
        call()


def test_unflatten_of_nothing_stays_ambiguous():
    with pytest.raises(RuntimeError, match="can be any value and is ambiguous"):
        mg.unflatten(z(0), 0, (0, -1))
