"""PyTorch's ``lcm`` is ``|a / gcd(a, b) * b|`` in C++, which computes an int8 or int16 product in
``int`` (32 bits) and narrows the absolute value after: ``lcm(127, 2)`` in int8 is ``int8(254) = -2``.
The engine multiplied in int8 (wrapping to -2 first) and answered ``|-2| = 2``.  Values are torch
2.13's.  Found by the dtype-semantics red team (every binary method over eleven dtypes)."""
import pytest

import minigrad_ckpt as mg

EXPECTED = {  # torch.lcm(a, b).tolist() of a = [max, max, -7, min, 100, min + 1], b = [2, 3, -3, 3, 3, 2]
    "int8": [-2, 125, 21, -128, 44, -2],
    "int16": [-2, 32765, 21, -32768, 300, -2],
    "int32": [2, 2147483645, 21, -2147483648, 300, 2],
    "int64": [2, 9223372036854775805, 21, -9223372036854775808, 300, 2],
    "uint8": [254, 255, 21, 0, 44, 2],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lcm_wraps_as_pytorchs(name):
    dtype = getattr(mg, name)
    info = mg.iinfo(dtype)
    a = mg.tensor([info.max, info.max, -7, info.min, 100, info.min + 1], dtype=dtype)
    b = mg.tensor([2, 3, -3, 3, 3, 2], dtype=dtype)
    for out in (a.lcm(b), mg.lcm(a, b), a.clone().lcm_(b)):
        assert out.dtype == dtype
        assert out.tolist() == EXPECTED[name]
