"""A number written into an integer tensor goes by PyTorch's checked conversion (torch 2.13):

- uint8 takes a negative int down to -255, wrapped (``x.fill_(-1)`` writes 255) -- in ``fill_``,
  ``x[i] = v``, ``full``/``full_like``, ``masked_fill`` and a ``clamp`` bound; NumPy raised
  ``OverflowError`` (masked_fill a RuntimeError) for it;
- anything else out of range -- 300 into uint8, a float NaN, inf or 1e10 into any integer dtype --
  is PyTorch's RuntimeError (also an OverflowError): ``full_like(u8, nan)`` was silently zeros,
  ``fill_(nan)`` NumPy's ValueError;
- a float in range is truncated, as before (``fill_(2.7)`` writes 2).
"""

import numpy as np
import pytest

import minigrad_ckpt as mg

WRITES = [
    ("x.fill_(v)", lambda v: [v] * 4),
    ("x.__setitem__(1, v)", lambda v: [0, v, 2, 127]),
    ("x.__setitem__(mg.tensor([True, False, True, False]), v)", lambda v: [v, 1, v, 127]),
    ("x.copy_(mg.full_like(x, v))", lambda v: [v] * 4),
    ("x.copy_(mg.full((4,), v, dtype=x.dtype))", lambda v: [v] * 4),
    ("x.copy_(x.masked_fill(x > 1, v))", lambda v: [0, 1, v, v]),
]


@pytest.mark.parametrize("statement, expected", WRITES)
@pytest.mark.parametrize("value, stored", [(-1, 255), (-255, 1), (-129, 127), (255, 255)])
def test_uint8_takes_negative_ints_wrapped(statement, expected, value, stored):
    x = mg.tensor([0, 1, 2, 127], dtype=mg.uint8)
    exec(statement, {"mg": mg}, {"x": x, "v": value})
    np.testing.assert_array_equal(x.numpy(), expected(stored))


INTS_OUT_OF_RANGE = [("uint8", 300), ("uint8", -256), ("int8", 128), ("int8", -129), ("int8", 255)]
FLOATS_OUT_OF_RANGE = [("uint8", float("nan")), ("int32", float("inf")), ("int64", float("nan")),
                       ("uint8", 1e10), ("uint8", -1.5)]
# (a float clamp bound promotes an integer tensor to float, PyTorch's promotion: no float bounds here)
REFUSED = ([(s, d, v) for s, _ in WRITES for d, v in INTS_OUT_OF_RANGE + FLOATS_OUT_OF_RANGE]
           + [(s, d, v) for s in ("x.clamp(max=v)", "x.clamp(min=v)") for d, v in INTS_OUT_OF_RANGE])


@pytest.mark.parametrize("statement, dtype, value", REFUSED)
@pytest.mark.parametrize("kind", [RuntimeError, OverflowError])
def test_a_value_the_dtype_cannot_hold_is_refused(statement, dtype, value, kind):
    x = mg.tensor([0, 1, 2, 127], dtype=dtype)
    with pytest.raises(kind, match="cannot be converted"):
        exec(statement, {"mg": mg}, {"x": x, "v": value})


def test_clamp_bounds_wrap_into_uint8_as_pytorch():
    x = mg.tensor([0, 1, 2, 127], dtype=mg.uint8)
    np.testing.assert_array_equal(x.clamp(min=-3).numpy(), [253] * 4)
    np.testing.assert_array_equal(x.clamp(max=-1).numpy(), [0, 1, 2, 127])


def test_floats_in_range_are_still_truncated():
    x = mg.tensor([0, 1, 2, 127], dtype=mg.int8)
    x.fill_(2.7)
    x[0] = -3.9
    np.testing.assert_array_equal(x.numpy(), [-3, 2, 2, 2])
    np.testing.assert_array_equal(mg.full((2,), 7.9, dtype=mg.uint8).numpy(), [7, 7])
