"""Three differences from torch 2.13 at extremal inputs (the operator database,
tests/data/operator_extreme_cases.py, holds torch's answers on the CPU and strict devices), through the
other seams here:

* ``F.hardtanh`` and ``F.relu6`` pass the gradient at a NaN input: PyTorch's ``hardtanh_backward`` is 0
  only at and beyond a bound (``x <= min_val || x >= max_val``), where the engine's mask was "strictly
  inside", False at NaN.  ``clamp``'s gradient stays 0 there (PyTorch's ``clamp_backward`` selects inside).
* ``x.renorm(inf, dim, maxnorm)`` scales each slice by its largest ``|x|``: the engine's
  ``sum(|x| ** p) ** (1 / p)`` was ``anything ** 0 = 1`` at ``p = inf``, so nothing was scaled.
* ``F.binary_cross_entropy`` refuses a target outside ``[0, 1]`` (NaN included), as PyTorch's kernel
  ("all elements of target should be between 0 and 1"); the engine checked the input only.
"""

from __future__ import annotations

import math

import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAN = math.nan


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("fn", [lambda x: F.hardtanh(x, -2.0, 2.0), F.relu6, mg.nn.Hardtanh(-2.0, 2.0)],
                         ids=["hardtanh", "relu6", "Hardtanh"])
def test_hardtanh_passes_the_gradient_at_nan(fn, device, dtype):
    x = mg.tensor([NAN, 1.0, -5.0, 7.0], dtype=dtype, device=device, requires_grad=True)
    (g,) = mg.autograd.grad(fn(x), x, mg.ones(4, dtype=dtype, device=device))
    assert g.tolist() == [1.0, 1.0, 0.0, 0.0]
    _, tangent = mg.func.jvp(fn, (x.detach(),), (mg.ones(4, dtype=dtype, device=device),))
    assert tangent.tolist() == [1.0, 1.0, 0.0, 0.0]
    (g,) = mg.autograd.grad(checkpoint(fn, x, use_reentrant=False).sum(), x)
    assert g.tolist() == [1.0, 1.0, 0.0, 0.0]
    h = x * 1.0
    F.hardtanh_(h, -2.0, 2.0)  # in place: the same gradient
    assert mg.autograd.grad(h.sum(), x)[0].tolist() == [1.0, 1.0, 0.0, 0.0]
    # clamp's gradient at NaN stays 0, as PyTorch's
    assert mg.autograd.grad(x.clamp(-2.0, 2.0).sum(), x)[0].tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_renorm_with_the_inf_norm_scales_by_the_largest_entry(device, dtype):
    x = mg.tensor([[3.0, -4.0], [0.5, 0.1]], dtype=dtype, device=device, requires_grad=True)
    y = x.renorm(math.inf, 0, 2.0)  # torch 2.13: [[1.5, -2.0], [0.5, 0.1]] (the scale 2 / (4 + 1e-7))
    assert y[0].tolist() == pytest.approx([1.5, -2.0], rel=1e-6) and y[1].tolist() == pytest.approx([0.5, 0.1])
    (g,) = mg.autograd.grad(y.sum(), x)  # torch 2.13: [[0.5, 0.375], [1, 1]] (through the largest |x| too)
    assert g[0].tolist() == pytest.approx([0.5, 0.375], rel=1e-6) and g[1].tolist() == [1.0, 1.0]
    assert mg.func.grad(lambda t: t.renorm(math.inf, 0, 2.0).sum())(x.detach()).tolist() == g.tolist()


@pytest.mark.parametrize("target", [[1.5, 0.5], [NAN, 0.5], [-0.5, 0.5]])
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_binary_cross_entropy_refuses_a_target_outside_0_1(target, device, dtype):
    p = mg.tensor([0.5, 0.5], dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match="target"):
        F.binary_cross_entropy(p, mg.tensor(target, dtype=dtype, device=device))
    assert F.binary_cross_entropy(p, mg.tensor([1.0, 0.0], dtype=dtype, device=device)).item() == pytest.approx(
        math.log(2))
