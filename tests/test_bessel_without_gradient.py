"""``mg.special.spherical_bessel_j0``, ``modified_bessel_i0``, ``modified_bessel_i1`` against PyTorch
2.13's values (``tests/data/make_torch_bessel.py``): edges (0, subnormal, the series' switch at 0.5,
overflow, huge, +-inf, NaN) and random points of every scale, float32 and float64, on cpu and the
strict devices; integer input in the default float dtype; no gradient, as PyTorch's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import bessel
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = np.load(Path(__file__).parent / "data" / "torch_bessel.npz")
NAMES = ["spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1", "bessel_j0", "bessel_j1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "bessel_y0", "bessel_y1", "airy_ai"]
DEVICES = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _within_ulps(got: np.ndarray, want: np.ndarray, dtype: str, ulps: float, x: np.ndarray | None = None) -> np.ndarray:
    """Within ``ulps`` ulp of ``want``; for the oscillating J's (``x`` given) within ``(ulps + |x|)``
    eps absolutely: near their zeros only an absolute error is meaningful, and PyTorch's ``x - pi/4``
    rounds by an ulp of ``x`` (the engine's ``cos x``, ``sin x`` do not)."""
    info = np.finfo(dtype)
    scale = np.maximum(np.abs(want), info.tiny) if x is None else (1 + np.abs(x)) * np.maximum(np.abs(want), 1)
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.abs(got - want) <= ulps * info.eps * scale
    return (got == want) | (np.isnan(got) & np.isnan(want)) | near


#: ulps allowed: I0 and I1 are mg.special.i0/i1's kernels, within ~7.5 ulp of the exact value where
#: PyTorch's Cephes series is within 1 (float64, I1(16.39)); in float32 each is the nearer one in places
ULPS = {"spherical_bessel_j0": 2, "modified_bessel_i0": 8, "modified_bessel_i1": 8, "bessel_j0": 4, "bessel_j1": 4,
        "modified_bessel_k0": 4, "modified_bessel_k1": 4,
        "scaled_modified_bessel_k0": 4, "scaled_modified_bessel_k1": 4, "bessel_y0": 4, "bessel_y1": 4,
        "airy_ai": 16}
#: at +-inf the limits, where PyTorch's modified_bessel_i0/_i1 give NaN (docs/from-pytorch.md)
AT_INF = {"spherical_bessel_j0": (0.0, 0.0), "modified_bessel_i0": (np.inf, np.inf),
          "modified_bessel_i1": (np.inf, -np.inf), "bessel_j0": (0.0, 0.0), "bessel_j1": (0.0, 0.0),
          **{k: (0.0, np.nan) for k in NAMES if "bessel_k" in k or "bessel_y" in k}, "airy_ai": (0.0, 0.0)}


def _within_airy(got: np.ndarray, want: np.ndarray, x: np.ndarray, dtype: str, ulps: float) -> np.ndarray:
    """Within ``ulps (1 + |x|^(3/2))`` eps of ``max(|Ai|, its amplitude 1/(sqrt(pi) |x|^(1/4)) below 0)``; NaN
    where the phase is lost (|x| > 1e8, stored as NaN) is skipped."""
    eps, ax = np.finfo(dtype).eps, np.abs(x.astype(np.float64))
    amplitude = np.where(x < 0, 1 / (np.sqrt(np.pi) * np.maximum(ax, 1) ** 0.25), 0)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.maximum(np.abs(want), amplitude) * (1 + ax**1.5)
        near = np.abs(got - want) <= ulps * eps * np.maximum(scale, np.finfo(dtype).tiny)
    return near | (got == want) | np.isnan(want)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_values_match_pytorch_to_a_few_ulp(name, device, dtype):
    x, want = DATA[f"x_{dtype}"], DATA[f"{name}_{dtype}"]
    got = getattr(mg.special, name)(mg.tensor(x, device=device))
    assert got.dtype == getattr(mg, dtype) and not got.requires_grad
    got = got.numpy()
    finite = ~np.isinf(x)
    oscillating = None
    if name.startswith(("bessel_j", "bessel_y")):  # against the exact values: PyTorch's J0 is 35 ulp off at 2
        oscillating, want = x[finite], DATA[f"exact_{name}_{dtype}"]
    if name == "airy_ai":  # against the exact values, within Ai's conditioning |x|^(3/2) (oscillation: its amplitude)
        want = DATA[f"exact_{name}_{dtype}"]
        ok = _within_airy(got[finite], want[finite], x[finite], dtype, ULPS[name])
        assert ok.all(), [(x[finite][i], got[finite][i], want[finite][i]) for i in np.nonzero(~ok)[0][:5]]
        return
    if "bessel_k" in name:  # against the exact values too (mpmath's; PyTorch's K0 is inf, K1 NaN at 5e-324)
        want = DATA[f"exact_{name}_{dtype}"]
    ok = _within_ulps(got[finite], want[finite], dtype, ULPS[name], oscillating)
    assert ok.all(), [(x[finite][i], got[finite][i], want[finite][i]) for i in np.nonzero(~ok)[0][:5]]
    np.testing.assert_array_equal(got[x == np.inf], AT_INF[name][0])
    np.testing.assert_array_equal(got[x == -np.inf], AT_INF[name][1])


def test_the_op_reference_agrees_with_pytorch():
    """``SphericalBesselJ0``'s host reference (``math.sin(x) / x``); the modified ones reuse
    ``I0``/``I1``'s references, checked with those ops."""
    x = DATA["x_float64"]
    with np.errstate(all="ignore"):
        got = bessel.SphericalBesselJ0().reference(np, x)
    assert _within_ulps(got, DATA["spherical_bessel_j0_float64"], "float64", 2).all()


@pytest.mark.parametrize("name", NAMES)
def test_integer_input_and_no_gradient_as_pytorch(name):
    got = getattr(mg.special, name)(mg.tensor([1, 2]))
    assert got.dtype == mg.float32
    x = mg.tensor([0.3, 2.0], dtype=mg.float64, requires_grad=True)
    y = getattr(mg.special, name)(x)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError):
        y.sum().backward()


