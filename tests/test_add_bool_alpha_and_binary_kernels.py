"""PyTorch's checks of ``add``/``sub``'s ``alpha`` and of the kernels of ``x.hypot(y)``,
``x.logaddexp(y)`` and ``x.heaviside(y)``, each by the dtype the operands promote to.

torch 2.13: ``tensor([1, 2]).add(y, alpha=True)`` is a RuntimeError ("Boolean alpha only supported
for Boolean results."); the engine read ``True == 1`` and answered ``x + y``.  ``bool_x.hypot(f16_y)``
is a float16 hypot (the engine refused it, looking at ``x``'s dtype alone), two integer tensors
of different dtypes are refused as two of one, and ``x.heaviside(y)`` of two dtypes is a
RuntimeError ("heaviside is not yet implemented for tensors with different dtypes.";
``mg.heaviside`` is NumPy's and promotes).  ``mg.add(1, f16, alpha=0.5)`` raised an AttributeError.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

DEVICES = ["cpu", "strict"]
TRUE_ALPHA = {
    "function add": lambda x, y: mg.add(x, y, alpha=True),
    "method add": lambda x, y: x.add(y, alpha=True),
    "method sub": lambda x, y: x.sub(y, alpha=True),
    "in-place add": lambda x, y: x.add_(y, alpha=True),
    "in-place sub": lambda x, y: x.sub_(y, alpha=True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.int64, mg.uint8, mg.float32, mg.float64])
@pytest.mark.parametrize("spelling", sorted(TRUE_ALPHA))
def test_a_bool_alpha_beside_numbers_is_refused(spelling, dtype, device):
    x = mg.tensor([1, 2], dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        TRUE_ALPHA[spelling](x, mg.tensor([3, 4], dtype=dtype, device=device))
    assert x.tolist() == [1, 2]


@pytest.mark.parametrize("device", DEVICES)
def test_a_bool_alpha_of_bools_and_an_int_alpha_still_answer(device):
    m = mg.tensor([True, False], device=device)
    assert mg.add(m, mg.tensor([False, False], device=device), alpha=True).tolist() == [True, False]
    assert mg.tensor([1, 2], device=device).add(1, alpha=1).tolist() == [2, 3]


def test_a_complex_alpha_in_place_of_bools_is_refused():
    m = mg.tensor([True])
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        m.add_(mg.tensor([True]), alpha=1j)


@pytest.mark.parametrize("device", DEVICES)
def test_a_number_first_beside_float16_with_an_alpha(device):
    h = mg.tensor(np.array([1.0, 2.0, 65504.0], np.float16), device=device)
    out = mg.add(1, h, alpha=0.5)
    assert out.dtype == mg.float16 and out.tolist() == [1.5, 2.0, 32752.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["hypot", "logaddexp", "logaddexp2"])
def test_the_method_kernel_is_the_promoted_dtypes(name, device):
    b = mg.tensor([True, False], device=device)
    h = mg.tensor(np.array([1.0, 2.0], np.float16), device=device)
    assert getattr(b, name)(h).dtype == mg.float16
    i = mg.tensor([1, 2], device=device)
    assert getattr(i, name)(mg.tensor(1.5, device=device)).dtype == mg.float32  # (a number: PyTorch's TypeError)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        getattr(i, name)(mg.tensor([1, 2], dtype=mg.int8, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        getattr(b, name)(b)


@pytest.mark.parametrize("device", DEVICES)
def test_heaviside_method_refuses_two_dtypes(device):
    x = mg.tensor([-1.0, 0.0, 2.0], device=device)
    with pytest.raises(RuntimeError, match="different dtypes"):
        x.heaviside(mg.tensor([0.5], dtype=mg.float64, device=device))
    assert x.heaviside(mg.tensor([0.5], device=device)).tolist() == [0.0, 0.5, 1.0]
    assert mg.heaviside(x, mg.tensor([0.5], dtype=mg.float64, device=device)).dtype == mg.float64  # NumPy's


ALPHA_SPELLINGS = {
    "function add": lambda x, y, a: mg.add(x, y, alpha=a),
    "function sub": lambda x, y, a: mg.subtract(x, y, alpha=a),
    "method add": lambda x, y, a: x.add(y, alpha=a),
    "method sub": lambda x, y, a: x.sub(y, alpha=a),
    "in-place add": lambda x, y, a: x.add_(y, alpha=a),
    "in-place sub": lambda x, y, a: x.sub_(y, alpha=a),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("alpha", [1.0, np.float64(1.0)], ids=["float", "numpy float"])
@pytest.mark.parametrize("spelling", sorted(ALPHA_SPELLINGS))
def test_a_float_alpha_of_one_beside_integers_is_refused(spelling, alpha, device):
    # torch 2.13: tensor([1, 2]).add(tensor([3, 4]), alpha=1.0) is the RuntimeError of alpha=2.0: the
    # type of alpha is checked, not its value; the engine read 1.0 == 1 and answered x + y
    x = mg.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ALPHA_SPELLINGS[spelling](x, mg.tensor([3, 4], device=device), alpha)
    assert x.tolist() == [1, 2]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("spelling", sorted(ALPHA_SPELLINGS))
def test_a_complex_alpha_of_one_beside_real_numbers_is_refused(spelling, dtype, device):
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        ALPHA_SPELLINGS[spelling](x, mg.tensor([3.0, 4.0], dtype=dtype, device=device), 1 + 0j)
    assert x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("spelling", sorted(ALPHA_SPELLINGS))
def test_a_float_alpha_of_one_beside_floats_is_one_sum(spelling, device):
    x = mg.tensor([1.0, 2.0], device=device)
    w = mg.tensor([3.0, 4.0], device=device, requires_grad=True)
    out = ALPHA_SPELLINGS[spelling](x, w, 1.0)
    assert out.grad_fn.name() in ("AddBackward0", "SubBackward0")
    assert out.tolist() == ([4.0, 6.0] if "add" in spelling else [-2.0, -2.0])
