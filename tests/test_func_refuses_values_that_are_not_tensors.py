"""``mg.func``'s transforms refuse a value to differentiate that is not a Tensor, as ``torch.func`` does.

A Python number, a NumPy array, ``None`` or a string where a transform differentiates -- an argument in
``argnums``, a primal, a tangent, a cotangent -- was converted to a tensor (a number in the default dtype,
an array in float64) and the derivative with respect to that copy handed back; ``None`` ran the function on
``None``.  torch 2.13 refuses each (its words and types are written beside the cases).  Arguments a
transform does not differentiate may be anything, as in PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

NOT_TENSORS = {"float": 3.0, "int": 3, "array": np.array([1.0, 2.0]), "None": None, "str": "s",
               "a list holding a number": [mg.tensor(1.0), 2.0],
               "a dict holding None": {"a": mg.tensor([1.0]), "b": None}}


def _double(x):
    if isinstance(x, (list, tuple)):
        return sum(_double(v) for v in x)
    if isinstance(x, dict):
        return sum(_double(v) for v in x.values() if v is not None)
    return (x * 2).sum()


# torch 2.13: ValueError "Thing passed to transform API must be Tensor, got <class 'float'>" (grad, vjp, jacrev);
# its jacfwd, hessian and linearize fail on the value's missing numel/new_empty (AttributeError)
REVERSE_AND_JACOBIANS = {
    "grad": lambda v: F.grad(_double)(v),
    "grad_and_value": lambda v: F.grad_and_value(_double)(v),
    "grad, the second of argnums": lambda v: F.grad(lambda a, b: a.sum() * _double(b), argnums=(0, 1))(mg.ones(2), v),
    "vjp": lambda v: F.vjp(_double, v),
    "jacrev": lambda v: F.jacrev(_double)(v),
    "jacfwd": lambda v: F.jacfwd(_double)(v),
    "hessian": lambda v: F.hessian(_double)(v),
    "linearize": lambda v: F.linearize(_double, v),
}


@pytest.mark.parametrize("value", NOT_TENSORS)
@pytest.mark.parametrize("transform", REVERSE_AND_JACOBIANS)
def test_a_value_to_differentiate_that_is_not_a_tensor_is_a_value_error(transform, value):
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor, got"):
        REVERSE_AND_JACOBIANS[transform](NOT_TENSORS[value])


@pytest.mark.parametrize("value", NOT_TENSORS)
def test_jvp_refuses_a_primal_or_tangent_that_is_not_a_tensor_with_a_runtime_error(value):
    # torch 2.13: RuntimeError "jvp(f, primals, tangents): Expected primals to only contain Tensors, got ..."
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected primals to only contain Tensors"):
        F.jvp(_double, (NOT_TENSORS[value],), (NOT_TENSORS[value],))
    with pytest.raises(RuntimeError, match="Expected tangents to only contain Tensors"):
        F.jvp(lambda a: a * 2, (x,), (x.numpy(),))
    with pytest.raises(RuntimeError, match="Expected tangents to only contain Tensors"):
        F.linearize(lambda a: a * 2, x)[1](x.numpy())


def test_jvp_takes_tuples_only_as_torch_does():
    # torch 2.13: RuntimeError "Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
    # and, for a list of tangents, "Expected primals and tangents to have the same python structure"
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        F.jvp(lambda a: a * 2, [x], [x])
    with pytest.raises(RuntimeError, match="same python structure"):
        F.jvp(lambda a: a * 2, (x,), [x])


@pytest.mark.parametrize("cotangent", [1.0, np.array([1.0, 1.0])])
def test_a_cotangent_that_is_not_a_tensor_is_a_type_error(cotangent):
    # torch 2.13: TypeError "gradients can be either Tensors or None, but got float" (and ndarray)
    x = mg.tensor([1.0, 2.0])
    f = (lambda a: a.sum()) if isinstance(cotangent, float) else (lambda a: a * 2)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        F.vjp(f, x)[1](cotangent)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arguments_not_differentiated_may_be_anything_and_tensors_are_answered(dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype)
    g = F.grad(lambda a, scale, tag: (a * scale).sum(), argnums=0)(x, 3.0, None)
    assert g.dtype == x.dtype and g.tolist() == [3.0, 3.0]
    _, t = F.jvp(lambda a, s: a * s, (x, mg.tensor(2.0, dtype=dtype)), (x, mg.tensor(0.0, dtype=dtype)))
    assert t.dtype == x.dtype and t.tolist() == [2.0, 4.0]
    (ct,) = F.vjp(lambda a: a.sum(), x)[1](mg.tensor(1.0, dtype=dtype))
    assert ct.dtype == x.dtype and ct.tolist() == [1.0, 1.0]
