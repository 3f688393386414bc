"""``arange`` and ``logspace`` as PyTorch's.  torch 2.13 (numbers pasted from it):

* ``arange``'s dtype follows the kind of its ends and step, NumPy scalars and 0-d tensors included:
  ``torch.arange(np.float32(2.5))`` and ``torch.arange(torch.tensor(5.))`` are float32 (here int64);
* ends inconsistent with the step's sign are ``RuntimeError: upper bound and lower bound inconsistent
  with step sign`` (``arange(1, 0, 0.1)``, ``arange(5, 0)``): here an empty tensor, which hid the
  slip of a forgotten negative step;
* ``logspace`` computes ``base ** exponent`` with C's ``pow``: NumPy's vectorised float64 power was a
  unit in the last place off in about 5% of the values (``logspace(0, 1, 5, dtype=float64)[3]``).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("default", [mg.float32, mg.float64])
@pytest.mark.parametrize("end", [np.float32(2.5), np.float16(2.5), mg.tensor(2.5), mg.tensor(2.5, dtype=mg.float64),
                                 mg.tensor(3.0)], ids=repr)
def test_arange_of_a_float_scalar_or_0d_tensor_is_the_default_float(default, end):
    before = mg.get_default_dtype()
    mg.set_default_dtype(default)
    try:
        t = mg.arange(end)
    finally:
        mg.set_default_dtype(before)
    assert t.dtype == default and t.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("end", [np.int32(3), mg.tensor(3), mg.tensor(3, dtype=mg.int8), 3], ids=repr)
def test_arange_of_an_integer_scalar_or_0d_tensor_is_int64(end):
    t = mg.arange(end)
    assert t.dtype == mg.int64 and t.tolist() == [0, 1, 2]
    assert mg.arange(0, end, 2).tolist() == [0, 2]


@pytest.mark.parametrize("args", [(1, 0, 0.1), (0, 1, -0.1), (5, 0), (0, 5, -1), (5.0, 0.0), (-1, -3, 1)])
@pytest.mark.parametrize("dtype", [None, mg.float64, mg.int64])
def test_arange_refuses_ends_inconsistent_with_the_step_sign(args, dtype):
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        mg.arange(*args, dtype=dtype)


@pytest.mark.parametrize("args", [(0, 0), (0, 0, -1), (1, 1, -1), (0.0, 0.0, -1.0), (3, 0, -1)])
def test_arange_of_an_empty_or_descending_range_still_works(args):
    assert mg.arange(*args).tolist() == list(range(*(int(a) for a in args)))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("start, end, steps, base, index, value", [
    (0, 1, 5, 10.0, [3], [5.623413251903491]),
    (0, 2, 33, 10.0, [3, 12, 15], [1.539926526059492, 5.623413251903491, 8.659643233600654]),
    (-3, 3, 100, 2.0, [24, 31, 54], [0.34258774618003096, 0.4597074267627121, 1.2080894444044472]),
])
def test_float64_logspace_is_pytorchs_to_the_bit(device, start, end, steps, base, index, value):
    if device == "strict" and not mg.tensor(1.0, dtype=mg.float64, device=device).dtype == mg.float64:
        pytest.skip("the strict device holds no float64")
    t = mg.logspace(start, end, steps, base=base, dtype=mg.float64, device=device)
    assert t.cpu().numpy()[index].tolist() == value


def test_integer_logspace_truncates_exact_powers():
    expected = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6, 6, 6, 7, 8, 8, 9, 10]
    assert mg.logspace(0, 1, 33, dtype=mg.int64).tolist() == expected


def test_logspace_beyond_the_float_range_is_inf_and_nan_where_pow_is():
    assert mg.logspace(0, 400, 3, dtype=mg.float64).tolist() == [1.0, 1e200, float("inf")]
    assert np.isnan(mg.logspace(0, 1, 3, base=-2.0, dtype=mg.float64).numpy()[1])
