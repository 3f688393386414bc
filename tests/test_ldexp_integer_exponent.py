"""``ldexp`` with an integer exponent is rounded once (C's ``ldexp``, PyTorch's kernel for an integer
exponent): ``ldexp(0.0, 2000)`` was NaN (``x * exp2(n)``, ``0 * inf``) and ``ldexp(1e-310, 2000)`` inf,
where torch 2.13 answers 0 and 1.148e292; float32 and float16 alike.  Its gradient is ``ldexp(g, n)``
(torch 2.13's is 0 for a negative exponent, ``2 ** n`` taken in integers: docs/complex.md).  A float
exponent stays ``x * exp2(n)``, as PyTorch's.  The operator database at extremal inputs
(tests/data/operator_extreme_cases.py) holds torch 2.13's answers for the CPU and strict devices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

INF = math.inf


def _same_bits(got: mg.Tensor, want: np.ndarray) -> None:
    got = got.numpy().astype(float)
    np.testing.assert_array_equal(got, want)
    assert (np.isnan(want) | (np.signbit(got) == np.signbit(want))).all()  # (a NaN's sign is no answer)


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_ldexp_rounds_once_at_either_end_of_the_range(device, dtype):
    big, tiny = (2000, 1e-310) if dtype == mg.float64 else (200, 1e-40)
    x = mg.tensor([0.0, tiny, 1.0, -3.0, -0.0], dtype=dtype, device=device, requires_grad=True)
    n = mg.tensor([5000, big, -5000, 3, 7], device=device)
    y = mg.ldexp(x, n)
    want = np.ldexp(np.array([0.0, tiny, 1.0, -3.0, -0.0], dtype=np.dtype(str(dtype).split(".")[-1])), n.numpy())
    assert y.dtype == dtype
    _same_bits(y, want.astype(float))
    assert 0 < abs(y[1].item()) < INF  # the old x * exp2(n) overflowed here, and 0 * inf was NaN
    # the gradient is ldexp(g, n): exact, overflowing only where 2 ** n does
    (g,) = mg.autograd.grad(y, x, mg.full((5,), 0.5, dtype=dtype, device=device))
    assert g[3].item() == 4.0 and g[4].item() == 64.0 and g[0].item() == INF and g[2].item() == 0.0
    in_place = x.detach().clone()
    in_place.ldexp_(n)
    _same_bits(in_place, y.numpy().astype(float))


def test_ldexp_under_the_transforms_and_checkpoint():
    n = mg.tensor([3, -1, 0])
    x = mg.tensor([1.0, 2.0, -5.0])
    assert mg.func.jvp(lambda t: t.ldexp(n), (x,), (mg.ones(3),))[1].tolist() == [8.0, 0.5, 1.0]
    assert mg.func.hessian(lambda t: (t.ldexp(n) ** 2).sum())(x).diagonal().tolist() == [128.0, 0.5, 2.0]
    assert mg.func.vmap(lambda t: t.ldexp(n))(x[None]).tolist() == [[8.0, 1.0, -5.0]]
    leaf = x.clone().requires_grad_()
    checkpoint(lambda t: t.ldexp(n), leaf, use_reentrant=False).sum().backward()
    assert leaf.grad.tolist() == [8.0, 0.5, 1.0]
    # a float exponent stays x * 2 ** n, as PyTorch's: NaN and inf past the range
    _same_bits(mg.ldexp(mg.tensor([0.0, 1e-40]), mg.tensor([500.0, 200.0])), np.array([np.nan, INF]))
