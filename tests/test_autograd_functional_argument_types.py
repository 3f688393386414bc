"""``mg.autograd.functional`` takes inputs, and functions returning, a Tensor or a tuple of Tensors,
and raises PyTorch's TypeError in its words otherwise (torch 2.13's messages below): a function
returning a number raised the transforms' RuntimeError ("jacrev: output is a float..."), a list of
inputs or outputs was taken where PyTorch refuses it.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
X = mg.tensor([1.0, 2.0], dtype=mg.float64)

CASES = {
    "hessian of a number": (lambda: AF.hessian(lambda a: 3.0, X),
                            "The outputs of the user-provided function given to hessian must be either a Tensor or "
                            "a tuple of Tensors but the given outputs of the user-provided function has type "
                            "<class 'float'>."),
    "jacobian of a number": (lambda: AF.jacobian(lambda a: 3.0, X),
                             "The outputs of the user-provided function given to jacobian must be either a Tensor "
                             "or a tuple of Tensors but the given outputs of the user-provided function has type "
                             "<class 'float'>."),
    "jvp of a number": (lambda: AF.jvp(lambda a: 3.0, X, X),
                        "The outputs of the user-provided function given to jvp must be either a Tensor or a tuple "
                        "of Tensors but the given outputs of the user-provided function has type <class 'float'>."),
    "vjp of a list": (lambda: AF.vjp(lambda a: [a], X, (X,)),
                      "The outputs of the user-provided function given to vjp must be either a Tensor or a tuple "
                      "of Tensors but the given outputs of the user-provided function has type <class 'list'>."),
    "jacobian of a tuple holding a number": (lambda: AF.jacobian(lambda a: (a, 3.0), X),
                                             "The outputs of the user-provided function given to jacobian must be "
                                             "either a Tensor or a tuple of Tensors but the value at index 1 has "
                                             "type <class 'float'>."),
    "jacobian of a list of inputs": (lambda: AF.jacobian(lambda a: a, [X]),
                                     "The inputs given to jacobian must be either a Tensor or a tuple of Tensors "
                                     "but the given inputs has type <class 'list'>."),
    "hvp of a list of inputs": (lambda: AF.hvp(lambda a: a.sum(), [X], [X]),
                                "The inputs given to hvp must be either a Tensor or a tuple of Tensors but the "
                                "given inputs has type <class 'list'>."),
    "vhp of a number input": (lambda: AF.vhp(lambda a: a, 3.0),
                              "The inputs given to vhp must be either a Tensor or a tuple of Tensors but the given "
                              "inputs has type <class 'float'>."),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pytorchs_type_error(name):
    call, message = CASES[name]
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_a_tensor_or_a_tuple_of_tensors_is_taken():
    ((J0, J1),) = AF.jacobian(lambda a, b: (a * b,), (X, X))  # torch 2.13: a tuple (outputs) of tuples (inputs)
    assert J0.shape == (2, 2) and J1.shape == (2, 2)
    assert AF.vjp(lambda a: (a, a * 2), X, (X, X))[1].tolist() == [3.0, 6.0]
