"""The gradient of ``log`` (``log2``, ``log10``) is ``g / x``, finite at a subnormal ``x`` where
``g`` is as small: entropy's ``t * log(t)`` and ``kl_div``'s target gradient at a subnormal ``t``.

The engine took ``g * (1 / x)``; ``1 / x`` overflows to inf for ``x`` below ~5.6e-309 (float64) or
~2.9e-39 (float32), so ``(t * log(t)).sum().backward()`` at ``t = 2.1e-314`` gave ``inf`` where torch
2.13's is ``log(t) + 1 = -721.26``.  The singular rule stays: a zero upstream gradient at ``x = 0``
gives 0 (``where(t > 0, log(t), 0)``), and the mixed second derivative of ``a * log(b)`` at
``a = 0`` is still ``1 / b``.

Expected values are torch 2.13's (CPU), written in: ``t = torch.tensor(T, dtype=..., requires_grad=True)``,
``(t * torch.log(t)).sum().backward()`` (log2, log10; and ``F.kl_div(full_like(t, -1), t,
reduction='sum')``), then ``t.grad``.
"""

from __future__ import annotations

import numpy as np
import pytest
from elementwise_seams import seam_gradients

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

T = {"float64": [2.121995791e-314, 5.562684646268003e-309, 2.2250738585072014e-308, 0.5],
     "float32": [1e-45, 2.938735877055719e-39, 1.1754943508222875e-38, 0.5]}
TORCH = {
    ("log", "float64"): [-721.259362143463, -708.782712893384, -707.3964185322641, 0.3068528194400547],
    ("log2", "float64"): [-1040.5573049591985, -1022.5573049591111, -1020.5573049591111, 0.4426950408889634],
    ("log10", "float64"): [-313.2389609999798, -307.8204210780135, -307.21836108668555, 0.13326448623927067],
    ("kl_div", "float64"): [-720.259362143463, -707.782712893384, -706.3964185322641, 1.3068528194400546],
    ("log", "float32"): [-102.2789306640625, -87.72283935546875, -86.3365478515625, 0.3068528175354004],
    ("log2", "float32"): [-148.0, -126.55730438232422, -124.55730438232422, 0.4426950216293335],
    ("log10", "float32"): [-44.35346984863281, -38.0975456237793, -37.4954833984375, 0.1332644522190094],
    ("kl_div", "float32"): [-101.2789306640625, -86.72283935546875, -85.3365478515625, 1.3068528175354004],
}
FNS = {
    "log": lambda t: t * mg.log(t),
    "log2": lambda t: t * mg.log2(t),
    "log10": lambda t: t * t.log10(),
    "kl_div": lambda t: mg.nn.functional.kl_div(mg.full_like(t, -1.0), t, reduction="none"),
}
CASES = [(name, dtype, device) for name in FNS for dtype in T for device in ["cpu", "strict", "strict-f32"]
         if not (dtype == "float64" and device == "strict-f32")]


@pytest.mark.parametrize("name, dtype, device", CASES)
def test_every_reverse_seam_gives_pytorchs_finite_gradient(name, dtype, device):
    want = np.array(TORCH[(name, dtype)])
    found = seam_gradients(FNS[name], [T[dtype]], getattr(mg, dtype), device)
    for seam in ("backward", "checkpoint", "func.grad"):
        np.testing.assert_allclose(found[seam][0], want, rtol=1e-6 if dtype == "float32" else 1e-13, err_msg=seam)
    # forward mode pushes the tangent 1 into log first: 1 / t overflows there, in torch 2.13's
    # torch.func.jvp too (inf at the subnormals, the same finite values elsewhere)
    jvp = found["jvp"][0]
    finite = np.isfinite(jvp)
    assert finite[-1] and np.isinf(jvp[~finite]).all()
    np.testing.assert_allclose(jvp[finite], want[finite], rtol=1e-6 if dtype == "float32" else 1e-13)


def test_the_singular_rule_and_second_derivatives_stay():
    t = mg.tensor([0.0, 2.0], requires_grad=True)
    mg.where(t > 0, mg.log(t), 0.0).sum().backward()
    assert t.grad.tolist()[0] == 0.0  # a zero upstream gradient at log's pole stays 0
    a, b = mg.tensor(0.0, requires_grad=True), mg.tensor(4.0, requires_grad=True)
    (gb,) = mg.autograd.grad(a * mg.log(b), b, create_graph=True)
    (gab,) = mg.autograd.grad(gb, a)
    assert gab.item() == 0.25  # d/da d/db [a log b] = 1 / b at a = 0
    x = mg.tensor([0.0, -0.0, 2.0], requires_grad=True)
    mg.log(x).sum().backward()
    assert x.grad.tolist() == [float("inf"), float("-inf"), 0.5]  # 1 / x itself where g is not 0
