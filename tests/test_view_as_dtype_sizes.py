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
def test_the_view_shares_memory_and_needs_no_gradient(device):
    x = mg.zeros(2, 4, dtype=mg.float32, device=device)
    y = x.view(mg.float64)
    y[0, 1] = 1.0
    assert y.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(x.numpy()[0, 2:].view(np.float64), [1.0])
    w = mg.zeros(4, requires_grad=True, device=device)
    for dt, shape in [(mg.int8, (16,)), (mg.float32, (4,)), (mg.int32, (4,)), (mg.float16, (8,))]:
        v = w.view(dt)  # PyTorch's: a tensor that needs no gradient (it was refused here)
        assert (v.shape, v.dtype, v.requires_grad, v.grad_fn, v.is_leaf) == (shape, dt, False, None, True)
        assert v.data_ptr() == w.data_ptr()


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_write_through_the_view_into_a_value_saved_for_backward_is_caught(device):
    x = mg.ones(4, requires_grad=True, device=device)
    z = x * 2
    y = z * z  # saves z
    z.view(mg.int32).zero_()  # PyTorch's gradient would silently read the zeros
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_empty_tensor_has_pytorch_s_row_major_strides(device):
    """NumPy gives an empty array's dims stride 0; torch 2.13 a row-major layout's, sizes 0 counted as 1."""
    assert mg.zeros(2, 0, 3, device=device).stride() == (3, 3, 1)
    assert mg.zeros(0, 4, device=device).stride() == (4, 1) and mg.zeros(0, device=device).stride(0) == 1
    assert mg.zeros(3, 1, 2, device=device).stride() == (2, 2, 1)
