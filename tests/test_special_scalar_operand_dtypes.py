"""``mg.special.zeta``/``gammainc``/``gammaincc`` beside a Python number keep the tensor's dtype,
and the incomplete gamma at ``a = 0`` is PyTorch's limit.

torch 2.13: ``torch.special.zeta(float32_tensor, 2)`` is float32; the engine's kernels met the
number as a float64 constant and answered float64 (also ``zeta(2, t)``, integer tensors, and
``gammainc(t, 2)``).  ``torch.special.gammainc(0, x)`` is 1 for ``x > 0`` (``gammaincc``: 0), as
SciPy's; the engine answered NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

S = mg.special


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("spelling, expected", [             # torch 2.13's values
    (lambda t: S.zeta(t, 2), [0.34148726, 0.2020569]),
    (lambda t: S.zeta(t, 2.0), [0.34148726, 0.2020569]),
    (lambda t: S.zeta(3, t), [0.11810203, 0.07705691]),
    (lambda t: S.gammainc(t, 2), [0.45058402, 0.32332367]),
    (lambda t: S.gammaincc(t, 2.0), [0.54941598, 0.67667633]),
    (lambda t: S.gammainc(2, t), [0.71270250, 0.80085172]),
])
def test_a_python_number_takes_the_tensors_float32(spelling, expected, device):
    out = spelling(mg.tensor([2.5, 3.0], device=device))
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


def test_integer_tensors_answer_in_the_default_float_dtype_and_gradients_keep_float32():
    assert S.zeta(mg.tensor([2, 3]), 1).dtype == mg.float32                   # torch 2.13: float32
    q = mg.tensor([1.5, 2.0], requires_grad=True)
    S.zeta(3.0, q).sum().backward()
    assert q.grad.dtype == mg.float32
    np.testing.assert_allclose(q.grad.numpy(), [-0.7045455, -0.24696973], rtol=1e-5)
    assert S.zeta(mg.tensor([2.5]), mg.tensor(2.0, dtype=mg.float64)).dtype == mg.float32   # a 0-d tensor


def test_the_incomplete_gamma_at_a_zero_is_pytorchs_limit():
    a = mg.tensor([0.0, -0.0, 0.0, 0.0])
    x = mg.tensor([3.0, 3.0, 0.0, float("inf")])
    np.testing.assert_array_equal(S.gammainc(a, x).numpy(), [1.0, 1.0, np.nan, 1.0])   # torch 2.13
    np.testing.assert_array_equal(S.gammaincc(a[:1], x[:1]).numpy(), [0.0])
    xg = mg.tensor([3.0], requires_grad=True)
    S.gammainc(mg.tensor([0.0]), xg).sum().backward()
    assert xg.grad.tolist() == [0.0]
