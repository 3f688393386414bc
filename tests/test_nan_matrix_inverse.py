"""``inv`` and ``solve`` of a matrix holding a NaN are NaN throughout, as PyTorch's.

``mg.linalg.inv(mg.tensor([[nan, 1, .5], [2, 3, 1], [0, 1, 4]]))`` answered rows 2 and 3 finite
(``[-2, 1, 0]``, ``[.5, -.25, .25]``: OpenBLAS's pivoting, under NumPy, stepped around the NaN), and
``solve`` likewise, values and gradients; every entry depends on ``det(A)``, and torch 2.13 answers
NaN in each.  A finite matrix in the same batch keeps its finite answers.

Expected values: torch 2.13 (``tests/data/make_torch_nan_matrix_inverse.py`` writes
``tests/data/torch_nan_matrix_inverse.json``; NaN is stored as null).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_nan_matrix_inverse.json").read_text())
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _array(rows) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=np.float64)


A = _array([row for m in TORCH["A"] for row in m]).reshape(4, 3, 3)
B = np.array(TORCH["B"])


def _check(got: mg.Tensor, want, dtype: str) -> None:
    got = got.detach().cpu().numpy().reshape(-1, got.shape[-1])
    want = _array(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12, equal_nan=True)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_inv_and_its_gradient_are_pytorchs(device, dtype):
    want = TORCH[f"inv/{dtype}"]
    a = mg.tensor(A, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    out = mg.linalg.inv(a)
    (out * mg.tensor(TORCH["W_inv"], dtype=getattr(mg, dtype), device=device)).sum().backward()
    _check(out, want["value"], dtype)
    _check(a.grad, want["grad_A"], dtype)
    # the same op under its other spellings, inside a checkpoint, and in forward mode
    for other in (a.inverse(), mg.linalg.inv_ex(a).inverse, mg.linalg.matrix_power(a, -1),
                  mg.checkpoint.checkpoint(lambda m: mg.linalg.inv(m * 1), a)):
        _check(other, want["value"], dtype)
    _, tangent = mg.func.jvp(mg.linalg.inv, (a.detach(),), (mg.ones_like(a.detach()),))
    nan_matrices = np.isnan(tangent.cpu().numpy()).all(axis=(-2, -1))
    assert nan_matrices.tolist() == [True, False, True, True]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_solve_and_its_gradients_are_pytorchs(device, dtype):
    want = TORCH[f"solve/{dtype}"]
    a = mg.tensor(A, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    b = mg.tensor(B, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    x = mg.linalg.solve(a, b)
    (x * mg.tensor(TORCH["W_solve"], dtype=getattr(mg, dtype), device=device)).sum().backward()
    _check(x, want["value"], dtype)
    _check(a.grad, want["grad_A"], dtype)
    _check(b.grad, want["grad_B"], dtype)  # summed over the batch: NaN, as PyTorch's
    # one matrix at a time, the finite one's gradient in B stays finite
    b1 = mg.tensor(B, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    mg.linalg.solve(mg.tensor(A[1], dtype=getattr(mg, dtype), device=device), b1).sum().backward()
    assert np.isfinite(b1.grad.cpu().numpy()).all()
    _, tangent = mg.func.jvp(lambda m: mg.linalg.solve(m, mg.tensor(B, dtype=getattr(mg, dtype), device=device)),
                             (a.detach(),), (mg.ones_like(a.detach()),))
    assert np.isnan(tangent.cpu().numpy()).all(axis=(-2, -1)).tolist() == [True, False, True, True]


def test_a_nan_right_hand_side_poisons_only_its_column():
    # torch 2.13: solve(A, B) with B[1, 0] = NaN is NaN in column 0 only
    b = B.copy()
    b[1, 0] = np.nan
    x = mg.linalg.solve(mg.tensor(A[1]), mg.tensor(b)).numpy()
    assert np.isnan(x[:, 0]).all() and np.isfinite(x[:, 1]).all()
