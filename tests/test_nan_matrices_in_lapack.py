"""A matrix holding a NaN has NaN answers, as PyTorch's: OpenBLAS's LU (NumPy's LAPACK) passes over a NaN
pivot, so ``[[nan, 1], [1, 1]]`` looked singular to it -- ``det`` 0, ``slogdet`` ``(0, -inf)``, ``inv``
and ``solve`` "Singular matrix" -- where torch 2.13 answers NaN, ``(0, nan)`` and NaN matrices.  The
operator database at extremal inputs (tests/data/operator_extreme_cases.py) holds torch's answers on the
CPU and strict devices; here float32, the strict-f32 device, complex, a batch, the transforms and
``create_graph``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAN = math.nan


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_nan_matrix_is_nan_not_singular(device, dtype):
    a = mg.tensor([[[NAN, 1.0], [1.0, 1.0]], [[2.0, 1.0], [1.0, 1.0]]], dtype=dtype, device=device)
    det = mg.linalg.det(a)
    assert math.isnan(det[0].item()) and det[1].item() == pytest.approx(1.0)
    sign, logabsdet = mg.linalg.slogdet(a)
    assert sign.tolist() == [0.0, 1.0] and math.isnan(logabsdet[0].item()) and logabsdet[1].item() == pytest.approx(0)
    inverse = mg.linalg.inv(a)
    assert np.isnan(inverse[0].numpy()).all()
    np.testing.assert_allclose(inverse[1].numpy(), [[1.0, -1.0], [-1.0, 2.0]], rtol=1e-6)
    x = mg.linalg.solve(a, mg.ones(2, 2, dtype=dtype, device=device))
    assert np.isnan(x[0].numpy()).all() and x[1].tolist() == pytest.approx([0.0, 1.0], abs=1e-6)


def test_gradients_through_a_nan_matrix_are_nan_and_the_others_exact():
    a = mg.tensor([[[NAN, 1.0], [1.0, 1.0]], [[2.0, 1.0], [1.0, 1.0]]], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.linalg.det(a).sum(), a, create_graph=True)
    assert np.isnan(g[0].detach().numpy()).all() and g[1].tolist() == [[1.0, -1.0], [-1.0, 2.0]]
    (g,) = mg.autograd.grad(mg.linalg.inv(a).sum(), a)
    assert np.isnan(g[0].numpy()).all() and np.isfinite(g[1].numpy()).all()
    t = mg.func.jvp(lambda m: mg.linalg.solve(m, mg.ones(2, 1, dtype=mg.float64)), (a.detach(),),
                    (mg.ones_like(a),))[1]
    assert np.isnan(t[0].numpy()).all() and np.isfinite(t[1].numpy()).all()


def test_a_complex_nan_matrix_has_a_nan_sign_as_pytorchs():
    # torch 2.13: slogdet([[nan+0j, 1], [1, 1]]) = (nan+nanj, nan)
    sign, logabsdet = mg.linalg.slogdet(mg.tensor([[complex(NAN, 0), 1.0], [1.0, 1.0]], dtype=mg.complex128))
    assert math.isnan(sign.item().real) and math.isnan(sign.item().imag) and math.isnan(logabsdet.item())
