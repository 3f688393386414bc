"""``abs`` and ``angle`` of a complex number differentiate at every finite non-zero magnitude.

Their derivatives were built from ``x * x + y * y``, which overflows to inf beyond ``|z|`` of about
1e19 in complex64 (1e154 in complex128) and underflows to 0 below 1e-19 (1e-154): ``abs``'s
gradient came out 0 (or, underflowed, ``z`` itself, read as the origin) where torch 2.13's is
``z / |z|``, and ``sgn = z / |z|``, a composition, moved with a radial tangent.  torch's numbers are
``tests/data/torch_complex_abs_extremes.json`` (``make_torch_complex_abs_extremes.py``).  torch's own
``angle`` gradient is NaN at those points (it squares too); the engine's is ``i z / |z|^2``, checked
against that formula.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD

DATA = json.loads((Path(__file__).with_name("data") / "torch_complex_abs_extremes.json").read_text())
CASES = [("cpu", "complex128"), ("cpu", "complex64"), ("strict", "complex128"), ("strict-f32", "complex64")]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def _complex(pairs, dtype):
    a = np.asarray(pairs)
    return (a[..., 0] + 1j * a[..., 1]).astype(dtype)


def _tol(dtype):
    return {"rtol": 2e-6, "atol": 0} if dtype == "complex64" else {"rtol": 1e-13, "atol": 0}


def _jvp(fn, z, t):
    with fwAD.dual_level():
        return fwAD.unpack_dual(fn(fwAD.make_dual(z, t))).tangent.numpy()


@pytest.mark.parametrize("device, dtype", CASES)
def test_abs_gradient_and_jvp_at_extreme_magnitudes_are_torchs(device, dtype):
    want = DATA[dtype]
    zn = _complex(want["z"], dtype)
    z = mg.tensor(zn, device=device, requires_grad=True)
    mg.abs(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), _complex(want["abs_grad"], dtype), **_tol(dtype))
    zc = mg.tensor(zn, device=device)
    np.testing.assert_allclose(_jvp(mg.abs, zc, zc), want["abs_jvp_radial"], **_tol(dtype))
    # the transforms and checkpointing run the same rule
    np.testing.assert_allclose(mg.func.grad(lambda v: mg.abs(v).sum())(zc).numpy(), z.grad.numpy(), **_tol(dtype))
    np.testing.assert_allclose(mg.func.vmap(mg.func.grad(lambda v: mg.abs(v)))(zc).numpy(), z.grad.numpy(),
                               **_tol(dtype))
    w = mg.tensor(zn, device=device, requires_grad=True)
    mg.checkpoint.checkpoint(lambda v: mg.abs(v * 1).sum(), w).backward()
    np.testing.assert_array_equal(w.grad.numpy(), z.grad.numpy())


@pytest.mark.parametrize("device, dtype", CASES)
def test_sgn_jvp_at_extreme_magnitudes_is_torchs(device, dtype):
    # sgn(z) = z / |z| does not move along z (the radial tangent) and turns with i z
    want = DATA[dtype]
    zn = _complex(want["z"], dtype)
    z = mg.tensor(zn, device=device)
    np.testing.assert_allclose(_jvp(mg.sgn, z, z), _complex(want["sgn_jvp_radial"], dtype), atol=1e-6)
    turning = mg.tensor(zn * 1j, device=device)
    np.testing.assert_allclose(_jvp(mg.sgn, z, turning), _complex(want["sgn_jvp_turning"], dtype), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("device, dtype", CASES)
def test_angle_gradient_and_jvp_at_extreme_magnitudes(device, dtype):
    zn = _complex(DATA[dtype]["z"], dtype)
    wide = zn.astype(np.complex128)
    exact = 1j * (wide / np.abs(wide)) / np.abs(wide)  # i z / |z|^2, not squared (it would over- or underflow)
    z = mg.tensor(zn, device=device, requires_grad=True)
    mg.angle(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), exact, rtol=1e-5 if dtype == "complex64" else 1e-13)
    zc = mg.tensor(zn, device=device)
    turning = _jvp(mg.angle, zc, mg.tensor(zn * 1j, device=device))  # the angle turns at rate 1
    np.testing.assert_allclose(turning, np.ones(len(zn)), rtol=1e-6 if dtype == "complex64" else 1e-14)
    np.testing.assert_allclose(_jvp(mg.angle, zc, zc), np.zeros(len(zn)), atol=1e-6)


def test_second_derivative_of_abs_is_unchanged_in_ordinary_range():
    # d/dz of the gradient z / |z| through create_graph: the Hessian of |z| on R^2 is
    # [[y^2, -xy], [-xy, x^2]] / |z|^3; L = Re(grad) + Im(grad) at z = 3 + 4i
    z = mg.tensor([3 + 4j], dtype="complex128", requires_grad=True)
    (g,) = mg.autograd.grad(mg.abs(z).sum(), [z], create_graph=True)
    (h,) = mg.autograd.grad((g.real + g.imag).sum(), [z])
    x, y, r3 = 3.0, 4.0, 125.0
    np.testing.assert_allclose(h.numpy(), [(y * y - x * y) / r3 + 1j * (x * x - x * y) / r3], rtol=1e-14)
