"""An integer remainder by zero is PyTorch's error, not NumPy's silent 0.

``torch.remainder(torch.tensor([5]), 0)``, ``x % 0``, ``x.fmod(0)`` and a divisor tensor holding a
zero raise ``RuntimeError: ZeroDivisionError`` in torch 2.13; the engine answered 0 (NumPy's
value, its warning silenced).  The error is also Python's ``ZeroDivisionError``, as the integer
``//`` and ``div(rounding_mode=)`` ones were already.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

SPELLINGS = {
    "% number": lambda x: x % 0,
    "% tensor": lambda x: x % mg.tensor([3, 0], dtype=x.dtype, device=x.device),
    "number % tensor": lambda x: 7 % mg.tensor([0, 2], dtype=x.dtype, device=x.device),
    "remainder": lambda x: mg.remainder(x, 0),
    "remainder method": lambda x: x.remainder(mg.tensor(0, device=x.device)),
    "remainder_": lambda x: x.remainder_(0),
    "fmod": lambda x: mg.fmod(x, 0),
    "fmod method": lambda x: x.fmod(0),
    "fmod_": lambda x: x.fmod_(mg.tensor([1, 0], dtype=x.dtype, device=x.device)),
    "//": lambda x: x // 0,
    "div floor": lambda x: mg.div(x, 0, rounding_mode="floor"),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_an_integer_divisor_of_zero_is_an_error(spelling, dtype, device):
    x = mg.tensor([5, 6], dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match="integer division by zero") as caught:
        SPELLINGS[spelling](x)
    assert isinstance(caught.value, ZeroDivisionError)
    assert x.tolist() == [5, 6]


def test_nonzero_integer_divisors_and_float_zeros_still_answer_as_pytorch():
    x = mg.tensor([5, -7])
    assert (x % 3).tolist() == [2, 2] and x.fmod(3).tolist() == [2, -1]        # torch 2.13
    assert (x % mg.tensor([-3, 3])).tolist() == [-1, 2] and (-7 % mg.tensor([3])).tolist() == [2]
    assert (x % 2.5).tolist() == [0.0, 0.5] and (x % 2.5).dtype == mg.float32
    f = mg.tensor([5.0, -1.0])
    r = (f % 0).numpy()
    assert r.dtype.name == "float32" and all(v != v for v in r)                   # NaN, as torch's
    f = mg.tensor([5.0, -7.0], requires_grad=True)
    (f % 3).sum().backward()
    assert f.grad.tolist() == [1.0, 1.0]
