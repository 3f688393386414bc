"""``mg.lu_unpack``: PyTorch's ``torch.lu_unpack`` of ``lu_factor``'s packed ``(LU, pivots)``.

It gives ``linalg.lu``'s ``(P, L, U)`` bit for bit (P @ L @ U is the matrix), for tall, wide, square,
batched and empty matrices; ``L`` and ``U`` are differentiable in ``LU`` (gradcheck), and what
``unpack_data=False`` / ``unpack_pivots=False`` leaves out is an empty ``(0,)``, as PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SHAPES = [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 5), (0, 0), (3, 0, 0), (2, 1, 1)]


def host(t):
    return mg.backend.to_host(t._data)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_unpack_gives_linalg_lus_factors(shape, device, dtype):
    a = mg.tensor(np.random.default_rng(0).standard_normal(shape), dtype=dtype, device=device)
    lu, pivots = mg.linalg.lu_factor(a)
    for got, want in zip(mg.lu_unpack(lu, pivots), mg.linalg.lu(a)):
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.array_equal(host(got), host(want))
    p, low, up = mg.lu_unpack(lu, pivots)
    if a.numel():
        assert np.allclose(host(p @ low @ up), host(a), atol=1e-5 if dtype == mg.float32 else 1e-12)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_lu_unpack_is_differentiable_in_lu(device):
    a = mg.tensor(np.random.default_rng(1).standard_normal((2, 4, 3)), dtype=mg.float64, device=device)
    lu, pivots = mg.linalg.lu_factor(a)
    lu = lu.detach().requires_grad_()

    def factors(packed):
        _, low, up = mg.lu_unpack(packed, pivots)
        return low, up

    assert mg.autograd.gradcheck(factors, (lu,))
    _, (low, up) = mg.func.jvp(factors, (lu,), (mg.ones_like(lu),))  # (the tangents: the unpacking is linear)
    assert np.array_equal(host(low), np.tril(np.ones((2, 4, 3)), -1))
    assert np.array_equal(host(up), np.triu(np.ones((2, 3, 3))))


def test_what_is_not_unpacked_is_empty_and_bad_arguments_are_refused():
    lu, pivots = mg.linalg.lu_factor(mg.eye(3) * 2)
    p, low, up = mg.lu_unpack(lu, pivots, unpack_data=False)
    assert p.shape == (3, 3) and low.shape == up.shape == (0,)
    p, low, up = mg.lu_unpack(lu, pivots, unpack_pivots=False)
    assert p.shape == (0,) and low.shape == up.shape == (3, 3)
    with pytest.raises(ValueError, match="pivots"):
        mg.lu_unpack(lu, pivots.float())
    with pytest.raises(ValueError, match="pivots"):
        mg.lu_unpack(lu, pivots[:2])
    with pytest.raises(ValueError, match=r"in \[1, 3\]"):
        mg.lu_unpack(lu, mg.tensor([1, 5, 3], dtype=mg.int32))
