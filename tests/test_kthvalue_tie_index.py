"""Which index ``kthvalue`` returns where the k-th value is tied, and so which element gets the
gradient: PyTorch's CPU kernel returns whatever its quickselect (ATen's ``quick_select_template``)
leaves at rank k, not the stable sort's first -- ``kthvalue([0, 2, 1, 2, 0], 1)`` is index 4 there
(it was 0).  The indices below are torch 2.13's (CPU), for every k; a 0-d bool tensor is its own
k-th value there, as it is here now.  Off the CPU (the strict stand-in for a GPU) the index stays
the stable sort's first: choosing PyTorch's would read the values back."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

NAN = math.nan
TORCH_INDICES = [  # (row, torch's kthvalue(k).indices for k = 1..len(row))
    ([0.0, 2.0, 1.0, 2.0, 0.0], [4, 0, 2, 1, 3]),
    ([-2.0, -2.0, -2.0, 2.0, -1.0], [2, 0, 1, 4, 3]),
    ([1.0, 3.0, 1.0, 1.0, 0.0, 3.0, 0.0, 3.0], [6, 4, 3, 0, 2, 5, 1, 7]),
    ([2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 1.0, 2.0], [4, 6, 3, 5, 0, 2, 1, 7]),
    ([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0],
     [1, 9, 13, 5, 7, 10, 4, 15, 14, 8, 12, 0, 2, 3, 11, 6, 16]),
    ([NAN, 1.0, NAN, 0.0, NAN], [3, 1, 2, 0, 4]),
    ([0.0, -0.0, 0.0, -0.0, 1.0], [3, 2, 0, 1, 4]),
]
MATRIX = [[2.0, -1.0, 0.0, 0.0], [2.0, 1.0, 2.0, 2.0], [0.0, 0.0, -1.0, 2.0]]
MATRIX_INDICES = {(0, 1): [2, 0, 2, 0], (0, 2): [0, 2, 0, 1], (0, 3): [1, 1, 1, 2],
                  (1, 1): [1, 1, 2], (1, 2): [3, 0, 1], (1, 3): [2, 2, 0]}


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("row,indices", TORCH_INDICES, ids=[str(r[0]) for r in TORCH_INDICES])
def test_tied_kthvalue_index_and_gradient_as_pytorch(row, indices, dtype):
    for k, want in enumerate(indices, start=1):
        x = mg.tensor(row, dtype=dtype, requires_grad=True)
        values, idx = x.kthvalue(k)
        assert idx.item() == want
        values.backward()
        assert x.grad.tolist() == [1.0 if i == want else 0.0 for i in range(len(row))]
        assert math.copysign(1.0, values.item()) == math.copysign(1.0, row[want])  # -0.0 or 0.0: the one picked


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.uint8])
def test_tied_kthvalue_of_integers(dtype):
    row, indices = TORCH_INDICES[2]
    x = mg.tensor(row).to(dtype)
    assert [x.kthvalue(k).indices.item() for k in range(1, len(row) + 1)] == indices


@pytest.mark.parametrize("keepdim", [False, True])
def test_tied_kthvalue_along_each_dim_and_its_tangent(keepdim):
    x = mg.tensor(MATRIX, dtype=mg.float64)
    t = mg.tensor(np.arange(12.0).reshape(3, 4))
    for (d, k), want in MATRIX_INDICES.items():
        values, idx = mg.kthvalue(x, k, dim=d, keepdim=keepdim)
        assert idx.flatten().tolist() == want
        _, tangent = mg.func.jvp(lambda v, k=k, d=d: v.kthvalue(k, d, keepdim).values, (x,), (t,))
        assert tangent.flatten().tolist() == np.take_along_axis(t.numpy(), np.expand_dims(want, d), d).ravel().tolist()


def test_kthvalue_of_a_zero_d_bool_is_itself():
    values, idx = mg.tensor(True).kthvalue(1)
    assert values.dtype == mg.bool and values.item() is True and idx.item() == 0
    with pytest.raises(RuntimeError):
        mg.tensor([True, False]).kthvalue(1)


def test_off_the_cpu_a_tie_goes_to_the_stable_first():
    x = mg.tensor([0.0, 2.0, 1.0, 2.0, 0.0], device="strict", requires_grad=True)
    values, idx = x.kthvalue(1)
    assert idx.item() == 0 and values.item() == 0.0
    values.backward()
    assert x.grad.to("cpu").tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
