"""``x.view(dtype)`` with another item size, as PyTorch's: the last dim shrinks or grows by the
ratio of the sizes, the result shares ``x``'s memory, and PyTorch's conditions on the strides
(and its messages) hold.  It was a ValueError ("differ in item size") for every such dtype.

The answers are torch 2.13's, from ``tests/data/make_torch_view_dtype.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).with_name("data")))
from view_dtype_cases import apply_steps  # noqa: E402

CASES = json.loads((Path(__file__).parent / "data" / "torch_view_dtype.json").read_text())


def _source(dtype: str, shape: list[int], steps: list, device: str) -> mg.Tensor:
    x = mg.tensor(np.arange(int(np.prod(shape)), dtype=np.float64).astype(dtype).reshape(shape), device=device)
    return apply_steps(x, steps)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, [c["case"][0], *c["case"][1], c["case"][3]])))
def test_view_as_a_dtype_of_another_size_matches_pytorch(case, device):
    dtype, shape, steps, target = case["case"]
    x = _source(dtype, shape, steps, device)
    if "error" in case:
        with pytest.raises(RuntimeError) as info:
            x.view(getattr(mg, target))
        assert str(info.value) == case["error"]
        return
    y = x.view(getattr(mg, target))
    assert y.dtype == getattr(mg, target) and y.device == x.device
    assert list(y.shape) == case["shape"] and list(y.stride()) == case["stride"]
    assert np.ascontiguousarray(y.numpy()).reshape(-1).view(np.uint8).tolist() == case["bytes"]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_the_view_shares_memory_and_refuses_a_tensor_with_gradients(device):
    x = mg.zeros(2, 4, dtype=mg.float32, device=device)
    y = x.view(mg.float64)
    y[0, 1] = 1.0
    assert y.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(x.numpy()[0, 2:].view(np.float64), [1.0])
    w = mg.zeros(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="no gradient"):
        w.view(mg.int8)
    assert w.detach().view(mg.int8).shape == (16,)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_empty_tensor_has_pytorch_s_row_major_strides(device):
    """NumPy gives an empty array's dims stride 0; torch 2.13 a row-major layout's, sizes 0 counted as 1."""
    assert mg.zeros(2, 0, 3, device=device).stride() == (3, 3, 1)
    assert mg.zeros(0, 4, device=device).stride() == (4, 1) and mg.zeros(0, device=device).stride(0) == 1
    assert mg.zeros(3, 1, 2, device=device).stride() == (2, 2, 1)
