"""``jacobian(..., strategy="forward-mode", vectorize=True)`` gives each output's blocks in that output's
dtype, as PyTorch's (its forward mode differentiates each output's tangent): an integer or bool output's
blocks are zeros of its integer or bool dtype, a float64 output of float32 inputs gives float64 blocks.
Reverse mode's blocks are the input's dtype.  Found by sweeping ``mg.autograd.functional``'s options
against torch 2.13 after porting PyTorch's test/autograd/test_functional.py (whose
``test_jacobian_vectorize_correctness_different_dtype`` states the rule): the engine's forward-mode
blocks of integer and bool outputs were float zeros.  (Expected dtypes: torch 2.13's.)
"""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg

AF = mg.autograd.functional


def _fwd(func, inputs):
    return AF.jacobian(func, inputs, vectorize=True, strategy="forward-mode")


def test_one_input_tuple_of_outputs():
    a = mg.tensor([0.5, 1.0, 2.0])
    jac = _fwd(lambda x: ((x * 10).long(), x ** 2, x > 1), a)
    assert isinstance(jac, tuple) and [j.dtype for j in jac] == [mg.int64, mg.float32, mg.bool]
    assert not jac[0].numpy().any() and not jac[2].numpy().any()
    np.testing.assert_allclose(jac[1].numpy(), np.diag([1.0, 2.0, 4.0]))


def test_tuple_of_inputs_gives_lists_in_each_outputs_dtype():
    a, b = mg.tensor([0.5, 1.0, 2.0]), mg.tensor([1.0, 3.0])
    jac = _fwd(lambda x, y: ((x * 10).long(), y ** 2, y > 0), (a, b))
    assert isinstance(jac, list) and all(isinstance(row, list) for row in jac)
    assert [[j.dtype for j in row] for row in jac] == [[mg.int64] * 2, [mg.float32] * 2, [mg.bool] * 2]
    assert [[tuple(j.shape) for j in row] for row in jac] == [[(3, 3), (3, 2)], [(2, 3), (2, 2)], [(2, 3), (2, 2)]]
    np.testing.assert_allclose(jac[1][1].numpy(), np.diag([2.0, 6.0]))


def test_one_output():
    a = mg.tensor([0.5, 1.0], dtype=mg.float64)
    assert _fwd(lambda x: (x * 10).int(), a).dtype == mg.int32
    assert _fwd(lambda x: x.float() ** 2, a).dtype == mg.float32


def test_reverse_mode_gives_the_inputs_dtype():
    a = mg.tensor([0.5, 1.0])
    jac = AF.jacobian(lambda x: ((x * 10).long(), x.double() ** 2), a)
    assert [j.dtype for j in jac] == [mg.float32, mg.float32]
