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


# --- constant_pad_nd takes PyTorch's Scalar fill: a complex one too -----------------------------
def test_constant_pad_nd_fills_a_complex_tensor_with_a_complex_value():
    # torch.constant_pad_nd(ones(1, 3, complex128), [1, 2], 1+2j): the Pad op refused the complex
    # fill ("attribute 'value' must be float | bool"), where PyTorch's Scalar argument takes it.
    x = mg.tensor(np.array([[1 + 0j, 2j, -3]]), requires_grad=True)
    out = mg.constant_pad_nd(x, [1, 2], 1 + 2j)
    expected = np.array([[1 + 2j, 1, 2j, -3, 1 + 2j, 1 + 2j]])
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    g = np.arange(6) + 1j * np.arange(6, 12)           # the gradient reaches only the kept elements
    (grad,) = mg.autograd.grad(out, x, mg.tensor(g[None]))
    np.testing.assert_array_equal(grad.numpy(), g[None, 1:4])
    _, tangent = mg.func.jvp(lambda t: mg.constant_pad_nd(t, [1, 2], 1 + 2j), (x.detach(),),
                             (mg.tensor(np.array([[1j, 2, 3]])),))
    np.testing.assert_array_equal(tangent.numpy(), [[0, 1j, 2, 3, 0, 0]])


def test_constant_pad_nd_complex_value_keeps_complex64_and_crops():
    x = mg.tensor(np.array([[1, 2, 3]], dtype=np.complex64))
    out = mg.constant_pad_nd(x, [-1, 1], 0.5j)                # a negative width crops, as PyTorch's
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out.numpy(), np.array([[2, 3, 0.5j]], dtype=np.complex64))


def test_constant_pad_nd_complex_value_into_a_real_tensor():
    # PyTorch's rule: without an imaginary part the value is its real number; with one it cannot
    # be written into a real tensor (RuntimeError "value cannot be converted to type float ...").
    x = mg.tensor(np.array([[1.0, 2.0]]))
    np.testing.assert_array_equal(mg.constant_pad_nd(x, [1, 0], 3 + 0j).numpy(), [[3.0, 1.0, 2.0]])
    i = mg.tensor(np.array([[1, 2]]))
    out = mg.constant_pad_nd(i, [0, 1], 4 + 0j)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 4]])
    with pytest.raises(RuntimeError, match="cannot be converted"):
        mg.constant_pad_nd(x, [1, 0], 1 + 2j)
