"""``F.local_response_norm`` in PyTorch's dtypes: its mean is an average pool, so an int64 input is
pooled in integers (the mean truncated) and answered in the default float dtype; int32, uint8, bool
(and float16 beyond 3-D) have no pool kernel there and are refused with its ``NotImplementedError``.
The engine answered every integer dtype in float32 from a float mean before.

Expected values: tests/data/torch_local_response_norm_dtypes.npz (torch 2.13; its generator beside it).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).parent / "data"
SETTINGS = {"defaults": (3, 1e-4, 0.75, 1.0), "wide": (4, 0.5, 0.6, 2.0), "one": (1, 0.3, 1.0, 1.0)}
NAMES = {mg.int32: "Int", mg.uint8: "Byte", mg.bool: "Bool", mg.int16: "Short", mg.int8: "Char"}


@pytest.fixture(scope="module")
def torch_answers():
    with np.load(DATA / "torch_local_response_norm_dtypes.npz") as f:
        return dict(f)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("shape", ["3d", "4d", "5d"])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_int64_is_pooled_in_integers_and_answered_in_float32(torch_answers, device, shape, setting):
    size, alpha, beta, k = SETTINGS[setting]
    x = mg.tensor(torch_answers[f"x_{shape}"], device=device)
    got = F.local_response_norm(x, size, alpha=alpha, beta=beta, k=k)
    want = torch_answers[f"{shape}_{setting}_int64"]
    assert got.dtype == mg.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-7, atol=0)


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
@pytest.mark.parametrize("shape", ["3d", "4d", "5d"])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_floats_match_pytorch(torch_answers, device, dtype, shape, setting):
    size, alpha, beta, k = SETTINGS[setting]
    x = mg.tensor(torch_answers[f"x_{shape}"].astype(dtype), device=device, requires_grad=True)
    got = F.local_response_norm(x, size, alpha=alpha, beta=beta, k=k)
    np.testing.assert_allclose(got.numpy(), torch_answers[f"{shape}_{setting}_{dtype}"],
                               rtol=4e-7 if dtype == "float32" else 1e-15)
    got.sum().backward()  # still differentiable
    assert x.grad.shape == x.shape


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", list(NAMES), ids=str)
def test_integers_but_int64_are_refused_as_pytorchs_pool(device, dtype):
    x = mg.ones(2, 3, 4, dtype=dtype, device=device)
    with pytest.raises(NotImplementedError, match=f"^\"avg_pool2d\" not implemented for '{NAMES[dtype]}'$"):
        F.local_response_norm(x, 2)
    with pytest.raises(NotImplementedError, match=f"^\"avg_pool3d_out_frame\" not implemented for '{NAMES[dtype]}'$"):
        F.local_response_norm(mg.reshape(x, (2, 3, 2, 2)), 2)


def test_float16_beyond_three_dims_is_refused_as_pytorchs_pool():
    x = mg.ones(2, 3, 4, dtype=mg.float16)
    assert F.local_response_norm(x, 2).dtype == mg.float16
    with pytest.raises(NotImplementedError, match="^\"avg_pool3d_out_frame\" not implemented for 'Half'$"):
        F.local_response_norm(mg.reshape(x, (2, 3, 2, 2)), 2)


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.float32], ids=str)
def test_an_empty_input_is_returned_itself(dtype):
    # torch 2.13: local_response_norm returns an empty input itself, whatever its dtype
    x = mg.zeros(0, 3, 4, dtype=dtype)
    assert F.local_response_norm(x, 2) is x
