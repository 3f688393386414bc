"""``logit``'s gradient, bit for bit as PyTorch 2.13's ``logit_backward``.

``logit(p, eps)`` selects: where ``p`` is clamped to ``[eps, 1 - eps]`` the gradient is +0.0 whatever
arrives (the engine multiplied the gradient by the derivative 0, so an infinite or NaN one gave NaN and a
negative one -0.0).  Elsewhere, and for ``logit(p)``, the gradient is ``g / (p (1 - p))``, a quotient (the
engine multiplied ``g`` by the reciprocal, a unit off for about half the values).  Both modes, the
strict devices, ``mg.checkpoint``.  The numbers are torch 2.13's (CPU), pasted.
"""

from __future__ import annotations

import math

import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

INF, NAN = math.inf, math.nan
P = [-1.0, 0.0, 0.1, 0.3, 0.5, 0.8, 1.0, 2.0, INF, -INF]
UPSTREAM = [INF, -0.5, NAN, -INF, 2.0, -0.5, INF, -1.0, NAN, -2.0]
# torch.autograd.grad(torch.logit(p, eps=eps), p, upstream) -- the same in float32 and float64 but for 0.8
TORCH = {
    0.25: [0.0, 0.0, 0.0, -INF, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    0.0: [0.0, -INF, NAN, -INF, 8.0, -3.125, INF, 0.0, 0.0, 0.0],
}
TORCH_AT_08_FLOAT64 = -3.1250000000000004


def _bits(values: list[float]) -> list[tuple[bool, object]]:
    return [(math.copysign(1, v) < 0, v) if v == v else (False, "nan") for v in values]


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("eps", [0.25, 0.0])
def test_clamped_logit_selects_zero_where_p_is_clamped(eps, device, dtype):
    expected = list(TORCH[eps])
    if eps == 0.0 and dtype == mg.float64:
        expected[5] = TORCH_AT_08_FLOAT64
    p = mg.tensor(P, dtype=dtype, device=device, requires_grad=True)
    upstream = mg.tensor(UPSTREAM, dtype=dtype, device=device)
    (g,) = mg.autograd.grad(mg.logit(p, eps=eps), p, upstream)
    assert _bits(g.tolist()) == _bits(expected)
    (g,) = mg.autograd.grad((checkpoint(lambda t: t.logit(eps), p, use_reentrant=False) * upstream).sum(), p)
    assert _bits(g.tolist()) == _bits(expected)
    _, tangent = mg.func.jvp(lambda t: mg.special.logit(t, eps), (p.detach(),), (upstream,))
    assert _bits(tangent.tolist()) == _bits(expected)


def test_clamped_logit_second_derivative_is_zero_where_clamped():
    # torch: d/dp of grad(logit(p, 0.25), p, create_graph=True) at [0.1, 0.5, 0.8] is [0, 0, 0] and at
    # 0.3 (2p - 1) / (p (1 - p))^2 = -9.070294784580499
    p = mg.tensor([0.1, 0.3, 0.5, 0.9], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.logit(p, eps=0.25).sum(), p, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), p)
    assert h.tolist()[0] == 0.0 and h.tolist()[2] == 0.0 and h.tolist()[3] == 0.0
    assert h.tolist()[1] == pytest.approx(-9.070294784580499, rel=1e-14)


# p and g where g / (p (1 - p)) and g * (1 / (p (1 - p))) round apart, with torch's quotient
QUOTIENTS = {
    mg.float64: ([0.4182792227322451, 0.5343289818973503, 0.4128016878024163, 0.9326634798211147],
                 [1.0121208308087115, 1.1483877662192041, 1.4451339847106737, 0.8796375340347722],
                 [4.1595992886515685, 4.615307235464069, 5.961861070066075, 14.006451176824024]),
    mg.float32: ([0.510639488697052, 0.9037845134735107, 0.5343289971351624, 0.34675854444503784],
                 [0.5653126835823059, -0.9596102237701416, 1.1483877897262573, -1.2335349321365356],
                 [2.262275218963623, -11.035321235656738, 4.615307331085205, -5.445660591125488]),
}


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_logit_gradient_is_pytorchs_quotient(device, dtype):
    p_values, g_values, expected = QUOTIENTS[dtype]
    p = mg.tensor(p_values, dtype=dtype, device=device, requires_grad=True)
    upstream = mg.tensor(g_values, dtype=dtype, device=device)
    (g,) = mg.autograd.grad(p.logit(), p, upstream)
    assert g.tolist() == expected
    _, tangent = mg.func.jvp(mg.logit, (p.detach(),), (upstream,))
    assert tangent.tolist() == expected
    (g,) = mg.autograd.grad(mg.logit(p, eps=0.01), p, upstream)  # inside the clamp: the same quotient
    assert g.tolist() == expected
