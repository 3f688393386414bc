"""The operators beyond NumPy's keep float32 float32: each runs forward and backward on the
``"strict-f32"`` stand-in device, where any float64 array (a hidden upcast: a constant, a
position computed in double) is an error, and any implicit host round trip too."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

dev = "strict-f32"
rng = np.random.default_rng(0)


def T(a, grad=True):
    a = np.asarray(a)
    a = a.astype(np.float32) if a.dtype.kind == "f" else a
    return mg.tensor(a, device=dev, requires_grad=grad and a.dtype.kind == "f")


x = T(rng.standard_normal((3, 4)))
s = T(rng.standard_normal((5, 4)))
i = T(rng.integers(0, 3, (5, 4)))
v = T(rng.standard_normal(4))
m = T(rng.standard_normal((3, 4)) > 0)
CALLS = {
    "gather": lambda: mg.gather(x, 0, i[:2]),
    "scatter": lambda: mg.scatter(x, 0, i, s),
    "scatter_value": lambda: mg.scatter(x, 0, i, value=2.0),
    "scatter_add": lambda: mg.scatter_add(x, 0, i, s),
    **{f"scatter_reduce_{r}":
        (lambda r=r: mg.scatter_reduce(x, 0, i, s, r)) for r in ("sum","prod","mean","amax","amin")},
    "index_add": lambda: mg.index_add(x, 0, T(np.array([0, 2])), s[:2]),
    "index_copy": lambda: mg.index_copy(x, 0, T(np.array([0, 2])), s[:2]),
    "index_fill": lambda: mg.index_fill(x, 1, T(np.array([0])), 1.5),
    "index_put": lambda: mg.index_put(x, (T(np.array([0,1])),), v, accumulate=True),
    "masked_select": lambda: mg.masked_select(x, m),
    "masked_scatter": lambda: mg.masked_scatter(x, m, s),
    "put": lambda: mg.put(x, T(np.array([1, 2])), v[:2]),
    "kthvalue": lambda: mg.kthvalue(x, 2).values,
    "median": lambda: mg.median(x, 1),
    "median_dim": lambda: mg.median(x, dim=1).values,
    "nanmedian": lambda: mg.nanmedian(x, dim=0).values,
    "quantile": lambda: mg.quantile(x, [0.2, 0.5], dim=1),
    "nanquantile": lambda: mg.nanquantile(x, 0.3),
    "mode": lambda: mg.mode(x).values,
    "cummax": lambda: mg.cummax(x, 1).values,
    "logcumsumexp": lambda: mg.logcumsumexp(x, 1),
    "histc": lambda: mg.histc(x),
    "bincount": lambda: mg.bincount(T(np.array([0, 1, 1])), v[:3]),
    "rsqrt": lambda: mg.rsqrt(x * x + 1),
    "nan_to_num": lambda: mg.nan_to_num(x),
    "floordiv": lambda: x // 0.3,
    "rfloordiv": lambda: 2.0 // x,
    "copysign": lambda: mg.copysign(x, -1.0),
    "fmax": lambda: mg.fmax(x, v),
    "heaviside": lambda: mg.heaviside(x, 0.5),
    "lerp": lambda: mg.lerp(x, v, 0.3),
    "frac": lambda: mg.frac(x),
    "deg2rad": lambda: mg.deg2rad(x),
    "ldexp": lambda: mg.ldexp(x, T(np.array([1, 2, 3, 4]))),
    "nextafter": lambda: mg.nextafter(x, v),
    "logit": lambda: mg.logit(mg.sigmoid(x), eps=0.1),
    "xlogy": lambda: mg.xlogy(x, x * x + 1),
    "nansum": lambda: mg.nansum(x, dim=1),
    "nanmean": lambda: mg.nanmean(x, 0),
    "aminmax": lambda: mg.aminmax(x, dim=1).min,
    "var_mean": lambda: mg.var_mean(x, 1)[0],
    "std_mean": lambda: mg.std_mean(x)[1],
    "cov": lambda: mg.cov(x),
    "corrcoef": lambda: mg.corrcoef(x),
    "cov_w": lambda: mg.cov(x, fweights=T(np.array([1, 2, 1, 1])), aweights=v * v),
    "diff": lambda: mg.diff(x, prepend=0.5),
    "gradient": lambda: mg.gradient(x)[0],
    "gradient_c": lambda: mg.gradient(x, spacing=(T(np.array([0., 1, 3, 4]), False),), dim=1)[0],
    "trapezoid": lambda: mg.trapezoid(x, v),
    "cumtrapz": lambda: mg.cumulative_trapezoid(x, dx=0.5),
    "hstack": lambda: mg.hstack([x, x]),
    "block_diag": lambda: mg.block_diag(x, v),
    "diag_embed": lambda: mg.diag_embed(x, 1),
    "diagflat": lambda: mg.diagflat(v),
    "rot90": lambda: mg.rot90(x),
    "broadcast": lambda: mg.broadcast_tensors(x, v)[1],
    "narrow": lambda: mg.narrow(x, 1, 1, 2),
    "cartesian": lambda: mg.cartesian_prod(v, v),
    "combinations": lambda: mg.combinations(v, 2),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_in_float32_out_and_a_gradient_on_the_strict_f32_device(name):
    out = CALLS[name]()
    assert out.device == x.device and out.dtype in (np.float32, np.int64, np.bool_), out.dtype
    if out.requires_grad:
        (g,) = mg.grad(out.sum(), [x], allow_unused=True)
        assert g is None or (g.dtype == np.float32 and g.device == x.device)
