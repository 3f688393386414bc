"""An integer tensor to a negative integer number is PyTorch's RuntimeError, whatever its dtype.

``torch.tensor([3], dtype=torch.uint8) ** -1`` raises "Integers to negative integer powers are
not allowed."; the engine wrapped ``-1`` into the uint8 range first (255) and answered
``x ** 255`` (171 for 3) silently, and for signed tensors raised NumPy's ValueError.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

SPELLINGS = {
    "operator": lambda x: x ** -1,
    "method": lambda x: x.pow(-2),
    "function": lambda x: mg.pow(x, -1),
    "power": lambda x: mg.power(x, -3),
    "in place": lambda x: x.pow_(-1),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "bool"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_an_integer_base_to_a_negative_integer_is_refused(spelling, dtype, device):
    x = mg.tensor([3, 1, 0], dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        SPELLINGS[spelling](x)
    assert x.tolist() == mg.tensor([3, 1, 0], dtype=dtype).tolist()


def test_non_negative_integer_and_float_exponents_still_answer():
    u = mg.tensor([3, 2], dtype="uint8")
    assert (u ** 2).tolist() == [9, 4] and (u ** 2).dtype == mg.uint8
    assert (u ** -1.0).tolist() == [pytest.approx(1 / 3), 0.5] and (u ** -1.0).dtype == mg.float32
    assert (mg.tensor([2.0], dtype="float32") ** -1).tolist() == [0.5]
    x = mg.tensor([2.0, 4.0], requires_grad=True)
    (x ** -1).sum().backward()
    assert x.grad.tolist() == [-0.25, -0.0625]
