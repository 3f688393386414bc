"""An empty tensor prints its shape and dtype, as PyTorch's: ``[]`` shows neither, and printed
``tensor([])`` a (3, 0, 2) int64 tensor looked like a float32 one of shape (0,).  PyTorch adds
``size=`` unless the tensor has one dim and ``dtype=`` for every dtype but the default float one
(the strings below are torch 2.13's, with its ``torch.`` prefixes dropped, as the engine prints
dtypes)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

_CASES = [
    (lambda: mg.zeros(0, 3, dtype=mg.float64), "tensor([], size=(0, 3), dtype=float64)"),
    (lambda: mg.zeros(3, 0, 2), "tensor([], size=(3, 0, 2))"),
    (lambda: mg.zeros(0, dtype=mg.int64), "tensor([], dtype=int64)"),
    (lambda: mg.zeros(0, dtype=mg.bool), "tensor([], dtype=bool)"),
    (lambda: mg.zeros(0, dtype=mg.complex64), "tensor([], dtype=complex64)"),
    (lambda: mg.zeros(0), "tensor([])"),
    (lambda: mg.zeros(1, 0, dtype=mg.int8), "tensor([], size=(1, 0), dtype=int8)"),
    (lambda: mg.zeros(0, 2, requires_grad=True), "tensor([], size=(0, 2), requires_grad=True)"),
    (lambda: mg.zeros(0, 2, requires_grad=True) * 2, "tensor([], size=(0, 2), grad_fn=Mul)"),
]


@pytest.mark.parametrize("make, printed", _CASES, ids=[p for _, p in _CASES])
def test_an_empty_tensor_prints_its_size_and_dtype(make, printed):
    assert repr(make()) == printed


def test_under_a_float64_default_float32_is_named():
    before = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:  # torch: tensor([], size=(0, 3), dtype=torch.float32) and tensor([], size=(0, 3))
        assert repr(mg.zeros(0, 3, dtype=mg.float32)) == "tensor([], size=(0, 3), dtype=float32)"
        assert repr(mg.zeros(0, 3)) == "tensor([], size=(0, 3))"
    finally:
        mg.set_default_dtype(before)


def test_tensors_with_elements_print_as_before():
    assert repr(mg.tensor(np.arange(3))) == "tensor([0, 1, 2])"
    assert repr(mg.tensor([[1.0, 2.0]], dtype=mg.float64)) == "tensor([[1., 2.]], dtype=float64)"
