"""``mg.func.grad`` (and ``grad_and_value``, ``value_and_grad``) takes a 0-d output only, as ``torch.func.grad``.

A one-element output of another shape -- ``loss.reshape(1)``, a ``(1, 1)`` product -- was differentiated as
if it were the scalar; torch 2.13 refuses it ("grad_and_value(f)(*args): Expected f(*args) to return a scalar
Tensor, got tensor with 1 dims"), and so does JAX.  ``mg.autograd.functional``'s ``hvp``/``vhp``/``hessian``,
built on it, take any one-element output, as PyTorch's do.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices

SHAPES = [(1,), (1, 1)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("transform", [F.grad, F.grad_and_value, F.value_and_grad])
def test_a_one_element_output_that_is_not_0d_is_refused(transform, shape):
    x = mg.tensor([0.5, 1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Expected f\(\*args\) to return a scalar Tensor"):
        transform(lambda a: (a ** 2).sum().reshape(shape))(x)
    with pytest.raises(RuntimeError, match="scalar Tensor"):
        transform(lambda a: ((a ** 2).sum().reshape(shape), a), has_aux=True)(x)


@pytest.mark.parametrize("device, dtype", [("cpu", "float32"), ("cpu", "float64"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_a_0d_output_is_differentiated_and_its_aux_kept(device, dtype):
    x = mg.tensor([0.5, 1.0, 2.0], dtype=dtype, device=device)
    g, aux = F.grad(lambda a: ((a ** 2).sum(), a.reshape(1, 3)), has_aux=True)(x)
    assert g.dtype == x.dtype and aux.shape == (1, 3)
    np.testing.assert_allclose(g.numpy(), [1.0, 2.0, 4.0])
    # PyTorch's autograd.functional takes a one-element output of any shape, and answers in its shape
    value, hv = mg.autograd.functional.hvp(lambda a: (a ** 3).sum().reshape(1, 1), x, mg.ones_like(x))
    assert value.shape == (1, 1)
    np.testing.assert_allclose(hv.numpy(), 6 * x.numpy(), rtol=1e-6)
    value, vh = mg.autograd.functional.vhp(lambda a: (a ** 3).sum().reshape(1), x, mg.ones_like(x))
    assert value.shape == (1,)
    np.testing.assert_allclose(vh.numpy(), 6 * x.numpy(), rtol=1e-6)
    h = mg.autograd.functional.hessian(lambda a: (a ** 3).sum().reshape(1), x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * x.numpy()), rtol=1e-6)
