"""``F.hardswish`` and ``F.mish`` (one op each, :mod:`minigrad_ckpt.ops.activation`) answer PyTorch's
values where an intermediate product overflows -- ``x * 6`` of a huge ``x``, ``g * (x / 3 + 1/2)`` of a
huge gradient, ``inf * 0`` inside -- without NumPy's ``RuntimeWarning: overflow encountered in
multiply``, as every other activation does (the compositions they replaced never overflowed).

Expected values are torch 2.13's (CPU), written in: ``y = F.hardswish(x)`` / ``F.mish(x)`` and
``torch.autograd.grad(y, x, g)`` with x = [max, max / 2, -max, 1, -1.5, 2] and
g = [max, max, max, max, inf, -max] (``max`` the dtype's largest finite value).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

INF, NAN = math.inf, math.nan

TORCH = {  # dtype -> function -> (value, gradient)
    "float16": {
        "hardswish": ([65504.0, 32752.0, -0.0, 0.66650390625, -0.375, 1.6669921875],
                      [65504.0, 65504.0, 0.0, 54592.0, NAN, -INF]),
        "mish": ([65504.0, 32752.0, -0.0, 0.865234375, -0.298095703125, 1.9443359375],
                 [65504.0, 65504.0, 0.0, INF, -INF, -INF]),
    },
    "float32": {
        "hardswish": ([INF, INF, -0.0, 0.6666666865348816, -0.375, 1.6666666269302368],
                      [3.4028234663852886e+38, 3.4028234663852886e+38, 0.0, 2.8356863233997885e+38, NAN, -INF]),
        "mish": ([3.4028234663852886e+38, 1.7014117331926443e+38, -0.0, 0.8650983572006226, -0.2980997562408447,
                  1.9439589977264404],
                 [3.4028234663852886e+38, 3.4028234663852886e+38, 0.0, INF, -INF, -INF]),
    },
    "float64": {
        "hardswish": ([INF, INF, -0.0, 0.6666666666666666, -0.375, 1.6666666666666667],
                      [1.7976931348623157e+308, 1.7976931348623157e+308, 0.0, 1.498077612385263e+308, NAN, -INF]),
        "mish": ([1.7976931348623157e+308, 8.988465674311579e+307, -0.0, 0.8650983882673103, -0.29809974216680674,
                  1.9439589595339946],
                 [1.7976931348623157e+308, 1.7976931348623157e+308, 0.0, INF, -INF, -INF]),
    },
}


def _check(got: mg.Tensor, want: list, exact: bool) -> None:
    got = got.detach().cpu().numpy().astype(np.float64)
    want = np.array(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    if exact:
        np.testing.assert_array_equal(got[ok], want[ok])
        np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))
    else:  # (mish's softplus is logaddexp here, log1p(exp(x)) in PyTorch's kernel: an ulp apart at times)
        np.testing.assert_allclose(got[ok], want[ok], rtol=2e-3 if got.dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", ["hardswish", "mish"])
def test_overflow_gives_pytorchs_values_without_a_warning(name, dtype, device):
    big = float(np.finfo(dtype).max)
    fn = getattr(mg.nn.functional, name)
    x = mg.tensor(np.array([big, big / 2, -big, 1.0, -1.5, 2.0], dtype=dtype), device=device, requires_grad=True)
    g = mg.tensor(np.array([big, big, big, big, INF, -big], dtype=dtype), device=device)
    want_value, want_grad = TORCH[dtype][name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = fn(x)
        (gx,) = mg.autograd.grad(y, x, g)
        _, tangent = mg.func.jvp(fn, (x.detach(),), (g,))
    _check(y, want_value, exact=name == "hardswish")
    _check(gx, want_grad, exact=name == "hardswish")
    _check(tangent, want_grad, exact=name == "hardswish")  # (elementwise: the jvp is the same product)
