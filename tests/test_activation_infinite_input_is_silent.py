"""``F.gelu`` (both forms), ``F.silu``, ``F.softplus`` and ``F.logsigmoid`` answer PyTorch's values at
``+-inf``, NaN and the largest finite numbers without NumPy's ``RuntimeWarning`` (``invalid value
encountered in multiply`` for ``-inf * 0`` inside gelu and silu, ``overflow`` for tanh-gelu's ``x^3``,
``invalid value encountered in logaddexp`` for softplus/logsigmoid of NaN), as every other activation
is silent (mish and hardswish already were).  Found porting llm.c's GPT-2 and Llama 3 and the Annotated
Transformer: a masked or diverged activation printed warnings PyTorch never prints.

Expected values are torch 2.13's (CPU), written in: ``y = f(x)`` and ``torch.autograd.grad(y, x, 1)``
with x = [-inf, inf, nan, max, -max, 0.5] (``max`` the dtype's largest finite value).  Where PyTorch's
float32 kernel differs from its own float64 answer (gelu at +inf: NaN; at max: inf) the float64 value
is written (``None`` marks those two).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

INF, NAN = math.inf, math.nan
F = mg.nn.functional

FUNCTIONS = {
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "softplus": F.softplus,
    "logsigmoid": F.logsigmoid,
}

TORCH = {  # dtype -> function -> (value, gradient)
    "float32": {
        "gelu": ([NAN, None, NAN, None, -0.0, 0.3457312285900116], [NAN, NAN, NAN, 1.0, 0.0, 0.867495059967041]),
        "gelu_tanh": ([NAN, INF, NAN, 3.4028234663852886e+38, -0.0, 0.3457140028476715],
                      [NAN, NAN, NAN, NAN, NAN, 0.8673698902130127]),
        "silu": ([NAN, INF, NAN, 3.4028234663852886e+38, -0.0, 0.3112296760082245],
                 [NAN, NAN, NAN, 1.0, -0.0, 0.7399612069129944]),
        "softplus": ([0.0, INF, NAN, 3.4028234663852886e+38, 0.0, 0.9740769863128662],
                     [0.0, 1.0, NAN, 1.0, 0.0, 0.622459352016449]),
        "logsigmoid": ([-INF, 0.0, NAN, 0.0, -3.4028234663852886e+38, -0.4740769863128662],
                       [1.0, 0.0, NAN, 0.0, 1.0, 0.3775406777858734]),
    },
    "float64": {
        "gelu": ([NAN, INF, NAN, 1.7976931348623157e+308, -0.0, 0.34573123063700656],
                 [NAN, NAN, NAN, 1.0, 0.0, 0.8674951246561629]),
        "gelu_tanh": ([NAN, INF, NAN, 1.7976931348623157e+308, -0.0, 0.34571400982514394],
                      [NAN, NAN, NAN, NAN, NAN, 0.8673699035346424]),
        "silu": ([NAN, INF, NAN, 1.7976931348623157e+308, -0.0, 0.3112296656009273],
                 [NAN, NAN, NAN, 1.0, -0.0, 0.7399611873026519]),
        "softplus": ([0.0, INF, NAN, 1.7976931348623157e+308, 0.0, 0.9740769841801067],
                     [0.0, 1.0, NAN, 1.0, 0.0, 0.6224593312018546]),
        "logsigmoid": ([-INF, 0.0, NAN, 0.0, -1.7976931348623157e+308, -0.4740769841801067],
                       [1.0, 0.0, NAN, 0.0, 1.0, 0.37754066879814546]),
    },
}


def _inputs(dtype: str, device: str) -> mg.Tensor:
    big = float(np.finfo(dtype).max)
    return mg.tensor(np.array([-INF, INF, NAN, big, -big, 0.5], dtype=dtype), device=device, requires_grad=True)


def _silently(fn, x):
    """The value, gradient (upstream 1) and tangent (1) of ``fn`` at ``x``, any RuntimeWarning an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = fn(x)
        (gx,) = mg.autograd.grad(y, x, mg.ones_like(y))
        _, tangent = mg.func.jvp(fn, (x.detach(),), (mg.ones_like(x),))
    return y, gx, tangent


def _check(got: mg.Tensor, want: list) -> None:
    got = got.detach().cpu().numpy().astype(np.float64)
    known = np.array([w is not None for w in want])
    want = np.array([np.nan if w is None else w for w in want])[known]
    got = got[known]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_infinite_and_nan_inputs_give_pytorchs_values_without_a_warning(name, dtype, device):
    y, gx, tangent = _silently(FUNCTIONS[name], _inputs(dtype, device))
    want_value, want_grad = TORCH[dtype][name]
    _check(y, want_value)
    _check(gx, want_grad)
    _check(tangent, want_grad)  # (elementwise: the jvp is the same product)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float16_is_silent_too(name):
    y, gx, tangent = _silently(FUNCTIONS[name], _inputs("float16", "cpu"))
    assert y.dtype == gx.dtype == tangent.dtype == mg.float16