@pytest.mark.parametrize("cls", [bessel.BesselJ0, bessel.BesselJ1])
def test_the_j_references_agree_with_the_exact_values(cls):
    """Bessel's integral by the trapezoid rule (Hankel's expansion beyond 1e4), a method of its own."""
    x = DATA["x_float64"]
    finite = np.isfinite(x)
    got = cls().reference(np, x[finite])
    assert _within_ulps(got, DATA[f"exact_{cls.fn}_float64"][finite], "float64", 16, x[finite]).all()


@pytest.mark.parametrize("cls", [bessel.ModifiedBesselK0, bessel.ModifiedBesselK1, bessel.ScaledModifiedBesselK0,
                                 bessel.ScaledModifiedBesselK1])
def test_the_k_references_agree_with_the_exact_values(cls):
    """The integral by the trapezoid rule everywhere (the kernel uses it only between 1 and 25)."""
    x = DATA["x_float64"]
    keep = np.isfinite(x) & (np.abs(x) > 1e-3) & (np.abs(x) < 700)
    got = cls().reference(np, x[keep])
    assert _within_ulps(got, DATA[f"exact_{cls.fn}_float64"][keep], "float64", 64).all()


@pytest.mark.parametrize("cls", [bessel.BesselY0, bessel.BesselY1])
def test_the_y_references_agree_with_the_exact_values(cls):
    """The series in exact rational arithmetic (x <= 50): a method of its own."""
    x = DATA["x_float64"]
    keep = (x > 0) & (x <= 50)
    got = cls().reference(np, x[keep])
    assert _within_ulps(got, DATA[f"exact_{cls.fn}_float64"][keep], "float64", 8, x[keep]).all()


def test_the_airy_reference_agrees_with_the_exact_values():
    """The Maclaurin series in exact rational arithmetic (|x| <= 2): a method of its own."""
    x = DATA["x_float64"]
    keep = np.abs(x) <= 2
    got = bessel.AiryAi().reference(np, x[keep])
    assert _within_airy(got, DATA["exact_airy_ai_float64"][keep], x[keep], "float64", 4).all()
