"""Losses and distances of a float input beside an integer target compute in PyTorch's promoted
dtype, and ``kl_div`` of a negative target is NaN, as PyTorch's.

torch 2.13: ``F.mse_loss``/``l1_loss``/``smooth_l1_loss``/``huber_loss`` and
``F.cosine_similarity`` of a float32 input and an int64 target are float32 (``torch.result_type``);
the engine answered float64 (NumPy's promotion).  ``cosine_similarity`` of two integer tensors is
PyTorch's RuntimeError (the engine answered float64).  ``F.kl_div`` with a negative target entry is
NaN there (``xlogy(t, t)`` of a negative ``t``); the engine treated it as a zero target and answered
a finite number.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn import functional as F

X = [[1.5, -2.5, 0.5], [3.0, -0.0, 2.0]]
T = [[2, 0, -1], [0, 3, -2]]


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("name, expected", [           # torch 2.13's values
    ("mse_loss", 7.125), ("l1_loss", 2.4166667), ("smooth_l1_loss", 1.9375), ("huber_loss", 1.9375),
])
def test_a_float32_loss_against_an_integer_target_is_float32(name, expected, device):
    x = mg.tensor(X, device=device, requires_grad=True)
    loss = getattr(F, name)(x, mg.tensor(T, device=device))
    assert loss.dtype == mg.float32 and loss.item() == pytest.approx(expected, rel=1e-6)
    loss.backward()
    assert x.grad.dtype == mg.float32


def test_the_gradient_against_an_integer_target_is_pytorchs():
    x = mg.tensor(X, requires_grad=True)
    F.l1_loss(x, mg.tensor(T)).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.array([[-1, -1, 1], [1, -1, 1]]) / 6, rtol=1e-6)
    assert F.mse_loss(x, mg.tensor(T, dtype=mg.float64)).dtype == mg.float64   # float64 still wins


def test_cosine_similarity_promotes_as_pytorch_and_refuses_two_integer_tensors():
    x = mg.tensor(X)
    out = F.cosine_similarity(x, mg.tensor(T))
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), [0.37796444, -0.30769232], rtol=1e-6)
    assert mg.cosine_similarity(x, x.double()).dtype == mg.float64
    with pytest.raises(RuntimeError, match="common dtype to be floating point"):
        F.cosine_similarity(mg.tensor(T), mg.tensor(T))


def test_kl_div_of_a_negative_target_is_nan_and_of_a_zero_target_is_its_xlogy():
    x = mg.tensor(X, requires_grad=True)
    t = mg.tensor([[2.0, 0.5, -1.0], [0.0, 3.0, -2.0]])
    out = F.kl_div(x, t, reduction="none")
    np.testing.assert_allclose(out.detach().numpy(), [[-1.6137056, 0.9034264, np.nan], [0.0, 3.295837, np.nan]],
                               rtol=1e-6, equal_nan=True)
    assert np.isnan(F.kl_div(x, t).item())
    F.kl_div(x, mg.tensor([[2.0, 0.5, 1.0], [0.0, 3.0, 2.0]]), reduction="sum").backward()
    assert x.grad.tolist() == [[-2.0, -0.5, -1.0], [-0.0, -3.0, -2.0]]


# torch 2.13 on 0-d inputs (each one element, the vector of one): dims 0 and -1 are theirs, dim 1 is not
ZERO_D = [  # (x1, x2, dim, value, d value / d x1)
    (3.0, -2.0, -1, -1.0, 0.0),
    (3.0, -2.0, 0, -1.0, 0.0),
    (0.0, 2.0, -1, 0.0, 1e8),
    (1e-10, 1e-10, 0, 1e-4, None),  # both norms below eps: PyTorch's clamp, 1e-20 / 1e-16
    (1e-10, 2.0, 0, 0.01, 9.9e7),  # the clamped norm still passes its gradient
    (float("nan"), 2.0, 0, float("nan"), None),
]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
@pytest.mark.parametrize("x1, x2, dim, value, grad", ZERO_D)
def test_cosine_similarity_of_zero_d_inputs_is_pytorchs(x1, x2, dim, value, grad, device, dtype):
    # the engine raised DimensionOutOfRange for dim=-1 and dim=0 (its p-norm refused a 0-d input)
    a = mg.tensor(x1, dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor(x2, dtype=dtype, device=device)
    out = F.cosine_similarity(a, b, dim=dim)
    assert out.shape == () and out.dtype == dtype
    np.testing.assert_allclose(out.item(), value, rtol=1e-6)
    assert mg.nn.CosineSimilarity(dim=dim)(a, b).shape == ()
    if grad is not None:
        (g,) = mg.grad(out, [a])
        np.testing.assert_allclose(g.item(), grad, rtol=1e-5)
    with pytest.raises(IndexError, match=r"\[-1, 0\], but got 1"):
        F.cosine_similarity(a, b)  # PyTorch's default dim=1 is past a 0-d tensor's one dim


def test_cosine_similarity_of_a_zero_d_and_a_vector_broadcasts_first():
    # torch 2.13: F.cosine_similarity(tensor(3.), tensor([1., -2.]), dim=-1) -> tensor(-0.3162278)
    out = F.cosine_similarity(mg.tensor(3.0), mg.tensor([1.0, -2.0]), dim=-1)
    assert out.shape == ()
    np.testing.assert_allclose(out.item(), -0.31622776601683794, rtol=1e-7)
