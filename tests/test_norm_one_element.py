"""The norm of a one-element slice is ``|x|``, as PyTorch's: the engine squared the entry first,
so in float32 ``vector_norm([2e19])`` was inf (torch 2.13: 2e19) and ``vector_norm([1e-30])`` 0
(1e-30), and ``normalize`` of such a column, ``matrix_norm`` of a 1 x 1 matrix and ``x.norm(dim)``
over a dim of size 1 followed.  Several elements still overflow as PyTorch's do (its p-norm
kernel does not rescale either).

Expected values: torch 2.13 (``tests/data/make_torch_norm_one_element.py`` writes
``torch_norm_one_element.json``; the calls are in ``norm_one_element_cases.py``).  Where torch's
gradient is NaN (``p=3``: its ``x |x|^(p-2) / norm^(p-1)`` overflows) the engine's is the exact
``sign(x)``.
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
from norm_one_element_cases import CASES  # noqa: E402

TORCH = json.loads((DATA / "torch_norm_one_element.json").read_text())


def _floats(values: list) -> np.ndarray:
    return np.array([float(v) for v in values])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_pytorchs(name, device):
    call, values, dtype = CASES[name]
    x = mg.tensor(np.array(values, dtype=dtype), device=device, requires_grad=True)
    y = call(mg, x)
    np.testing.assert_allclose(y.detach().cpu().numpy().ravel(), _floats(TORCH[name]["value"]), rtol=1e-6)
    y.sum().backward()
    got, want = x.grad.cpu().numpy().ravel().astype(np.float64), _floats(TORCH[name]["grad"])
    torch_nan = np.isnan(want)
    np.testing.assert_allclose(got[~torch_nan], want[~torch_nan], rtol=1e-6)
    np.testing.assert_array_equal(got[torch_nan], np.sign(np.array(values, dtype=np.float64).ravel())[torch_nan])


def test_forward_mode_is_the_gradient():
    x = mg.tensor(np.array([[2e19], [-3.0], [-1e-30], [0.0]], dtype=np.float32))
    out, tangent = mg.func.jvp(lambda v: mg.linalg.vector_norm(v, dim=1), (x,), (mg.ones_like(x),))
    assert out.tolist() == np.abs(x.numpy()).ravel().tolist()
    np.testing.assert_array_equal(tangent.numpy(), [1.0, -1.0, -1.0, 0.0])


def test_a_longer_slice_still_squares():
    # torch 2.13: vector_norm(tensor([2e19, 0.])) is inf in float32, as here
    assert mg.linalg.vector_norm(mg.tensor([2e19, 0.0], dtype=mg.float32)).item() == np.inf
