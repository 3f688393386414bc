"""The gradients and tangents of rsqrt, hypot, remainder and fmod are PyTorch's bit for bit: its
backward formulas (derivatives.yaml) in its order of rounding -- rsqrt's ``(-0.5 * g) * r**3`` (not the
chain rule of ``reciprocal(sqrt(x))``), hypot's ``(g * x) / hypot`` (not ``g * (x / hypot)``), and the
quotient of remainder/fmod's gradient in ``other`` as ``div(x, y, rounding_mode=floor/trunc)`` (not
``round((x - out) / y)``).  Fixtures from torch 2.13 (CPU); float16 where PyTorch's CPU has the op."""

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

DEVICES = ["cpu", "strict"]

_DATA = json.loads((Path(__file__).parent / "data" / "torch_backward_arithmetic.json").read_text())
X, A, B, P, Q, G, T = (_DATA["inputs"][name] for name in "XABPQGT")
TORCH = {tuple(key.split("/")): values for key, values in _DATA["grads_then_tangent"].items()}


FUNCTIONS = {"rsqrt": (mg.rsqrt, (X,)), "hypot": (mg.hypot, (A, B)),
             "remainder": (mg.remainder, (P, Q)), "fmod": (mg.fmod, (P, Q))}


def _same_bits(got, want, dtype):
    np.testing.assert_array_equal(got.cpu().numpy(), np.asarray(want, dtype=dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, dtype", sorted(TORCH))
@pytest.mark.parametrize("under_checkpoint", [False, True])
def test_gradient_is_pytorchs_bit_for_bit(name, dtype, device, under_checkpoint):
    fn, operands = FUNCTIONS[name]
    inputs = [mg.tensor(np.asarray(v, dtype=dtype), device=device, requires_grad=True) for v in operands]
    out = mg.checkpoint.checkpoint(fn, *inputs, use_reentrant=False) if under_checkpoint else fn(*inputs)
    out.backward(mg.tensor(np.asarray(G, dtype=dtype), device=device))
    for tensor, want in zip(inputs, TORCH[(name, dtype)]):
        _same_bits(tensor.grad, want, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, dtype", sorted(TORCH))
def test_tangent_is_pytorchs_bit_for_bit(name, dtype, device):
    fn, operands = FUNCTIONS[name]
    primals = tuple(mg.tensor(np.asarray(v, dtype=dtype), device=device) for v in operands)
    tangents = tuple(mg.tensor(np.asarray(v, dtype=dtype), device=device) for v in (T, G)[:len(operands)])
    _, tangent = mg.func.jvp(fn, primals, tangents)
    _same_bits(tangent, TORCH[(name, dtype)][-1], dtype)


def test_hypot_forms_the_ratio_first_only_where_pytorchs_product_underflows():
    # documented (docs/from-pytorch.md): PyTorch's (g * x) / r is -0.0 here; the ratio first gives -0.5
    x = mg.tensor(np.array([1e-45, 0.0], dtype=np.float32), requires_grad=True)
    mg.hypot(x, mg.zeros(2)).backward(mg.tensor(np.array([-0.5, 1.0], dtype=np.float32)))
    np.testing.assert_array_equal(x.grad.numpy(), np.array([-0.5, 0.0], dtype=np.float32))
