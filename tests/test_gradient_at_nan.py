"""The gradient of ``abs``, ``l1_loss``, ``elu``/``selu``/``celu`` and ``hardswish`` at a NaN input
is PyTorch's, so a NaN masked out downstream does not reach ``x.grad``.

torch 2.13: ``abs``'s derivative is ``sgn``, 0 at NaN; ELU's and hardswish's take their linear
branch at NaN (derivative 1).  The engine's ``abs`` used NumPy's ``sign`` (NaN at NaN) and the
activations sent the NaN through their exponential/quadratic branch, so
``where(isnan(x), 0, f(x)).sum().backward()`` left NaN in ``x.grad`` where PyTorch leaves 0
(``0 * NaN``), and an unmasked NaN had gradient NaN where PyTorch's is 0 or 1.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F

NAN = float("nan")
X = [1.0, NAN, -2.0, 0.0, -4.0, 3.5]

# torch 2.13's gradients: (masked by where(isnan(x), 0, f(x)), unmasked), of .sum()
CASES = {
    "abs": (lambda x: x.abs(), [1.0, 0.0, -1.0, 0.0, -1.0, 1.0], [1.0, 0.0, -1.0, 0.0, -1.0, 1.0]),
    "l1_loss": (lambda x: F.l1_loss(x, mg.zeros_like(x), reduction="none"),
                [1.0, 0.0, -1.0, 0.0, -1.0, 1.0], [1.0, 0.0, -1.0, 0.0, -1.0, 1.0]),
    "elu": (lambda x: F.elu(x), [1.0, 0.0, 0.13533528, 1.0, 0.01831564, 1.0],
            [1.0, 1.0, 0.13533528, 1.0, 0.01831564, 1.0]),
    "selu": (lambda x: F.selu(x), [1.050701, 0.0, 0.23793286, 1.7580993, 0.03220071, 1.050701],
             [1.050701, 1.050701, 0.23793286, 1.7580993, 0.03220071, 1.050701]),
    "celu": (lambda x: F.celu(x, 2.0), [1.0, 0.0, 0.36787945, 1.0, 0.13533528, 1.0],
             [1.0, 1.0, 0.36787945, 1.0, 0.13533528, 1.0]),
    "hardswish": (lambda x: F.hardswish(x), [0.8333334, 0.0, -0.16666669, 0.5, 0.0, 1.0],
                  [0.8333334, 1.0, -0.16666669, 0.5, 0.0, 1.0]),
}


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_masked_nan_leaves_no_nan_in_the_gradient(name, device):
    f, masked, _ = CASES[name]
    x = mg.tensor(X, device=device, requires_grad=True)
    mg.where(mg.isnan(x), 0.0, f(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), masked, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_gradient_at_nan_itself_is_pytorchs(name):
    f, _, unmasked = CASES[name]
    x = mg.tensor(X, requires_grad=True)
    f(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), unmasked, rtol=1e-5)
    assert x.grad.dtype == mg.float32


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_mode_and_checkpointing_agree(name):
    f, _, unmasked = CASES[name]
    _, tangent = mg.func.jvp(lambda t: f(t).sum(), (mg.tensor(X),), (mg.ones(6),))
    np.testing.assert_allclose(tangent.item(), np.sum(unmasked), rtol=1e-5)
    x = mg.tensor(X, requires_grad=True)
    ck.checkpoint(lambda t: mg.where(mg.isnan(t), 0.0, f(t)), x).sum().backward()
    assert not np.isnan(x.grad.numpy()).any()


def test_abs_keeps_its_subgradient_elsewhere_and_its_second_derivative():
    x = mg.tensor([-2.0, 0.0, 3.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(x.abs().sum(), x, create_graph=True)
    assert g.tolist() == [-1.0, 0.0, 1.0] and g.dtype == mg.float64
    assert mg.func.grad(lambda t: mg.func.grad(lambda u: (u.abs() * u).sum())(t).sum())(x).tolist() == [-2.0, 0.0, 2.0]
