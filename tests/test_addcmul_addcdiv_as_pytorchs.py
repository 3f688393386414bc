"""``addcmul`` and ``addcdiv`` are one op each (:mod:`minigrad_ckpt.ops.pointwise`), PyTorch's kernels
and derivatives.yaml formulas in its order of rounding: ``d/dtensor1 = g * (tensor2 * value)`` /
``g * (value / tensor2)``, ``d/dtensor2 = g * (tensor1 * value)`` / ``-g * ((value * tensor1) /
(tensor2 * tensor2))``, and the tangent ``self_t + (t1_t * t2) * value + (t2_t * t1) * value`` /
``self_t + (t1_t / t2) * value - (t2_t * (t1 / t2) / t2) * value``; float16 a kernel at a time in
float32, each rounded.  As compositions, a third of the gradients and tangents were a unit off.
Fixtures from torch 2.13 (CPU).  ``addcmul``'s float32/float64 value is left out: PyTorch's
vectorised loop is a fused multiply-add (docs/from-pytorch.md)."""

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

DEVICES = ["cpu", "strict"]
_DATA = json.loads((Path(__file__).parent / "data" / "torch_addcmul_addcdiv.json").read_text())
CASES = [(name, value, dtype) for dtype in _DATA["cases"] for name in ("addcmul", "addcdiv")
         for value in _DATA["values"]]


def _arrays(dtype, *names):
    inputs = _DATA["cases"][dtype]["inputs"]
    return [np.asarray(inputs[n], dtype=dtype) for n in names]


def _want(name, value, dtype):
    return _DATA["cases"][dtype][f"{name}/{value}"]


def _same_bits(got, want, dtype):
    np.testing.assert_array_equal(got.detach().cpu().numpy(), np.asarray(want, dtype=dtype))


def _fused_in_pytorch(name, dtype):
    return name == "addcmul" and dtype != "float16"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, value, dtype", CASES)
@pytest.mark.parametrize("how", ["function", "in_place", "checkpoint"])
def test_gradients_are_pytorchs_bit_for_bit(name, value, dtype, device, how):
    x, t1, t2, g = (mg.tensor(a, device=device, requires_grad=True) for a in _arrays(dtype, "x", "t1", "t2", "g"))
    fn = getattr(mg, name)
    if how == "in_place":
        out = getattr(x * 1, name + "_")(t1, t2, value=value)
    elif how == "checkpoint":
        out = mg.checkpoint.checkpoint(lambda *a: fn(*a, value=value), x, t1, t2, use_reentrant=False)
    else:
        out = fn(x, t1, t2, value=value)
    if not _fused_in_pytorch(name, dtype):
        _same_bits(out, _want(name, value, dtype)["out"], dtype)
    out.backward(g.detach())
    for tensor, want in zip((x, t1, t2), _want(name, value, dtype)["grads"]):
        _same_bits(tensor.grad, want, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, value, dtype", CASES)
def test_tangent_is_pytorchs_bit_for_bit(name, value, dtype, device):
    primals = tuple(mg.tensor(a, device=device) for a in _arrays(dtype, "x", "t1", "t2"))
    tangents = tuple(mg.tensor(a, device=device) for a in _arrays(dtype, "tx", "tt1", "tt2"))
    _, tangent = mg.func.jvp(lambda *a: getattr(mg, name)(*a, value=value), primals, tangents)
    _same_bits(tangent, _want(name, value, dtype)["tangent"], dtype)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_one_node_of_pytorchs_name_and_out_takes_the_result(name):
    x, t1, t2 = (mg.tensor(a, requires_grad=True) for a in _arrays("float32", "x", "t1", "t2"))
    out = getattr(mg, name)(x, t1, t2, value=0.3)
    assert out.grad_fn.name() == ("AddcmulBackward0" if name == "addcmul" else "AddcdivBackward0")
    into = mg.empty(32, dtype=mg.float64)
    getattr(mg, name)(x.detach(), t1.detach(), t2.detach(), value=0.3, out=into)
    np.testing.assert_array_equal(into.numpy(), out.detach().numpy().astype(np.float64))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_second_derivatives_agree_with_central_differences(name):
    x, t1, t2 = (mg.tensor(a, requires_grad=True) for a in _arrays("float64", "x", "t1", "t2"))
    fn = lambda *a: getattr(mg, name)(*a, value=-2.7)  # noqa: E731
    assert mg.autograd.gradcheck(fn, (x, t1, t2))
    assert mg.autograd.gradgradcheck(fn, (x, t1, t2))
