"""An auxiliary output (``has_aux=True``) holds tensors only, as torch.func's.

torch 2.13's ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian``
refuse an aux that holds a number, a string, None or a NumPy array -- anywhere in its pytree -- with
``RuntimeError: Expected tensors, got unsupported type <class 'int'>``.  The engine used to hand such
an aux back as given, so a program that returned ``(loss, {"step": 3})`` ran here and failed the moment
it ran on PyTorch (``(loss, a.shape)`` too: a shape is a tuple of ints).  The messages below are
torch 2.13's, pasted.  ``hessian(has_aux=True)``, ``hvp``, ``linearize(has_aux=True)`` and
``value_and_grad`` are the engine's own (torch.func's hessian and linearize take no ``has_aux``) and
follow the same rule.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.func


def x64():
    return mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64)


# each transform called with a function returning (output, aux); the output is a scalar for grad
CALLS = {
    "grad": lambda aux: F.grad(lambda a: (a.sin().sum(), aux(a)), has_aux=True)(x64()),
    "grad_and_value": lambda aux: F.grad_and_value(lambda a: (a.sin().sum(), aux(a)), has_aux=True)(x64()),
    "vjp": lambda aux: F.vjp(lambda a: (a.sin(), aux(a)), x64(), has_aux=True),
    "jvp": lambda aux: F.jvp(lambda a: (a.sin(), aux(a)), (x64(),), (x64(),), has_aux=True),
    "jacrev": lambda aux: F.jacrev(lambda a: (a.sin(), aux(a)), has_aux=True)(x64()),
    "jacfwd": lambda aux: F.jacfwd(lambda a: (a.sin(), aux(a)), has_aux=True)(x64()),
    "hessian": lambda aux: F.hessian(lambda a: (a.sin().sum(), aux(a)), has_aux=True)(x64()),
}

# (aux, the type torch 2.13 names)
NOT_TENSORS = {
    "int": (lambda a: 3, "<class 'int'>"),
    "str": (lambda a: "note", "<class 'str'>"),
    "None": (lambda a: None, "<class 'NoneType'>"),
    "float beside a tensor": (lambda a: [a * 2, 1.5], "<class 'float'>"),
    "ndarray in a dict": (lambda a: {"w": np.ones(2)}, "<class 'numpy.ndarray'>"),
    "a shape": (lambda a: a.shape, "<class 'int'>"),
}


@pytest.mark.parametrize("transform", sorted(CALLS))
@pytest.mark.parametrize("kind", sorted(NOT_TENSORS))
def test_an_aux_that_holds_a_non_tensor_is_refused_as_torch_func_refuses_it(transform, kind):
    aux, named = NOT_TENSORS[kind]
    with pytest.raises(RuntimeError, match=f"^Expected tensors, got unsupported type {named}$"):
        CALLS[transform](aux)


@pytest.mark.parametrize("transform", sorted(CALLS))
def test_an_aux_of_tensors_in_containers_comes_back(transform):
    result = CALLS[transform](lambda a: {"double": a * 2, "parts": (a.sum(), [a.cos()])})
    aux = result[-1] if transform in ("vjp", "jvp") else result[1]
    if transform == "grad_and_value":
        aux = result[1][1]
    np.testing.assert_allclose(aux["double"].numpy(), [1.0, -2.0, 4.0])
    np.testing.assert_allclose(aux["parts"][0].item(), 1.5)
    np.testing.assert_allclose(aux["parts"][1][0].numpy(), np.cos([0.5, -1.0, 2.0]))
