"""``requires_grad`` takes a Python bool only, as PyTorch's: a truthy ``'x'``, ``1`` or ``np.True_``
used to switch gradients on silently (and ``nn.Linear(1, 1).requires_grad_("x")`` passed).
torch 2.13: ``t.requires_grad = 'x'`` is ``RuntimeError: requires_grad must be a bool``;
``t.requires_grad_(1)`` is ``TypeError: requires_grad_(): argument 'requires_grad' (position 1)
must be bool, not int``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NOT_BOOLS = ["x", 1, 0, 1.0, None, np.True_]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
def test_the_attribute_and_the_method_refuse_what_is_not_a_bool(device, value):
    t = mg.zeros(2, device=device)
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
        t.requires_grad = value
    with pytest.raises(TypeError, match=r"must be bool, not " + type(value).__name__):
        t.requires_grad_(value)
    assert t.requires_grad is False  # nothing changed
    lin = mg.nn.Linear(1, 1)
    with pytest.raises(TypeError, match="must be bool"):
        lin.requires_grad_(value)
    assert all(p.requires_grad for p in lin.parameters())


def test_bools_still_switch_and_modules_pass_them_on():
    t = mg.zeros(2)
    t.requires_grad = True
    assert t.requires_grad_(False) is t and not t.requires_grad
    lin = mg.nn.Linear(1, 1).requires_grad_(False)
    assert not any(p.requires_grad for p in lin.parameters())
    x = mg.ones(1, requires_grad=True)
    assert mg.func.grad(lambda v: (v * v).sum())(x).tolist() == [2.0]  # the transforms set it as before


CREATORS = {
    "tensor": lambda v: mg.tensor([1.0], requires_grad=v),
    "zeros": lambda v: mg.zeros(2, requires_grad=v),
    "empty": lambda v: mg.empty(2, requires_grad=v),
    "full": lambda v: mg.full((2,), 1.0, requires_grad=v),
    "randn": lambda v: mg.randn(2, requires_grad=v),
    "arange": lambda v: mg.arange(3.0, requires_grad=v),
    "zeros_like": lambda v: mg.zeros_like(mg.ones(2), requires_grad=v),
    "asarray": lambda v: mg.asarray([1.0], requires_grad=v),
    "Parameter": lambda v: mg.nn.Parameter(mg.zeros(2), requires_grad=v),
}


@pytest.mark.parametrize("name", list(CREATORS))
def test_creation_functions_take_a_bool_and_mg_empty_takes_it_at_all(name):
    """torch 2.13: ``torch.zeros(2, requires_grad=1)`` is ``TypeError: zeros(): argument 'requires_grad'
    must be bool, not int`` (``torch.nn.Parameter(t, requires_grad='x')`` its ``_make_subclass``'s);
    ``mg.empty(2, requires_grad=True)`` was a ``TypeError`` of an unexpected keyword."""
    make = CREATORS[name]
    for value in ("x", 1):
        with pytest.raises(TypeError, match="must be bool, not " + type(value).__name__):
            make(value)
    assert make(True).requires_grad is True
    assert make(False).requires_grad is False


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_eye_randint_randperm_take_requires_grad_as_pytorchs(device):
    """pytorch/tutorials basics/autogradqs_tutorial.py: ``torch.eye(4, 5, requires_grad=True)`` -- here a
    TypeError of an unexpected keyword (and for ``randint``, ``randperm``, ``randint_like``).  torch 2.13:
    a leaf that requires grad; ``(inp + 1).pow(2).t()`` backward twice with ones gives a first row of
    ``[4, 2, 2, 2, 2]`` then ``[8, 4, 4, 4, 4]``; an integer dtype refuses it; ``requires_grad=1`` is a TypeError."""
    inp = mg.eye(4, 5, requires_grad=True, device=device)
    assert inp.is_leaf and inp.requires_grad and inp.dtype == mg.float32
    out = (inp + 1).pow(2).t()
    out.backward(mg.ones_like(out), retain_graph=True)
    assert inp.grad[0].tolist() == [4.0, 2.0, 2.0, 2.0, 2.0]
    out.backward(mg.ones_like(out), retain_graph=True)
    assert inp.grad[0].tolist() == [8.0, 4.0, 4.0, 4.0, 4.0]
    floats = [mg.randperm(4, dtype=mg.float32, requires_grad=True, device=device),
              mg.randint(0, 3, (2,), dtype=mg.float64, requires_grad=True, device=device),
              mg.randint_like(mg.ones(2, device=device), 3, requires_grad=True)]
    assert all(t.requires_grad and t.is_leaf for t in floats)
    for make in (lambda: mg.randint(0, 3, (2,), requires_grad=True), lambda: mg.randperm(3, requires_grad=True),
                 lambda: mg.eye(2, dtype=mg.int64, requires_grad=True)):
        with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require"):
            make()
    with pytest.raises(TypeError, match="must be bool, not int"):
        mg.eye(3, requires_grad=1)
    assert not mg.eye(2).requires_grad and not mg.randperm(3).requires_grad
