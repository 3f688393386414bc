"""A NumPy ``longdouble`` (``clongdouble``) beside a tensor is read as a Python float (complex), as
PyTorch's argument parser reads every NumPy number: the tensor's dtype decides the result's.

NumPy's ``item()`` of an extended-precision scalar is the scalar itself (no Python number holds
it), so the engine's weak operand stayed a NumPy ``longdouble`` and NumPy promoted the whole
result to float128 (complex256): ``float32_tensor * np.longdouble(2)``, ``mg.where(c, x, ld)``,
``x.clamp(max=ld)``, ``x.add_(y, alpha=ld)`` made tensors of a dtype the engine refuses to create,
which a snapshot cannot store and whose gradients came back float32.  torch 2.13 answers float32
(``float32 * clongdouble``: float32 too, its imaginary part dropped; here complex64, as
``float32 * 1j``).  Found probing PyTorch's NumPy-interop tests with NumPy scalars of every type.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

LD = np.longdouble(2)
CLD = np.clongdouble(2 + 1j)

SPELLINGS = {
    "mul": lambda x, s: x * s,
    "rmul": lambda x, s: s * x,
    "rsub": lambda x, s: s - x,
    "div": lambda x, s: x / s,
    "rdiv": lambda x, s: s / x,
    "pow": lambda x, s: x ** s,
    "rpow": lambda x, s: s ** x,
    "floordiv": lambda x, s: x // s,
    "mod": lambda x, s: x % s,
    "mg.mul": lambda x, s: mg.mul(x, s),
    "mg.pow": lambda x, s: mg.pow(s, x),
    "mg.where": lambda x, s: mg.where(x > 1.5, x, s),
    "clamp": lambda x, s: x.clamp(max=s),
    "mg.clip": lambda x, s: mg.clip(x, 0, s),
    "maximum": lambda x, s: mg.maximum(x, s),
    "atan2": lambda x, s: mg.atan2(x, s),
    "hypot": lambda x, s: mg.hypot(x, s),
    "xlogy": lambda x, s: mg.xlogy(x, s),
    "renorm": lambda x, s: x.reshape(1, 2).renorm(2, 0, s),
    "add alpha": lambda x, s: x.add(x, alpha=s),
    "hardtanh": lambda x, s: mg.nn.functional.hardtanh(x, -s, s),
}


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.float64), ("strict-f32", mg.float32)])
@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_a_longdouble_is_a_python_float_beside_a_tensor(name, device, dtype):
    x = mg.tensor([1.0, 3.0], dtype=dtype, device=device)
    out = SPELLINGS[name](x, LD)
    assert out.dtype == dtype
    expected = SPELLINGS[name](x, 2.0)               # the Python float PyTorch reads it as
    np.testing.assert_array_equal(out.cpu().numpy(), expected.cpu().numpy())


def test_integer_and_half_tensors_take_the_default_float_and_stay_half():
    i = mg.tensor([1, 2], dtype=mg.int32)
    assert (i * LD).dtype == mg.float32 and (i * LD).tolist() == [2.0, 4.0]      # torch 2.13: float32
    h = mg.tensor([1.0, 3.0], dtype=mg.float16)
    assert (h * LD).dtype == mg.float16 and (h / LD).dtype == mg.float16


def test_a_clongdouble_is_a_python_complex():
    x = mg.tensor([1.0, 2.0])
    out = x * CLD
    assert out.dtype == mg.complex64                                              # as x * (2 + 1j)
    np.testing.assert_array_equal(out.numpy(), (x * (2 + 1j)).numpy())
    assert (mg.tensor([1.0], dtype=mg.complex64) + CLD).dtype == mg.complex64


def test_in_place_and_gradients_keep_the_tensors_dtype():
    w = mg.tensor([1.0, 3.0], requires_grad=True)
    y = w * LD
    assert y.dtype == mg.float32
    (y * y).sum().backward()
    assert w.grad.dtype == mg.float32
    np.testing.assert_array_equal(w.grad.numpy(), [8.0, 24.0])
    b = mg.tensor([1.0, 3.0])
    b.add_(b, alpha=LD)
    b.mul_(LD)
    assert b.dtype == mg.float32 and b.tolist() == [6.0, 18.0]


def test_under_a_transform_and_a_checkpoint():
    x = mg.tensor([1.0, 3.0], requires_grad=True)
    g = mg.func.grad(lambda t: (t * LD).pow(2).sum())(x)
    assert g.dtype == mg.float32 and g.tolist() == [8.0, 24.0]
    out = mg.utils.checkpoint.checkpoint(lambda t: mg.where(t > 2, t * LD, LD), x, use_reentrant=False)
    assert out.dtype == mg.float32
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0]


def test_what_holds_no_number_is_still_refused():
    with pytest.raises(TypeError, match="float128"):                     # torch 2.13: TypeError as well
        mg.tensor([LD, 1.0])
    with pytest.raises(TypeError, match="float128"):
        mg.tensor(np.array([1.0], dtype=np.longdouble))
