"""PyTorch's argument names of the fixed-rank products, and ``mg.spmm``.

torch 2.13 takes ``torch.mm(input=a, mat2=b)``, ``a.mm(mat2=b)``, ``torch.bmm(input=, mat2=)``,
``torch.mv(input=, vec=)``, ``a.dot(tensor=)``, ``torch.vdot(input=, other=)``, ``a.outer(vec2=)``,
``a.ger(vec2=)``; each was a TypeError here (``mm() got an unexpected keyword argument 'input'``).
``torch.spmm(input, mat2)`` (pytorch/examples ``gcn``: ``output = torch.spmm(adj_mat, support)``) is
the matrix product of a sparse and a dense matrix, and of two dense ones the plain product
(``torch.spmm(torch.ones(2, 2), torch.ones(2, 3))`` is ``2 * ones(2, 3)``; a 1-D operand is an
error, "self must be a matrix"); it was an AttributeError here.  torch.Tensor has no ``spmm``.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

A = np.arange(6.0).reshape(2, 3)
B = np.arange(12.0).reshape(3, 4) / 7


@pytest.mark.parametrize("call, want", [
    (lambda a, b: mg.mm(input=a, mat2=b), lambda: A @ B),
    (lambda a, b: a.mm(mat2=b), lambda: A @ B),
    (lambda a, b: mg.bmm(input=a[None], mat2=b[None])[0], lambda: A @ B),
    (lambda a, b: a[None].bmm(mat2=b[None])[0], lambda: A @ B),
    (lambda a, b: mg.mv(input=a, vec=b[:, 0]), lambda: A @ B[:, 0]),
    (lambda a, b: a.mv(vec=b[:, 0]), lambda: A @ B[:, 0]),
    (lambda a, b: a[0].dot(tensor=b[:, 1]), lambda: A[0] @ B[:, 1]),
    (lambda a, b: mg.vdot(input=a[0], other=b[:, 1]), lambda: A[0] @ B[:, 1]),
    (lambda a, b: a[0].outer(vec2=b[0]), lambda: np.outer(A[0], B[0])),
    (lambda a, b: a[0].ger(vec2=b[0]), lambda: np.outer(A[0], B[0])),
    (lambda a, b: mg.spmm(a, b), lambda: A @ B),
    (lambda a, b: mg.spmm(input=a, mat2=b), lambda: A @ B),
], ids=["mm", "Tensor.mm", "bmm", "Tensor.bmm", "mv", "Tensor.mv", "Tensor.dot", "vdot", "Tensor.outer",
        "Tensor.ger", "spmm", "spmm-keywords"])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)], ids=str)
def test_pytorchs_argument_names(call, want, device, dtype):
    out = call(mg.tensor(A, dtype=dtype, device=device), mg.tensor(B, dtype=dtype, device=device))
    assert out.dtype == dtype and out.device == mg.device(device)
    np.testing.assert_allclose(out.cpu().numpy(), want(), rtol=1e-6)


def test_the_operands_are_two():
    a = mg.ones(2, 2)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'mat2'"):
        mg.mm(a)
    with pytest.raises(TypeError, match="multiple values for argument 'mat2'"):
        mg.mm(a, a, mat2=a)
    with pytest.raises(TypeError):
        mg.mm(a, mat3=a)
    with pytest.raises(TypeError):
        mg.mm(a, a, a)


def test_spmm_is_a_product_of_matrices_only_and_no_method():
    with pytest.raises(ValueError, match="2-D and 2-D"):
        mg.spmm(mg.ones(2), mg.ones(2, 3))
    assert not hasattr(mg.Tensor, "spmm")
    assert mg.spmm.__name__ == "spmm"


def test_spmm_differentiates_as_mm_under_grad_jvp_vmap_and_checkpoint():
    a, b = mg.tensor(A), mg.tensor(B)
    ga = mg.func.grad(lambda x: (mg.spmm(x, b) ** 2).sum())(a)
    np.testing.assert_allclose(ga.numpy(), 2 * (A @ B) @ B.T, rtol=1e-12)
    _, tangent = mg.func.jvp(lambda x: mg.spmm(a, x), (b,), (mg.ones(3, 4, dtype=mg.float64),))
    np.testing.assert_allclose(tangent.numpy(), A @ np.ones((3, 4)), rtol=1e-12)
    batched = mg.func.vmap(lambda x: mg.spmm(x, b))(mg.tensor(np.stack([A, 2 * A])))
    np.testing.assert_allclose(batched.numpy(), np.stack([A @ B, 2 * A @ B]), rtol=1e-12)
    leaf = mg.tensor(A, requires_grad=True)
    checkpoint(lambda x: mg.spmm(x, b), leaf, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.ones((2, 4)) @ B.T, rtol=1e-12)
