"""The ``dtype=`` of ``linalg.norm``, ``vector_norm`` and ``matrix_norm`` under PyTorch's rules.

``vector_norm(3+4j, dtype=float64)`` cast the complex input to float64 first -- dropping the
imaginary parts -- and answered 3 (so did ``matrix_norm``); torch 2.13 refuses: "linalg.vector_norm:
dtype should be complex for complex inputs, but got Double" (and the converse for real inputs, and
a narrowing cast such as float64 to float32).  ``linalg.norm`` did not take ``dtype=`` at all
(a TypeError); it casts first as the other two do.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

L = mg.linalg
NORMS = {"norm": L.norm, "vector_norm": L.vector_norm, "matrix_norm": L.matrix_norm}
X = np.random.default_rng(5).standard_normal((3, 4))


@pytest.mark.parametrize("name", sorted(NORMS))
@pytest.mark.parametrize("dtype, wrong", [(mg.float64, mg.complex128), (mg.complex128, mg.float64),
                                          (mg.complex64, mg.float32)])
def test_a_dtype_of_the_other_kind_is_refused(name, dtype, wrong):
    x = mg.tensor(X * (1 + 1j) if dtype.kind == "c" else X, dtype=dtype)
    with pytest.raises(RuntimeError, match="dtype should be"):
        NORMS[name](x, dtype=wrong)


@pytest.mark.parametrize("name", sorted(NORMS))
@pytest.mark.parametrize("dtype, narrower", [(mg.float64, mg.float32), (mg.complex128, mg.complex64)])
def test_a_narrowing_dtype_is_refused(name, dtype, narrower):
    x = mg.tensor(X * (1 + 1j) if dtype.kind == "c" else X, dtype=dtype)
    with pytest.raises(RuntimeError, match="narrowing"):
        NORMS[name](x, dtype=narrower)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("kwargs", [{}, {"ord": "nuc"}, {"ord": 2}, {"dim": 1}, {"ord": 3, "dim": 0, "keepdim": True},
                                    {"ord": -1}])
@pytest.mark.parametrize("complex_", [False, True])
def test_linalg_norm_casts_to_its_dtype_first(kwargs, complex_, device):
    data = X * (1 + 2j) if complex_ else X
    x = mg.tensor(data, dtype=mg.complex64 if complex_ else mg.float32, device=device, requires_grad=True)
    out = L.norm(x, dtype=mg.complex128 if complex_ else mg.float64, **kwargs)
    x64 = mg.tensor(data, device=device, requires_grad=True)
    want = L.norm(x64, **kwargs)
    assert out.dtype == mg.float64
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    out.sum().backward()
    want.sum().backward()
    assert x.grad.dtype == x.dtype
    np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_widening_or_equal_dtype_is_the_value_of_the_wider_input():
    half = mg.tensor([3.0, 4.0], dtype=mg.float16)
    assert L.vector_norm(half, dtype=mg.float32).item() == 5.0
    assert L.vector_norm(mg.tensor([3 + 4j]), dtype=mg.complex128).item() == 5.0
