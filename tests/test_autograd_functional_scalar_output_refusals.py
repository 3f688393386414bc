"""``hessian``, ``hvp`` and ``vhp`` refuse what is not one Tensor of one element with PyTorch's words
and in its order.  Found by porting PyTorch's test/autograd/test_functional.py (``test_hessian_err_check``:
a function returning a tuple must be "The function given to hessian should return a single Tensor") and
then sweeping the three functions over strict/create_graph against torch 2.13: the engine said "... should
contain a single element" for a tuple (even of one one-element Tensor), and with ``strict=True`` it made
the size check before PyTorch's first strict check, so an output that does not require grad got the size
message where PyTorch's says "Output 0 ... does not require gradients".  (Messages below: torch 2.13's.)
"""

from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
X, V = mg.tensor([0.5, 1.0, 2.0]), mg.tensor([1.0, 2.0, 3.0])
SINGLE = "The function given to {} should return a single Tensor"
ELEMENT = "The Tensor returned by the function given to {} should contain a single element"
NO_GRAD = "Output 0 of the user-provided function does not require gradients."


def _call(name, func, strict, create_graph):
    if name == "hessian":
        return AF.hessian(func, X, strict=strict, create_graph=create_graph)
    return getattr(AF, name)(func, X, V, strict=strict, create_graph=create_graph)


# each: func, the message without strict, the message with strict
CASES = {
    "tuple of one scalar": (lambda a: ((a ** 2).sum(),), SINGLE, SINGLE),
    "tuple of two scalars": (lambda a: ((a ** 2).sum(), a.sum()), SINGLE, SINGLE),
    "tuple of a detached scalar": (lambda a: (a.detach().sum(),), SINGLE, NO_GRAD),
    "detached vector": (lambda a: a.detach() * 2, ELEMENT, NO_GRAD),
    "vector": (lambda a: a ** 2, ELEMENT, ELEMENT),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", ["hessian", "hvp", "vhp"])
def test_refusals_of_outputs_that_are_not_one_scalar(name, case, strict, create_graph):
    func, plain, with_strict = CASES[case]
    message = (with_strict if strict else plain).format(name)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _call(name, func, strict, create_graph)


@pytest.mark.parametrize("name", ["hessian", "hvp", "vhp"])
def test_a_one_element_tensor_of_any_shape_is_taken(name):
    result = _call(name, lambda a: (a ** 3).sum().reshape(1, 1), strict=True, create_graph=False)
    assert result is not None
