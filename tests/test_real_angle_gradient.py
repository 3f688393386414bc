"""``angle`` of a real tensor that requires grad is recorded with gradient 0, as PyTorch's: pi where
negative, NaN at NaN, 0 elsewhere (``-0.0`` included, where NumPy's ``angle`` gives pi).  It raised
"does not require grad" at backward.  Values and gradients are torch 2.13's, written here."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

VALUES = [-2.0, -0.0, 0.0, 3.0, math.nan, -math.inf, math.inf]
TORCH_ANGLE = [math.pi, 0.0, 0.0, 0.0, math.nan, math.pi, 0.0]  # torch.angle(torch.tensor(VALUES))


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_the_value_is_pytorchs_and_the_gradient_is_zero(device, dtype):
    x = mg.tensor(VALUES, dtype=dtype, device=device, requires_grad=True)
    y = mg.angle(x)
    assert y.requires_grad and y.dtype == x.dtype
    np.testing.assert_array_equal(y.detach().numpy(), np.array(TORCH_ANGLE, dtype=dtype))
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * len(VALUES)


def test_the_method_forward_mode_transforms_and_checkpoint_agree():
    x = mg.tensor([-1.5, 2.0], dtype="float64", requires_grad=True)
    assert mg.func.grad(lambda t: (t * t.angle()).sum())(x).tolist() == [math.pi, 0.0]  # d(t * angle)/dt
    _, tangent = mg.func.jvp(mg.angle, (mg.tensor([-1.0, 1.0]),), (mg.ones(2),))
    assert tangent.tolist() == [0.0, 0.0]
    out = mg.checkpoint.checkpoint(lambda t: (t * mg.angle(t)).sum(), x)
    out.backward()
    assert x.grad.tolist() == [math.pi, 0.0]


def test_integers_still_give_the_default_float_and_complex_numbers_their_phase():
    assert mg.angle(mg.tensor([-1, 2])).dtype == mg.get_default_dtype()
    z = mg.tensor([1j, -1.0 + 0j], requires_grad=True)
    mg.angle(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [-1.0 + 0j, 0.0 - 1.0j], atol=1e-7)  # torch 2.13's
