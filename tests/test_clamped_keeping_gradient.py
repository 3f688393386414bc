"""A value clamped below at ``eps`` for the forward only -- ``gaussian_nll_loss``'s variance,
``cosine_similarity``'s norms, which PyTorch clamps in place under ``no_grad`` -- stays inf at inf: the
engine's ``max(x, eps).detach() + (x - x.detach())`` was ``inf - inf``, NaN.  torch 2.13:
``gaussian_nll_loss`` of an infinite variance is inf with gradients 0; ``cosine_similarity`` of vectors
whose norm overflows is 0.  The operator database at extremal inputs (tests/data/operator_extreme_cases.py)
holds torch 2.13's answers for the CPU and strict devices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

INF = math.inf


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_an_infinite_variance_gives_an_infinite_loss_and_zero_gradients(device, dtype):
    # torch 2.13: gaussian_nll_loss([2., 1.], [0., 0.], var=[inf, 1.], reduction='none') = [inf, 0.5]; d/dx
    # = [0, 1], d/dvar = [0, 0]; a var below eps still passes its gradient (the clamp is for the value)
    x = mg.tensor([2.0, 1.0, 1.0], dtype=dtype, device=device, requires_grad=True)
    v = mg.tensor([INF, 1.0, 0.0], dtype=dtype, device=device, requires_grad=True)
    loss = F.gaussian_nll_loss(x, mg.zeros(3, dtype=dtype, device=device), v, reduction="none")
    assert loss[0].item() == INF and loss[1].item() == 0.5
    gx, gv = mg.autograd.grad(loss.sum(), (x, v))
    assert gx[:2].tolist() == [0.0, 1.0] and gv[:2].tolist() == [0.0, 0.0]
    assert gv[2].item() == pytest.approx(0.5 / 1e-6 - 0.5 / 1e-12, rel=1e-3)


def test_cosine_similarity_of_norms_past_the_range_is_zero_as_pytorchs():
    a = mg.tensor([[3e38, 3e38]])
    assert F.cosine_similarity(a, a).tolist() == [0.0]  # torch 2.13: 0 (x / norm, the norm inf); was NaN
    small = mg.tensor([[1e-20, 0.0]], requires_grad=True)  # below eps the norm's gradient still passes
    (g,) = mg.autograd.grad(F.cosine_similarity(small, mg.tensor([[1.0, 1.0]])).sum(), small)
    assert np.isfinite(g.numpy()).all()

