"""A ``GradScaler`` whose scale has reached 0 goes on as torch 2.13's does instead of stopping the
run with a ``ZeroDivisionError``.

The scale reaches 0 by backing off past float32's smallest subnormal (``2**-149 * 0.5``: after some
165 skipped steps from 65536, a loss that overflows or is NaN for that long) or by
``update(new_scale=0.0)``.  ``unscale_`` divided by it in Python (``1.0 / scale``) and raised.
PyTorch takes the reciprocal as a float32 tensor: ``inf`` (``-inf`` for ``-0.0``), and multiplies
the gradients by it.  Its inf check reads the *scaled* gradients, which are finite (zeros), so the
step is not skipped and its gradients are ``0 * inf = NaN`` -- a surprising outcome, but
PyTorch's, recorded here from torch 2.13 (torch is not imported):

    s = torch.amp.GradScaler("cpu", init_scale=2.0**-149)   # one back-off: scale 0.0
    ... p.grad after s.unscale_(opt): tensor([nan, nan, nan]); s.step(opt) is not skipped
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)


def _backed_off_to_zero(device):
    p = mg.nn.Parameter(mg.zeros(3, device=device))
    opt = mg.optim.SGD([p], lr=1.0)
    scaler = mg.amp.GradScaler("cpu", init_scale=2.0 ** -149, backoff_factor=0.5)
    scaler.scale(p.sum()).backward()
    p.grad.fill_(float("inf"))
    assert scaler.step(opt) is None  # skipped
    scaler.update()
    opt.zero_grad()
    return p, opt, scaler


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_scale_backed_off_to_zero_unscales_by_its_infinite_reciprocal(device):
    p, opt, scaler = _backed_off_to_zero(device)
    assert scaler.get_scale() == 0.0
    scaled = scaler.scale(p.sum())
    assert scaled.item() == 0.0
    scaled.backward()
    scaler.unscale_(opt)  # was ZeroDivisionError
    assert all(math.isnan(g) for g in p.grad.tolist())
    scaler.step(opt)  # not skipped: the scaled gradients were finite, as PyTorch checks them
    scaler.update()
    assert all(math.isnan(v) for v in p.detach().tolist())
    assert scaler.get_scale() == 0.0  # growth keeps 0 * factor = 0


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_skipped_step_at_a_zero_scale_is_still_skipped(device):
    p, opt, scaler = _backed_off_to_zero(device)
    scaler.scale(p.sum()).backward()
    p.grad.fill_(float("nan"))
    assert scaler.step(opt) is None
    scaler.update()
    assert p.detach().tolist() == [0.0, 0.0, 0.0] and scaler.get_scale() == 0.0


@pytest.mark.parametrize("zero, inf", [(0.0, math.inf), (-0.0, -math.inf)])
def test_a_zero_scale_set_by_update_unscales_by_a_signed_infinity(zero, inf):
    p = mg.nn.Parameter(mg.zeros(1))
    opt = mg.optim.SGD([p], lr=1.0)
    scaler = mg.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale(p.sum()).backward()
    scaler.step(opt)
    scaler.update(zero)
    opt.zero_grad()
    scaler.scale(p.sum() + 1.0).backward()
    p.grad.fill_(2.0)
    scaler.unscale_(opt)
    assert p.grad.tolist() == [inf]
