"""PyTorch's exception types where NumPy's habit raises another one.

torch 2.13 raises ``IndexError`` for a dim past the rank ("Dimension out of range (expected to be
in range of [-2, 1], but got 5)"), ``RuntimeError`` for ``max``/``argmax``/``amax`` of an empty
tensor over every dim and ``IndexError`` over a named empty dim.  The engine raised ``ValueError``
for all of these, so ``except IndexError`` written for PyTorch missed them.  The new errors are
also ``ValueError`` (as NumPy's ``AxisError`` is both), so NumPy-style code still catches them.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

X = mg.ones(2, 3)

OUT_OF_RANGE = {
    "sum(5)": lambda: X.sum(5),
    "sum(dim=-3)": lambda: X.sum(dim=-3),
    "mean((0, 2))": lambda: X.mean((0, 2)),
    "mg.sum(dim=2)": lambda: mg.sum(X, dim=2),
    "amax(2)": lambda: X.amax(2),
    "argmax(2)": lambda: X.argmax(2),
    "max(2)": lambda: X.max(2),
    "std(3)": lambda: X.std(3),
    "logsumexp(2)": lambda: X.logsumexp(2),
    "softmax(2)": lambda: X.softmax(2),
    "cumsum(2)": lambda: X.cumsum(2),
    "0-d sum(1)": lambda: mg.tensor(1.0).sum(1),
}


@pytest.mark.parametrize("spelling", sorted(OUT_OF_RANGE))
def test_a_dim_out_of_range_is_an_index_error_as_pytorch(spelling):
    with pytest.raises(IndexError, match="out of range") as caught:
        OUT_OF_RANGE[spelling]()
    assert isinstance(caught.value, ValueError)          # NumPy-style handlers still catch it


def test_the_message_gives_pytorchs_range():
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 5"):
        X.sum(5)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        mg.tensor(2.0).sum(1)                             # a 0-d tensor takes dims -1 and 0


EMPTY = mg.zeros(2, 0)


@pytest.mark.parametrize("spelling", ["max", "min", "argmax", "argmin", "amax", "amin"])
def test_an_empty_reduction_raises_pytorchs_types(spelling):
    with pytest.raises(RuntimeError, match=r"Expected reduction dim to be specified for input.numel\(\) == 0"):
        getattr(EMPTY, spelling)()
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        getattr(EMPTY, spelling)(1)
    with pytest.raises(ValueError):
        getattr(EMPTY, spelling)()
