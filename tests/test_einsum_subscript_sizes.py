"""``einsum`` checks the sizes its subscripts name before NumPy sums: a subscript repeated within
one operand (a diagonal, a trace) needs equal sizes, as PyTorch's ``einsum`` requires.  NumPy's
``einsum("ii->i", zeros((0, 3)))`` returns three uninitialized values; PyTorch raises
``RuntimeError: einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 0``.
Across operands a size-1 subscript broadcasts, as in both libraries, and its gradient sums back."""

from __future__ import annotations

import numpy as np
import pytest
from operator_checks import check_everywhere

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)


# (subscripts, operand shapes, PyTorch's message): torch 2.13's RuntimeError for each
_REPEATED = [
    ("ii->i", [(0, 3)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 0"),
    ("ii->i", [(3, 0)], "subscript i is repeated for operand 0 but the sizes don't match, 0 != 3"),
    ("ii", [(1, 3)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 1"),
    ("bii->bi", [(2, 3, 4)], "subscript i is repeated for operand 0 but the sizes don't match, 4 != 3"),
    ("i,jj->ij", [(2,), (0, 2)], "subscript j is repeated for operand 1 but the sizes don't match, 2 != 0"),
    ("...ii->...i", [(2, 0, 1)], "subscript i is repeated for operand 0 but the sizes don't match, 1 != 0"),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("subscripts, shapes, message", _REPEATED)
def test_a_subscript_repeated_in_an_operand_needs_equal_sizes(subscripts, shapes, message, dtype, device):
    operands = [mg.zeros(*shape, dtype=dtype, device=device) for shape in shapes]
    with pytest.raises(RuntimeError, match=message):
        mg.einsum(subscripts, *operands)
    with pytest.raises(ValueError, match=message):  # NumPy's type for the same refusal
        mg.einsum(subscripts, *operands)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_empty_diagonals_and_broadcast_subscripts_still_sum(dtype, device):
    # torch.einsum("ii->i", torch.zeros(0, 0)).shape == (0,); "i,i->i" of shapes (0,) and (1,) is (0,);
    # "ij,jk->ik" of (2, 1) and (3, 4) broadcasts j: (2, 4)
    assert mg.einsum("ii->i", mg.zeros(0, 0, dtype=dtype, device=device)).shape == (0,)
    assert mg.einsum("i,i->i", mg.zeros(0, dtype=dtype, device=device),
                     mg.ones(1, dtype=dtype, device=device)).shape == (0,)
    a = RNG.standard_normal((2, 1))
    b = RNG.standard_normal((3, 4))
    got = mg.einsum("ij,jk->ik", mg.tensor(a, dtype=dtype, device=device), mg.tensor(b, dtype=dtype, device=device))
    np.testing.assert_allclose(got.numpy(), a * b.sum(0), rtol=1e-5)
    m = RNG.standard_normal((3, 3))
    x = mg.tensor(m, dtype=dtype, device=device)
    np.testing.assert_allclose(mg.einsum("ii->i", x).numpy(), np.diagonal(m), rtol=1e-6)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(2, 1), (3, 4)]), ("i,i->i", [(1,), (3,)]), ("...i,...i->...", [(1, 3), (4, 3)]),
    ("ij,ij->", [(1, 3), (2, 1)]), ("ii,i->i", [(3, 3), (1,)]),
])
def test_gradients_through_a_size_one_subscript_broadcast_across_operands(subscripts, shapes):
    # torch.einsum("ij,jk->ik", a (2, 1), b (3, 4)).sum().backward(): a.grad sums over the 3 values of j
    # it met, b.grad has b's shape. The engine's backward reshaped the (2, 3) gradient to (2, 1).
    check_everywhere(lambda *ts: mg.einsum(subscripts, *ts), *[RNG.standard_normal(s) for s in shapes])


def test_gradients_of_a_diagonal():
    x = mg.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    assert gradcheck(lambda t: mg.einsum("ii->i", t), [x], modes=("rev", "fwd"))
    assert gradgradcheck(lambda t: mg.einsum("ii->i", t), [x])
