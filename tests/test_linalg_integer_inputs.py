"""PyTorch's linear algebra on integer and bool matrices: it computes in floating point only, so
``torch.linalg.det`` (``norm``, ``vector_norm``, ``matrix_norm``, ``inv``, ``solve``, ``svd``,
``eigh``, ``qr``, ``cholesky``, ``lu``, ``lstsq``, ``pinv``, ...) of an int64 matrix is its
``RuntimeError`` ("linalg.det: Expected a floating point or complex tensor as input. Got Long") or
its ``NotImplementedError`` ('"lu_cpu" not implemented for 'Long''), while ``matrix_power`` with
``n >= 0``, ``multi_dot``, ``cross`` and ``vander`` keep integers integer.  The engine answered most
of them in float64 (NumPy's reading), ``matrix_power(i, 0)`` as a float identity, and refused a few
with a ``TypeError`` of its own.

Expected answers: torch 2.13 (``tests/data/make_torch_linalg_integer_inputs.py`` writes
``torch_linalg_integer_inputs.json``).
"""
from __future__ import annotations

import builtins
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_linalg_integer_inputs import BOOL_PRODUCTS, CALLS, INTEGER_CALLS, MATRIX  # noqa: E402

TORCH = json.loads((DATA / "torch_linalg_integer_inputs.json").read_text())
ALL_CALLS = {**CALLS, **INTEGER_CALLS, **BOOL_PRODUCTS}
CASES = sorted(TORCH)


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case", CASES)
def test_as_pytorch_refuses_or_answers(case, device):
    name, dtype = case.split("/")
    want = TORCH[case]
    a = mg.tensor(MATRIX, dtype=dtype, device=device)
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"])) as caught:
            ALL_CALLS[name](mg, F, a)
        assert str(caught.value) == want["message"]
        return
    out = ALL_CALLS[name](mg, F, a)
    parts = list(out) if isinstance(out, tuple) else [out]
    assert [str(p.dtype).split(".")[-1] for p in parts] == want["dtypes"]
    for part, values in zip(parts, want["values"], strict=True):
        np.testing.assert_allclose(np.asarray(part.tolist(), dtype=np.float64), np.asarray(values, dtype=np.float64),
                                   rtol=1e-6)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_floating_matrices_still_answer_with_gradients(device, dtype):
    a = mg.tensor(MATRIX, dtype=dtype, device=device, requires_grad=True)
    total = (mg.linalg.det(a) + mg.linalg.vector_norm(a) + mg.linalg.matrix_norm(a, "nuc")
             + mg.linalg.inv(a).sum() + mg.linalg.eigvalsh(a).sum() + mg.linalg.matrix_power(a, 0).sum())
    assert total.dtype == dtype
    total.backward()
    assert a.grad.dtype == dtype and bool(mg.isfinite(a.grad).all())


def test_under_vmap_and_grad_the_refusal_holds():
    ints = mg.tensor([MATRIX, MATRIX])
    with pytest.raises(RuntimeError, match="linalg.det: Expected a floating point or complex tensor"):
        mg.func.vmap(mg.linalg.det)(ints)
    assert mg.func.vmap(lambda m: mg.linalg.matrix_power(m, 2))(ints).dtype == mg.int64
    grads = mg.func.grad(lambda m: mg.linalg.vector_norm(m.double()))(ints.double())
    assert grads.dtype == mg.float64


def test_the_refusals_are_typeerrors_too():
    # the engine's earlier TypeError ("expected a floating point or complex input") still catches them
    a = mg.tensor(MATRIX)
    for call in (mg.linalg.lu_factor, mg.linalg.matrix_exp, mg.linalg.ldl_factor, mg.linalg.det):
        with pytest.raises(TypeError):
            call(a)
