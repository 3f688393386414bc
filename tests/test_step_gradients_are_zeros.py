"""A step function's gradient (floor, ceil, trunc, round, sign, ``x ** 0``, floor division) is zeros, as
PyTorch's ``zeros_like(grad)``, on every device and through every seam (forward mode, ``mg.func``
transforms, checkpoint, in place, ``create_graph``): the engine multiplied the gradient by 0, so an
infinite or NaN upstream gradient gave NaN and a negative one -0.0.  The operator database at extremal
inputs (tests/data/operator_extreme_cases.py) holds torch 2.13's answers for the CPU and strict devices.
"""

from __future__ import annotations

import math

import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

INF, NAN = math.inf, math.nan


def _bits(t: mg.Tensor) -> list[tuple[bool, float]]:
    """Each value with its sign bit, so that 0.0 and -0.0 differ (and NaN, of either sign, equals NaN)."""
    values = t.detach().numpy().astype(float).tolist()
    return [(math.copysign(1, v) < 0, v) if v == v else (False, "nan") for v in values]


STEPS = {
    "floor": lambda x: x.floor(), "ceil": lambda x: x.ceil(), "trunc": lambda x: x.trunc(),
    "round": lambda x: x.round(), "round_decimals": lambda x: x.round(decimals=2), "sign": lambda x: x.sign(),
    "pow_0": lambda x: x.pow(0), "pow_tensor_0": lambda x: x.pow(mg.zeros_like(x)),
    "floor_divide": lambda x: x.floor_divide(mg.tensor(0.75, dtype=x.dtype, device=x.device)),
}


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", sorted(STEPS))
def test_a_step_functions_gradient_is_zeros_whatever_the_upstream_gradient(name, device, dtype):
    f = STEPS[name]
    x = mg.tensor([1.5, -2.25, 0.0, 7.0], dtype=dtype, device=device, requires_grad=True)
    upstream = mg.tensor([INF, NAN, -1.0, -INF], dtype=dtype, device=device)
    (g,) = mg.autograd.grad(f(x), x, upstream)
    assert _bits(g) == [(False, 0.0)] * 4
    assert g.dtype == dtype
    # forward mode and the transforms: zeros, not t * 0
    _, tangent = mg.func.jvp(f, (x.detach(),), (upstream,))
    assert _bits(tangent) == [(False, 0.0)] * 4
    assert _bits(mg.func.grad(lambda t: (f(t) * upstream).sum())(x.detach())) == [(False, 0.0)] * 4
    per_row = mg.func.vmap(mg.func.grad(lambda t: (f(t) * -1.0).sum()))(x.detach()[:, None])
    assert _bits(per_row.reshape(-1)) == [(False, 0.0)] * 4
    # inside a checkpointed block, the replay's gradient too
    (g,) = mg.autograd.grad((checkpoint(f, x, use_reentrant=False) * upstream).sum(), x)
    assert _bits(g) == [(False, 0.0)] * 4


def test_a_step_in_a_graph_keeps_the_inputs_graph_as_pytorchs():
    # torch 2.13: grad((x * x).floor().sum(), x, create_graph=True) is [0, -0, 0] with a grad_fn (the
    # chain through x * x), grad(x.floor().sum(), x, create_graph=True) zeros without one
    x = mg.tensor([1.5, -2.0, 0.0], requires_grad=True)
    (g,) = mg.autograd.grad((x * x).floor().sum(), x, create_graph=True)
    assert g.requires_grad and g.tolist() == [0.0, 0.0, 0.0]
    (g,) = mg.autograd.grad(x.floor().sum(), x, create_graph=True)
    assert not g.requires_grad


def test_in_place_steps_have_the_same_gradient():
    x = mg.tensor([1.5, -2.25, 0.0], requires_grad=True)
    y = x * 1.0
    y.floor_()
    (g,) = mg.autograd.grad(y, x, mg.tensor([INF, NAN, -1.0]))
    assert _bits(g) == [(False, 0.0)] * 3



#: Operands an op reads only for a sign or a direction, so their derivative is 0 everywhere: PyTorch's
#: backward answers ``zeros_like(grad)`` for them (copysign's sign operand) -- the engine multiplied the
#: gradient by 0, so an infinite or NaN one gave NaN there and a negative one -0.0.
SIGN_OPERANDS = {
    "copysign": lambda x, y: x.copysign(y),
    "copysign_function": lambda x, y: mg.copysign(x, y),
    "nextafter": lambda x, y: x.nextafter(y),
}


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", sorted(SIGN_OPERANDS))
def test_an_operand_read_for_its_sign_gets_zeros_whatever_the_upstream_gradient(name, device, dtype):
    f = SIGN_OPERANDS[name]
    x = mg.tensor([1.5, -2.25, 0.0, 7.0], dtype=dtype, device=device, requires_grad=True)
    y = mg.tensor([-1.0, 2.0, -0.0, INF], dtype=dtype, device=device, requires_grad=True)
    upstream = mg.tensor([INF, NAN, -1.0, -INF], dtype=dtype, device=device)
    (g,) = mg.autograd.grad(f(x, y), y, upstream)
    assert _bits(g) == [(False, 0.0)] * 4  # torch 2.13: tensor([0., 0., 0., 0.])
    assert g.dtype == dtype
    (g,) = mg.autograd.grad((checkpoint(f, x, y, use_reentrant=False) * upstream).sum(), y)
    assert _bits(g) == [(False, 0.0)] * 4
    # forward mode: the sign operand's tangent adds nothing, an infinite one included
    _, tangent = mg.func.jvp(f, (x.detach(), y.detach()), (mg.zeros_like(x.detach()), upstream))
    assert all(v == 0.0 for _, v in _bits(tangent))
