"""The operator database at extremal inputs (tests/data/operator_extreme_cases.py) answers as torch
2.13 does: the same dtype, shape and values (NaNs, signed zeros and integer results exactly), the
same gradients, and an error of the same builtin type where torch raises (the engine's error classes
derive from torch's type as well as NumPy's, so either ``except`` catches them).
"""

from __future__ import annotations

import builtins
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.backend import default_device_set_to, get_device

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from operator_extreme_cases import CASES, run  # noqa: E402

sys.path.remove(str(DATA))
TORCH = json.loads((DATA / "torch_operator_extremes.json").read_text())["cases"]


def _same(expected, got, where: str) -> None:
    if expected is None:
        assert got is None, where
        return
    if "tuple" in expected:
        assert isinstance(got, (tuple, list)) and len(got) == len(expected["tuple"]), where
        for i, (e, g) in enumerate(zip(expected["tuple"], got)):
            _same(e, g, f"{where}[{i}]")
        return
    if "python" in expected:
        assert got == expected["python"], where
        return
    assert got is not None, where
    assert str(got.dtype).split(".")[-1] == expected["dtype"], (where, got.dtype)
    assert list(got.shape) == expected["shape"], (where, got.shape)
    values = np.asarray(got.detach().numpy()).reshape(-1)
    want = np.array(expected["values"], dtype=values.dtype)
    if values.dtype.kind == "f":
        np.testing.assert_allclose(values, want, rtol=1e-12, atol=0, err_msg=where)
        assert all(math.copysign(1, a) == math.copysign(1, b) for a, b in zip(values, want) if a == 0), where
    else:
        np.testing.assert_array_equal(values, want, err_msg=where)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_engine_answers_as_torch(name, device):
    """On the CPU and on the strict stand-in device (every tensor a case makes is made there)."""
    from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

    expected = TORCH[name]
    with default_device_set_to(get_device(device)), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "raises" in expected:
            with pytest.raises(Exception) as info:  # noqa: PT011 -- the type is checked below, against torch's
                run(mg, CASES[name])
            assert isinstance(info.value, getattr(builtins, expected["raises"])), (name, repr(info.value))
            return
        got = run(mg, CASES[name])
    _same(expected["result"], got, name)


def test_every_case_is_recorded():
    assert set(TORCH) == set(CASES)


# ------------------------------------------------------------------ the seams of the fixes
@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_index_select_of_a_0d_tensor_is_0d_on_every_device_and_under_backward(device):
    from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

    x = mg.tensor(1.5, device=device, requires_grad=True)
    y = x.index_select(0, mg.tensor([0], device=device))
    assert y.shape == ()
    y.backward()
    assert x.grad.shape == () and x.grad.item() == 1.0
    assert mg.func.grad(lambda t: t.index_select(0, mg.tensor(0, device=device)))(x.detach()).shape == ()


@pytest.mark.parametrize("order", [math.inf, -math.inf, 1, -1, 0, 2, 3])
def test_norms_of_integers_and_bools_are_refused_for_every_order_as_pytorchs(order):
    # mg.linalg is torch.linalg's namespace: an integer or bool norm is its RuntimeError for every
    # order (the engine answered NumPy's float64 before, and once an int64 max / sum for the orders
    # inf and 1, a bool max for a bool vector)
    ints = np.array([[3, -1, 3, 1], [2, 2, 0, 0]])
    for values in (ints, ints > 1):
        x = mg.tensor(values)
        with pytest.raises(RuntimeError, match="floating point or complex"):
            mg.linalg.vector_norm(x, order, dim=1)
        with pytest.raises(RuntimeError, match="floating point or complex"):
            mg.linalg.norm(x, order, 1)
    if order in (math.inf, -math.inf, 1, -1):
        with pytest.raises(RuntimeError, match="floating point or complex"):
            mg.linalg.matrix_norm(mg.tensor(ints), order)
    got = mg.linalg.vector_norm(mg.tensor(ints).double(), order, dim=1)  # (torch refuses dtype= too)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(got.numpy(), np.linalg.norm(ints, order, axis=1))
