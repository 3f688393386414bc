"""``einsum``'s sublist form, NumPy's and PyTorch's: each operand followed by its axes as
integers (``Ellipsis`` for ``...``), then optionally the output's.  ``mg.einsum(a, [0, 1], b,
[1, 2], [0, 2])`` raised AttributeError ('Tensor' object has no attribute 'replace')."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

RNG = np.random.default_rng(11)
A, B = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
C = RNG.standard_normal((5, 2, 3))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("args, subscripts", [
    (("A", [0, 1], "B", [1, 2], [0, 2]), "ij,jk->ik"),
    (("A", [0, 1], "B", [1, 2]), "ij,jk"),
    (("A", [0, 1]), "ij"),
    (("A", [0, 1], [1]), "ij->j"),
    (("C", [Ellipsis, 1], [Ellipsis]), "...j->..."),
    (("C", [2, 0, 1], "A", [0, 1], [2]), "cab,ab->c"),
])
def test_the_sublist_form_is_the_subscript_form(device, args, subscripts):
    arrays = {"A": A, "B": B, "C": C}
    leaves = {k: mg.tensor(v, device=device, requires_grad=True) for k, v in arrays.items()}
    call = [leaves[a] if isinstance(a, str) else a for a in args]
    out = mg.einsum(*call)
    names = [a for a in args if isinstance(a, str)]
    np.testing.assert_allclose(out.numpy(), np.einsum(subscripts, *(arrays[n] for n in names)), rtol=1e-12)
    assert out.shape == np.einsum(*[arrays[a] if isinstance(a, str) else a for a in args]).shape
    grads = mg.autograd.grad(out.sum(), [leaves[n] for n in dict.fromkeys(names)])
    want = mg.autograd.grad(mg.einsum(subscripts, *(leaves[n] for n in names)).sum(),
                            [leaves[n] for n in dict.fromkeys(names)])
    for g, w in zip(grads, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_a_sublist_of_anything_but_axes_is_refused():
    a = mg.tensor(A)
    for bad in ([0, -1], [0, "x"], [0, True], [0, 52], 3):
        with pytest.raises(ValueError, match="sublist"):
            mg.einsum(a, bad)
