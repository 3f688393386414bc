"""gather, the scatters and the index writes (index_add/copy/reduce, index_put, put, masked_scatter)
refuse an index or source that does not fit, and a source of another dtype, in PyTorch's words (torch
2.13's, pasted here), then the engine's.  Found by running PyTorch's OpInfo error inputs against the
engine; the other ops of each family were checked against torch by hand.  The words are made only where
the refusal is raised.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

z = mg.zeros


def L(*shape):
    return mg.zeros(*shape, dtype=mg.int64)


D = mg.float64
CASES = {
    "gather, index longer off dim": (lambda: mg.gather(z(1, 1), 1, L(2, 2)), "Size does not match at dimension 0 "
                                     "expected index [2, 2] to be no larger than self [1, 1] apart from dimension 1"),
    "x.gather, index longer off dim": (lambda: z(3, 1).gather(0, L(2, 2)), "Size does not match at dimension 1 "
                                       "expected index [2, 2] to be no larger than self [3, 1] apart from dimension 0"),
    "gather, ranks differ": (lambda: mg.gather(z(3, 1), 0, L(2)),
                             "Index tensor must have the same number of dimensions as input tensor"),
    "scatter, ranks differ": (lambda: z(3, 5).scatter(0, L(2), z(2, 5)),
                              "Index tensor must have the same number of dimensions as self tensor"),
    "scatter of a value, index longer": (lambda: z(3, 5).scatter(0, L(2, 6), 1.0),
                                         "Expected index [2, 6] to be no larger than self [3, 5] apart from "
                                         "dimension 0"),
    "scatter, index longer than self": (lambda: z(3, 5).scatter(0, L(2, 6), z(5, 6)),
                                        "Expected index [2, 6] to be no larger than self [3, 5] apart from dimension 0 "
                                        "and to be no larger size than src [5, 6]"),
    "scatter_add, index longer than src": (lambda: z(3, 5).scatter_add(0, L(4, 2), z(2, 2)),
                                           "Expected index [4, 2] to be no larger than self [3, 5] apart from "
                                           "dimension 0 and to be no larger size than src [2, 2]"),
    "scatter, dtypes differ": (lambda: z(3, 5, dtype=D).scatter(0, L(2, 2), z(2, 5)),
                               "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_add, dtypes differ": (lambda: z(3, 5, dtype=D).scatter_add(0, L(2, 2), z(2, 5)),
                                   "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_reduce, dtypes differ": (lambda: z(3, 5, dtype=D).scatter_reduce(0, L(2, 2), z(2, 5), "sum"),
                                      "scatter(): Expected self.dtype to be equal to src.dtype"),
    "index_add, source 1-D": (lambda: z(3, 2).index_add(0, L(2), z(2)),
                              "source tensor shape must match self tensor shape, excluding the specified dimension. "
                              "Got self.shape = [3, 2] source.shape = [2]"),
    "index_add, too many rows": (lambda: z(3, 2).index_add(0, L(2), z(3, 2)),
                                 "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), "
                                 "for dim: 0"),
    "index_add, along dim 1": (lambda: z(3, 2).index_add(1, L(2), z(2, 3)),
                               "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), "
                               "for dim: 1"),
    "index_add, dtypes differ": (lambda: z(3, 2).index_add(0, L(2), z(2, 2, dtype=D)),
                                 "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    "index_reduce, other dims": (lambda: z(3, 2).index_reduce(0, L(2), z(2, 3), "prod"),
                                 "source tensor shape must match self tensor shape, excluding the specified "
                                 "dimension. Got self.shape = [3, 2] source.shape = [2, 3]"),
    "index_reduce, dtypes differ": (lambda: z(3, 2).index_reduce(0, L(2), z(2, 2, dtype=D), "prod"),
                                    "index_reduce_(): self (Float) and source (Double) must have the same scalar type"),
    "index_copy, ranks differ": (lambda: z(3, 2).index_copy(0, L(2), z(2)),
                                 "index_copy_(): When source and destination are not scalars, their dimensionality "
                                 "must match. Source dimensionality (1), destination dimensionality (2)"),
    "index_copy, too many rows": (lambda: z(3, 2).index_copy(0, L(2), z(3, 2)),
                                  "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)"),
    "index_copy, other dims": (lambda: z(3, 2).index_copy(0, L(2), z(2, 3)),
                               "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               "slice shape: 2 at dimension 0 and source slice shape: 3 at dimension 0."),
    "index_copy, a 0-d source for two": (lambda: z(3, 2).index_copy(0, L(1), z(())),
                                         "Destination slice shape: 2 at dimension 0 and source slice shape:  at "
                                         "dimension 0."),
    # a 0-d input: index_add and index_reduce take only a 0-d source, index_copy a 0-d or 1-D one
    "index_add, 0-d input, two indices": (lambda: z(()).index_add(0, L(2), z(2)),
                                          "source tensor shape must match self tensor shape, excluding the specified "
                                          "dimension. Got self.shape = [] source.shape = [2]"),
    "index_add, 0-d input, a 1-D source": (lambda: z(()).index_add(0, L(1), z(1)),
                                           "source tensor shape must match self tensor shape, excluding the "
                                           "specified dimension. Got self.shape = [] source.shape = [1]"),
    "index_add, 0-d input, no index": (lambda: z(()).index_add(-1, L(0), z(0)),
                                       "Got self.shape = [] source.shape = [0]"),
    "index_reduce, 0-d input, a 1-D source": (lambda: z(()).index_reduce(0, L(1), z(1), "prod"),
                                              "Got self.shape = [] source.shape = [1]"),
    "index_reduce, 0-d input, two indices": (lambda: z(()).index_reduce(0, L(2), z(2), "amax"),
                                             "Got self.shape = [] source.shape = [2]"),
    "index_copy, 0-d input, a 2-D source": (lambda: z(()).index_copy(0, L(1), z(1, 1)),
                                            "index_copy_(): Source/destination tensor must have same slice shapes. "
                                            "Destination slice shape:  at dimension 0 and source slice shape: 1 at "
                                            "dimension 0."),
    "index_copy, dtypes differ": (lambda: z(3, 5, dtype=D).index_copy(0, L(2), z(2, 5)),
                                  "index_copy_(): self and source expected to have the same dtype, but got (self) "
                                  "Double and (source) Float"),
    "index_put, dtypes differ": (lambda: z(3, 2).index_put((mg.tensor([0]),), z(2, dtype=D)),
                                 "Index put requires the source and destination dtypes match, got Float for the "
                                 "destination and Double for the source."),
    "put, dtypes differ": (lambda: z(6).put(mg.tensor([0]), z(1, dtype=D)),
                           "put_(): self and source expected to have the same dtype, but got self.dtype = Float and "
                           "source.dtype = Double"),
    "masked_scatter, dtypes differ": (lambda: z(3, 2).masked_scatter(z(3, 2, dtype=mg.bool), z(6, dtype=D)),
                                      "masked_scatter: expected self and source to have same dtypes but gotFloat "
                                      "and Double"),
}


@pytest.mark.parametrize("name", CASES)
def test_pytorchs_words_first(name):
    call, words = CASES[name]
    with pytest.raises(RuntimeError, match=re.escape(words)):
        call()


def test_the_engines_explanation_stays_after():
    with pytest.raises(RuntimeError, match=re.escape("apart from dimension 1 (gather: index is longer than the "
                                                     "input on dim 0 (2 > 1))")):
        mg.gather(z(1, 1), 1, L(2, 2))


def test_a_0d_input_takes_what_pytorch_takes():
    """torch 2.13's answers, pasted: a 0-d index or a one-element one, with a 0-d source
    (index_copy: a 0-d or a 1-D one; a repeated index writes the last row)."""
    one = mg.tensor(2.0)
    assert mg.ones(()).index_add(0, L(1), one, alpha=3).item() == 7.0
    assert mg.ones(()).index_add(0, mg.tensor(0), one).item() == 3.0
    assert mg.ones(()).index_reduce(0, L(1), one, "prod").item() == 2.0
    assert mg.ones(()).index_copy(0, L(1), mg.tensor([2.0])).item() == 2.0
    assert mg.ones(()).index_copy(0, L(2), mg.tensor([2.0, 3.0])).item() == 3.0
    assert mg.ones(()).index_fill(0, L(2), 4.0).item() == 4.0
