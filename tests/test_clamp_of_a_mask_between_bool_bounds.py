"""PyTorch's ``clamp`` of a bool tensor between bool bounds runs a kernel it has no bool instance of,
so ``mask.clamp(min=True)`` is its ``NotImplementedError`` -- NumPy's clip answered a mask here.  One
bool tensor bound alone is answered (PyTorch's ``clamp_min``/``clamp_max`` kernels have bool), and
a number that promotes the result to an integer or a float is answered in both.  Messages are torch
2.13's.  Found by the dtype-semantics red team (clamp over eleven dtypes and Python numbers)."""
import pytest

import minigrad_ckpt as mg

T = mg.tensor


@pytest.mark.parametrize("call, kernel", [
    (lambda b: b.clamp(True), "clamp_min_scalar_cpu"),
    (lambda b: b.clamp(max=False), "clamp_max_scalar_cpu"),
    (lambda b: b.clamp(False, True), "clamp_scalar_cpu"),
    (lambda b: b.clamp_min(True), "clamp_min_scalar_cpu"),
    (lambda b: b.clamp_max(True), "clamp_max_scalar_cpu"),
    (lambda b: b.clip(True), "clamp_min_scalar_cpu"),
    (lambda b: b.clone().clamp_(True), "clamp_min_scalar_cpu"),
    (lambda b: mg.clamp(b, True, None), "clamp_min_scalar_cpu"),
    (lambda b: b.clamp(min=T(True), max=True), "clamp_scalar_cpu"),
    (lambda b: b.clamp(T(True), T([False, True])), "clamp_cpu"),
])
@pytest.mark.parametrize("mask", [T([True, False]), T(True)])
def test_bool_bounds_of_a_mask_are_pytorchs_refusal(call, kernel, mask):
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
        call(mask)


def test_what_pytorch_answers_is_kept():
    b = T([True, False])
    assert b.clamp(min=T(True)).tolist() == [True, True]
    assert b.clamp(max=T([False, True])).tolist() == [False, False]
    out = b.clamp(0, 1)
    assert out.dtype == mg.int64 and out.tolist() == [1, 0]
    out = b.clamp(0.5)
    assert out.dtype == mg.float32 and out.tolist() == [1.0, 0.5]
    out = b.clamp(min=T(1), max=True)
    assert out.dtype == mg.int64 and out.tolist() == [1, 1]
    assert mg.clip(b, True, None).tolist() == [True, True]  # NumPy's function keeps NumPy's answer
