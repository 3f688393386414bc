"""``F.unfold``/``F.fold`` (and ``nn.Unfold``/``nn.Fold``) of an integer tensor are PyTorch 2.13's
NotImplementedError: its im2col/col2im kernels are built for floating, complex and bool blocks only.
The engine's gather and scatter-add answered an integer result instead.  Bool, float16 and complex
stay taken, as PyTorch's."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

F = mg.nn.functional

# torch 2.13's messages: F.unfold(torch.ones(1, 2, 4, 4, dtype=torch.int64), 2) and the like
REFUSED = [("int64", "Long"), ("int32", "Int"), ("uint8", "Byte"), ("int16", "Short"), ("int8", "Char")]


@pytest.mark.parametrize("dtype, name", REFUSED)
def test_unfold_refuses_integers(dtype, name):
    for call in (lambda x: F.unfold(x, 2), lambda x: mg.nn.Unfold(2)(x)):
        with pytest.raises(NotImplementedError) as caught:
            call(mg.ones(1, 2, 4, 4, dtype=dtype))
        assert str(caught.value) == f"\"im2col_out_cpu\" not implemented for '{name}'"


@pytest.mark.parametrize("dtype, name", REFUSED)
def test_fold_refuses_integers(dtype, name):
    for call in (lambda x: F.fold(x, (4, 4), 2), lambda x: mg.nn.Fold((4, 4), 2)(x)):
        with pytest.raises(NotImplementedError) as caught:
            call(mg.ones(1, 8, 9, dtype=dtype))
        assert str(caught.value) == f"\"col2im_out_cpu\" not implemented for '{name}'"


@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "float64", "complex64"])
def test_the_kernels_dtypes_are_taken(dtype):
    assert F.unfold(mg.ones(1, 2, 4, 4, dtype=dtype), 2).dtype == dtype
    assert F.fold(mg.ones(1, 8, 9, dtype=dtype), (4, 4), 2).dtype == dtype
