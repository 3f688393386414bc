"""PyTorch's older ``x.cholesky()`` / ``torch.cholesky`` has no integer or bool kernel: its
``NotImplementedError`` ('"cholesky_cpu" not implemented for 'Long''), where the engine answered with
``linalg.cholesky``'s ``RuntimeError`` ("Expected a floating point or complex tensor") before.
``mg.linalg.cholesky`` keeps that ``RuntimeError``, as ``torch.linalg.cholesky``.

Expected messages: torch 2.13 on the same calls.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAMES = {mg.int64: "Long", mg.int32: "Int", mg.bool: "Bool", mg.uint8: "Byte"}


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("dtype", list(NAMES), ids=str)
@pytest.mark.parametrize("upper", [False, True])
def test_integer_cholesky_method_is_pytorchs_not_implemented(device, dtype, upper):
    x = mg.tensor([[[4, 0], [0, 4]]], dtype=dtype, device=device)
    for call in (lambda: x.cholesky(upper=upper), lambda: mg.cholesky(x, upper=upper)):
        with pytest.raises(NotImplementedError) as caught:
            call()
        assert str(caught.value) == f"\"cholesky_cpu\" not implemented for '{NAMES[dtype]}'"
    with pytest.raises(RuntimeError, match="^linalg.cholesky: Expected a floating point or complex tensor as "
                                           f"input. Got {NAMES[dtype]}$"):
        mg.linalg.cholesky(x, upper=upper)


def test_a_shape_that_is_not_square_matrices_is_refused_first():
    # torch 2.13: "cholesky: A must be batches of square matrices, ..." before the dtype's kernel
    for x in (mg.ones(2, dtype=mg.int64), mg.ones(2, 3, dtype=mg.int64)):
        with pytest.raises(RuntimeError) as caught:
            x.cholesky()
        assert not isinstance(caught.value, NotImplementedError)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_floating_cholesky_method_still_factors(device, dtype):
    a = mg.tensor([[4.0, 2.0], [2.0, 5.0]], dtype=dtype, device=device)
    low = a.cholesky()
    assert low.dtype == dtype
    np.testing.assert_allclose(low.numpy(), [[2.0, 0.0], [1.0, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(mg.cholesky(a, upper=True).numpy(), [[2.0, 1.0], [0.0, 2.0]], rtol=1e-6)
