"""``hvp`` and ``vhp`` with ``strict=True``: a gradient that does not reach an input at all is PyTorch's
"The output of the user-provided function is independent of input j", and one that reaches it but is
constant (a linear function) the "While computing the hessian, ..." message.  Found by porting PyTorch's
test/autograd/test_functional.py (``test_vhp_err_check_strict``, ``test_hvp_err_check_strict``): the
engine gave the Hessian message to both.  ``hessian`` itself gives the Hessian message to both, as
PyTorch's (its inner Jacobian has filled in zeros by then).  (Messages: torch 2.13's.)
"""

from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
UNREACHED = "The output of the user-provided function is independent of input {}. This is not allowed in strict mode."
CONSTANT = "While computing the hessian, found that the jacobian of the user-provided function with respect to input {}"


def _cut_off(a):  # requires grad but is not connected to the input
    return a.long().float().requires_grad_().clone().sum()


def _linear(a):
    return (3 * a).sum()


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_one_input(name, dtype, create_graph):
    x, v = mg.tensor([0.5, 1.5], dtype=dtype), mg.ones(2, dtype=dtype)
    api = getattr(AF, name)
    with pytest.raises(RuntimeError, match=re.escape(UNREACHED.format(0))):
        api(_cut_off, x, v, strict=True, create_graph=create_graph)
    with pytest.raises(RuntimeError, match=re.escape(CONSTANT.format(0))):
        api(_linear, x, v, strict=True, create_graph=create_graph)
    _, hv = api(_cut_off, x, v)  # without strict: zeros
    assert hv.dtype == dtype and not hv.numpy().any()


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_the_second_of_two_inputs_unused(name):
    x, y, v = mg.tensor([0.5, 1.5]), mg.tensor([2.0]), (mg.ones(2), mg.ones(1))
    with pytest.raises(RuntimeError, match=re.escape(UNREACHED.format(1))):
        getattr(AF, name)(lambda a, b: (a ** 2).sum(), (x, y), v, strict=True)


def test_hessian_gives_the_hessian_message_to_both():
    x, y = mg.tensor([0.5, 1.5]), mg.tensor([2.0])
    with pytest.raises(RuntimeError, match=re.escape(CONSTANT.format(0))):
        AF.hessian(_cut_off, x, strict=True)
    with pytest.raises(RuntimeError, match=re.escape(CONSTANT.format(1))):
        AF.hessian(lambda a, b: (a ** 2).sum(), (x, y), strict=True)
