"""Cases found by running PyTorch's OpInfo samples for the ops named ``a``..``k`` through the engine.

A differential probe fed torch 2.13's ``op_db`` samples and reference inputs (float64, float32,
int64, bool, complex128; functions, Tensor methods, in-place variants, reverse-mode gradients and
``func.jvp``) to the matching ``mg`` calls.  Each section is one class of disagreement that was a
defect here; expected answers come from NumPy or from values worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

# --- cov of a complex tensor with weights: the weights stay real --------------------------------
Z = np.array([[1 + 2j, 3 - 1j, 0.5j], [2, 1j, -1]])
FW, AW = np.array([1, 2, 3]), np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("weights", [
    {"fweights": FW}, {"aweights": AW}, {"fweights": FW, "aweights": AW},
])
@pytest.mark.parametrize("correction", [0, 1, 5])
def test_cov_of_complex_observations_takes_weights(weights, correction):
    # The weights were cast to the input's complex dtype, so the divisor was complex and its
    # clip at 0 refused ("complex numbers have no order"); PyTorch and NumPy answer.
    out = mg.cov(mg.tensor(Z), correction=correction, **{k: mg.tensor(v) for k, v in weights.items()})
    expected = np.cov(Z, ddof=correction, **weights)
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-15)
    method = mg.tensor(Z).cov(correction=correction, **{k: mg.tensor(v) for k, v in weights.items()})
    np.testing.assert_allclose(method.numpy(), expected, rtol=1e-12, atol=1e-15)
