"""A number divided by a tensor (``3.0 / t``) is PyTorch's ``t.reciprocal() * 3.0``: two roundings, bitwise
torch 2.13's in float32 and float64 (one division differs in the last bit for about a quarter of the values),
with torch's graph (``MulBackward0`` over ``ReciprocalBackward0``) and derivatives.

Expected values: ``tests/data/torch_number_over_tensor.npz``, written by
``tests/data/make_torch_number_over_tensor.py`` on an AVX2 host, and ``..._avx512.npz``, the same
script's on an AVX-512 host, where torch's float64 reciprocal is rounded once (92-101 of 1,512 values
and 21 of 500 gradients differ in a bit or two): on such a host the engine's bits are one host's, all of
them; elsewhere the AVX2 host's.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from numpy_simd import AVX512  # tests/numpy_simd.py

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_torch_number_over_tensor import NUMBERS, inputs, moderate_inputs  # noqa: E402

TORCH = np.load(Path(__file__).parent / "data" / "torch_number_over_tensor.npz")
TORCH_AVX512 = np.load(Path(__file__).parent / "data" / "torch_number_over_tensor_avx512.npz")
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _differ(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return ~((got == want) | (np.isnan(got) & np.isnan(want)))


def _same_bits(got: np.ndarray, want: np.ndarray, other_host: np.ndarray | None = None) -> None:
    """``got`` is ``want`` bit for bit -- or, where ``other_host`` is given, all of ``other_host``."""
    assert got.dtype == want.dtype
    differ = _differ(got, want)
    if differ.any() and other_host is not None and not _differ(got, other_host).any():
        return
    assert not differ.any(), f"{differ.sum()} of {differ.size} values differ from torch's, first at {np.argmax(differ)}"


def _torch(key: str) -> tuple[np.ndarray, np.ndarray | None]:
    """The AVX2 host's values, and the AVX-512 host's where this is one (an AVX2 host: its own only)."""
    return TORCH[key], (TORCH_AVX512[key] if AVX512 else None)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("k", range(len(NUMBERS)))
def test_number_over_tensor_is_torchs_reciprocal_times_the_number(device, dtype, k):
    x = mg.tensor(inputs(dtype), device=device)
    _same_bits((NUMBERS[k] / x).cpu().numpy(), *_torch(f"{dtype}_{k}"))


def test_the_graph_is_torchs_and_an_overflow_is_silent():
    x = mg.tensor([3.0, 4.0], requires_grad=True)
    y = 3.0 / x
    assert y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "ReciprocalBackward0"
    with np.errstate(all="raise"):  # ``1e10 / tiny``: inf, no warning (as one division gave, as torch's)
        assert (1e10 / mg.tensor([1e-30], dtype=mg.float32)).tolist() == [float("inf")]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_first_and_second_derivatives_are_torchs(device, dtype):
    x = mg.tensor(moderate_inputs(dtype), device=device, requires_grad=True)
    (g,) = mg.autograd.grad((3.0 / x).sum(), x, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), x)
    _same_bits(g.detach().cpu().numpy(), *_torch(f"{dtype}_grad"))
    _same_bits(gg.cpu().numpy(), *_torch(f"{dtype}_grad2"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_under_the_transforms_and_inside_checkpoint(dtype):
    x = mg.tensor(moderate_inputs(dtype))
    values = mg.func.vmap(lambda r: 3.0 / r)(x)
    _same_bits(values.numpy(), (3.0 / x).numpy())
    _same_bits(mg.func.grad(lambda r: (3.0 / r).sum())(x).numpy(), *_torch(f"{dtype}_grad"))
    _, tangent = mg.func.jvp(lambda r: 3.0 / r, (x,), (mg.ones_like(x),))
    _same_bits(tangent.numpy(), *_torch(f"{dtype}_grad"))  # the tangent along ones is the gradient of the sum
    leaf = x.clone().requires_grad_()
    mg.checkpoint.checkpoint(lambda r: (3.0 / r).sum(), leaf).backward()
    _same_bits(leaf.grad.numpy(), *_torch(f"{dtype}_grad"))
