"""Special functions at their extremal arguments against PyTorch 2.13's answers, recorded by
``tests/data/make_torch_special_extremes.py``: the value, and the gradient through every seam
(backward, ``mg.func.grad``, forward mode, checkpoint; :mod:`elementwise_seams`), float64 and
float32, on the CPU and the strict device.

``logit(p, eps=0.0)`` clamps ``p`` to ``[0, 1]``; where it clamps, PyTorch's gradient is 0, and
the package's was NaN (a clamp's 0 times logit's infinite slope at the clamped 0 or 1).
``zeta(x, q)`` for ``q < 0`` off the poles and an integer ``x`` is a real, finite sum (SciPy's and
PyTorch's values); the package's was NaN, and so its gradient in ``q``.  ``polygamma(n, x)`` for
``n >= 1`` and a subnormal ``x < 0`` is the pole's +-inf; the package's was NaN (so was
``digamma``'s gradient there).  ``mvlgamma(x, p)`` (PyTorch's name) has no domain check: it raised
SciPy's ``ValueError`` for ``x <= (p - 1) / 2`` where PyTorch returns the sum of ``lgamma`` s.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from elementwise_seams import seam_gradients

import minigrad_ckpt as mg

DATA = json.loads((Path(__file__).parent / "data" / "torch_special_extremes.json").read_text())
CASES = {f"{c['name']}-{c['lead']}-{c['kw']}".replace(" ", ""): c for c in DATA["cases"]}


def _fn(case: dict, dtype: str, device: str):
    """``f`` of the differentiated arguments, the others constants of ``dtype`` on ``device``."""
    fn = getattr(mg.special, case["name"], None) or getattr(mg, case["name"])
    consts = {i: mg.tensor(a, dtype=dtype, device=device) for i, a in enumerate(case["args"]) if i not in case["wrt"]}

    def f(*xs):
        free = iter(xs)
        args = [consts[i] if i in consts else next(free) for i in range(len(case["args"]))]
        return fn(*case["lead"], *args, **case["kw"])
    return f


def _same_specials(got: np.ndarray, want: np.ndarray) -> None:
    """NaN, the infinities and the sign of zero where PyTorch has them."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("key", sorted(CASES))
def test_value_and_gradient_are_torchs(key, dtype, device):
    case = CASES[key]
    answer = case[dtype]
    fn = _fn(case, dtype, device)
    wrt = [case["args"][i] for i in case["wrt"]]
    out = fn(*[mg.tensor(a, dtype=dtype, device=device) for a in wrt])
    assert out.dtype == getattr(mg, dtype)
    got = np.asarray(out.cpu().numpy(), dtype=np.float64)
    want = np.asarray(answer["value"], dtype=np.float64)
    _same_specials(got, want)
    # float64 to 1e-10: PyTorch's sums (Cephes' zeta) lose digits to cancellation
    tol = 2e-6 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, equal_nan=True)
    for seam, grads in seam_gradients(fn, wrt, getattr(mg, dtype), device).items():
        for g, expected in zip(grads, answer["grads"]):
            np.testing.assert_allclose(g, expected, rtol=tol, atol=0, equal_nan=True, err_msg=seam)


@pytest.mark.parametrize(("x", "p", "error", "message"), [
    (mg.tensor([True]), 1, RuntimeError, "The input tensor may not be a boolean tensor."),
    (mg.tensor([3.0]), 0, RuntimeError, "p has to be greater than or equal to 1"),
    (mg.tensor([3.0]), -1, RuntimeError, "p has to be greater than or equal to 1"),
    (mg.tensor([3.0]), 2.0, TypeError, "must be int, not float"),
])
def test_mvlgamma_refuses_as_torch(x, p, error, message):
    with pytest.raises(error, match=message):
        mg.mvlgamma(x, p)
