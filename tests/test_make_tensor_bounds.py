"""``mg.testing.make_tensor``'s ``low``/``high`` as torch 2.13's ``torch.testing.make_tensor``
(``modify_low_high``): bounds beyond the dtype are clamped to ``[min, max + 1)`` for integers
(``[min, max)`` for int64) and to the finite range for floats, drawn without overflow; bools take
``low``/``high`` in ``[0, 2)``; a float ``low == high`` is a FutureWarning and a constant tensor;
an interval outside the dtype and ``noncontiguous`` with ``memory_format`` are refused.

Before: ``int8`` never drew 127 nor ``uint8`` 255 (clamped to ``max``, exclusive); ``int64`` with
``high=2**70`` raised OverflowError; ``float32`` with ``low=-1e300, high=1e300`` gave inf; a
bool's ``low``/``high`` were ignored; ``low == high`` for floats was refused.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import make_tensor, strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype, low, high, lowest, highest", [
    (mg.int8, -200, 200, -128, 127),
    (mg.uint8, 250, 1000, 250, 255),
    (mg.int16, 32760, 10**6, 32760, 32767),
])
def test_an_integer_range_clamped_to_the_dtype_includes_its_largest_value(device, dtype, low, high, lowest, highest):
    mg.manual_seed(0)
    v = make_tensor(4000, dtype=dtype, device=device, low=low, high=high).numpy()
    assert v.dtype == np.dtype(dtype) and v.min() == lowest and v.max() == highest


@pytest.mark.parametrize("device", DEVICES)
def test_int64_beyond_its_range_is_clamped_not_an_overflow(device):
    v = make_tensor(100, dtype=mg.int64, device=device, low=-2**70, high=2**70).numpy()
    assert v.dtype == np.int64 and v.min() < -2**60 and v.max() > 2**60


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.complex64])
def test_a_float_range_wider_than_the_dtype_stays_finite(device, dtype):
    for low, high in [(-1e300, 1e300), (-np.inf, np.inf), (-np.inf, 0.0)]:
        v = make_tensor(200, dtype=dtype, device=device, low=low, high=high).numpy()
        assert np.isfinite(v).all() and (v.real < 0).any()


@pytest.mark.parametrize("device", DEVICES)
def test_bool_takes_low_and_high(device):
    assert not make_tensor(50, dtype=mg.bool, device=device, low=0, high=1).numpy().any()
    assert make_tensor(50, dtype=mg.bool, device=device, low=1).numpy().all()
    both = make_tensor(200, dtype=mg.bool, device=device).numpy()
    assert 0 < both.sum() < 200


def test_float_low_equal_to_high_is_pytorchs_deprecation_and_a_constant():
    with pytest.warns(FutureWarning, match="Passing `low==high` to `torch.testing.make_tensor`"):
        v = make_tensor(5, dtype=mg.float32, device="cpu", low=3, high=3)
    assert (v.numpy() == 3).all()
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 3 >= 3"):
        make_tensor(5, dtype=mg.int32, device="cpu", low=3, high=3)


def test_refusals_are_pytorchs():
    with pytest.raises(ValueError, match=r"The value interval specified by `low` and `high` is \[-10, -5\), "
                                         r"but uint8 only supports \[0, 256\)"):
        make_tensor(5, dtype=mg.uint8, device="cpu", low=-10, high=-5)
    with pytest.raises(ValueError, match="`noncontiguous` and `memory_format` are mutually exclusive"):
        make_tensor(2, 3, dtype=mg.float32, device="cpu", noncontiguous=True, memory_format=mg.contiguous_format)
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean and integral dtypes"):
        make_tensor(3, dtype=mg.bool, device="cpu", requires_grad=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype, low, high", [
    (mg.float16, 1000, 1001), (mg.float16, 0.5, 2.5), (mg.float32, 1e6, 1e6 + 1),
    (mg.float64, 2.0**52, 2.0**52 + 1), (mg.complex64, 1e6, 1e6 + 1), (mg.float32, -np.inf, np.inf),
])
def test_high_is_never_drawn_where_the_dtype_rounds_a_draw_up_to_it(device, dtype, low, high):
    # torch 2.13 draws none of these at high; the draw u * (high - low) + low rounded to high for
    # about a quarter of float16's in [1000, 1001) and half of float64's in [2**52, 2**52 + 1)
    mg.manual_seed(0)
    v = make_tensor(20000, dtype=dtype, device=device, low=low, high=high).numpy()
    parts = np.concatenate([v.real, v.imag]) if v.dtype.kind == "c" else v
    assert (parts < high).all() and (parts >= low).all()
