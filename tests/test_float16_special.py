"""float16 special functions compute in float32 and round once, as PyTorch's half kernels.

Evaluated in float16 itself, their coefficients, powers and continued fractions overflowed
(65504) or cancelled: ``erf(10)``, ``lgamma(0.5)``, ``gammainc(2, 2.5)``, ``i0e(20)`` were NaN,
``i0e(12)`` inf, ``digamma(1)`` -0.574, ``gelu(-3)`` 8% off, ``sinc(1)`` 3e-4 for 0; torch 2.13 gives
the float32 value rounded to float16.  The kernels (``xp.erf``, ``xp.gammaln``, ...) widen a
float16 argument (``backend.half_in_float32``), so the derivatives that call them follow.

Compositions PyTorch computes in one half kernel (``lerp``, ``addcmul``, ``addcdiv``, ``renorm``,
``trapezoid``, ``round(decimals=)``, ``binary_cross_entropy_with_logits``) ran step by step in
float16: ``lerp(65504, -65504, 0.5)`` was inf (torch: 0), ``addcmul(-65504, 300, 301)`` inf (24800),
``renorm`` zeroed rows whose squared norm overflowed, the logits loss's gradient was 2% off; they
now compute in float32 too (``arguments.in_float32_if_half``).

``i0e``'s and ``i1e``'s gradients (``i1e - i0e``, which cancels for large ``x``) are not compared.

Expected values: torch 2.13 (``tests/data/make_torch_float16_special.py`` writes
``tests/data/torch_float16_special.json``; the calls are in ``float16_special_cases.py``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from float16_special_cases import CASES, COMPOSITIONS  # noqa: E402

TORCH = json.loads((DATA / "torch_float16_special.json").read_text())


def _want(values: list) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values])


def _close(got, want, rtol=2e-3) -> None:
    # float16 rounds to 2^-11 relative: two roundings (torch's float32 kernel and ours differ)
    np.testing.assert_allclose(got.detach().cpu().numpy().astype(np.float64).ravel(), want, rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("name", sorted(CASES) + sorted(COMPOSITIONS))
def test_values_and_gradients_are_pytorchs(name, device):
    call, args, wrt = {**CASES, **COMPOSITIONS}[name]
    expected = TORCH[name]
    xs = [mg.tensor(np.asarray(a, dtype=np.float16), device=device, requires_grad=(i == wrt))
          for i, a in enumerate(args)]
    y = call(mg, *xs)
    assert y.dtype == mg.float16
    _close(y, _want(expected["value"]))
    if "grad" in expected:
        g = mg.linspace(0.5, 1.5, y.numel(), dtype=mg.float16, device=device).reshape(y.shape)
        (y * g).sum().backward()
        assert xs[wrt].grad.dtype == mg.float16
        # the derivative rounds to float16, then the product with g and the sum: a few roundings
        _close(xs[wrt].grad, _want(expected["grad"]), rtol=4e-3)


@pytest.mark.parametrize("name", ["erf", "lgamma", "gelu", "sinc"])
def test_forward_mode_matches_the_gradient(name):
    call, args, _ = CASES[name]
    x = mg.tensor(np.asarray(args[0], dtype=np.float16))
    _, tangent = mg.func.jvp(lambda v: call(mg, v), (x,), (mg.ones_like(x),))
    g = mg.func.grad(lambda v: call(mg, v).sum())(x)
    assert tangent.dtype == mg.float16
    np.testing.assert_allclose(tangent.numpy().astype(np.float64), g.numpy().astype(np.float64), rtol=2e-3)


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@pytest.mark.parametrize("name", ["lerp", "addcmul", "renorm"])
def test_compositions_in_forward_mode_and_under_checkpoint(name):
    call, args, wrt = COMPOSITIONS[name]
    xs = [mg.tensor(np.asarray(a, dtype=np.float16)) for a in args]
    f = lambda v: call(mg, *xs[:wrt], v, *xs[wrt + 1:])  # noqa: E731
    value, tangent = mg.func.jvp(f, (xs[wrt],), (mg.ones_like(xs[wrt]),))
    assert value.dtype == tangent.dtype == mg.float16
    _close(value, _want(TORCH[name]["value"]))
    leaf = xs[wrt].detach().requires_grad_()
    out = mg.checkpoint.checkpoint(f, leaf, use_reentrant=False)
    (out * mg.linspace(0.5, 1.5, out.numel(), dtype=mg.float16).reshape(out.shape)).sum().backward()
    _close(leaf.grad, _want(TORCH[name]["grad"]), rtol=4e-3)


def test_a_float16_kernel_call_leaves_other_dtypes_alone():
    x = np.array([0.5, 10.0])
    assert mg.special.gammaln(mg.tensor(x, dtype=mg.float32)).dtype == mg.float32
    assert mg.special.gammaln(mg.tensor(x)).dtype == mg.float64
    # a float16 beside a float32 tensor promotes to float32: no rounding to float16
    half, single = mg.tensor([1.0, 2.0], dtype=mg.float16), mg.tensor([1.0, 3.0], dtype=mg.float32)
    with pytest.raises(RuntimeError, match="expected dtype float16 for `end`"):  # PyTorch's lerp takes one dtype
        mg.lerp(half, single, 0.5)
    assert mg.addcmul(half, half, single).dtype == mg.float32
