"""A float's inf, NaN or out-of-range value cast to an integer dtype is silent, as PyTorch's cast.

NumPy's ``astype`` warns 'invalid value encountered in cast' there; PyTorch gives what the hardware
gives (an integer's minimum on x86, 0 for the narrow ones) without a word.  Hugging Face's T5 meets
it on every forward: its relative-position buckets take ``log(0) = -inf`` and cast it with
``.to(torch.long)`` before ``torch.where`` discards it.  The values below are torch 2.13's.
"""

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

INT64_MIN = -(2**63)
VALUES = [float("-inf"), 1.5, float("nan"), 3e10]


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize(
    "cast, expected",
    [
        (lambda x: x.long(), [INT64_MIN, 1, INT64_MIN, 30000001024]),
        (lambda x: x.to(mg.int64), [INT64_MIN, 1, INT64_MIN, 30000001024]),
        (lambda x: x.to(dtype=mg.long), [INT64_MIN, 1, INT64_MIN, 30000001024]),
        (lambda x: x.type(mg.int64), [INT64_MIN, 1, INT64_MIN, 30000001024]),
        (lambda x: x.type_as(mg.tensor([1])), [INT64_MIN, 1, INT64_MIN, 30000001024]),
        (lambda x: x.int(), [-(2**31), 1, -(2**31), -(2**31)]),
        (lambda x: x.short(), [0, 1, 0, 0]),
        (lambda x: x.to(mg.uint8), [0, 1, 0, 0]),
    ],
)
def test_float32_to_integer_is_silent_with_pytorchs_values(cast, expected):
    out = cast(mg.tensor(VALUES))
    assert out.numpy().tolist() == expected


def test_float64_narrowed_to_int32_is_silent():
    out = mg.tensor([float("inf"), 2.0], dtype=mg.float64).int()
    assert out.numpy().tolist() == [-(2**31), 2]


def test_a_tensor_that_requires_grad_casts_silently():
    x = mg.tensor([float("-inf"), 1.0], requires_grad=True)
    assert x.long().numpy().tolist() == [INT64_MIN, 1]


def test_an_array_given_an_integer_dtype_is_silent():
    # torch.tensor(np.array([inf, 1.0]), dtype=torch.int64) and torch.as_tensor(..., dtype=torch.int32)
    assert mg.tensor(np.array([np.inf, 1.0]), dtype=mg.int64).numpy().tolist() == [INT64_MIN, 1]
    assert mg.as_tensor(np.array([np.nan, 1.0]), dtype=mg.int32).numpy().tolist() == [-(2**31), 1]


def test_t5_relative_position_buckets_are_silent():
    # transformers' T5Attention._relative_position_bucket, bidirectional, 32 buckets, distance 128
    relative_position = mg.arange(-3, 4)[None, :] - mg.arange(2)[:, None]
    num_buckets = 16
    buckets = (relative_position > 0).to(mg.long) * num_buckets
    relative_position = mg.abs(relative_position)
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    if_large = max_exact + (
        mg.log(relative_position.float() / max_exact) / np.log(128 / max_exact) * (num_buckets - max_exact)
    ).to(mg.long)
    buckets = buckets + mg.where(is_small, relative_position, if_large)
    assert buckets.numpy().tolist() == [[3, 2, 1, 0, 17, 18, 19], [4, 3, 2, 1, 0, 17, 18]]


def test_widening_float_casts_stay_exact():
    x = mg.tensor([float("inf"), float("nan"), 1.25])
    out = x.to(mg.float64).numpy()
    assert np.isinf(out[0]) and np.isnan(out[1]) and out[2] == 1.25
    assert mg.tensor([1e39], dtype=mg.float64).float().numpy().tolist() == [float("inf")]


def test_the_strict_device_casts_silently():
    x = mg.tensor([float("-inf"), 1.5, float("nan")], device="strict")
    out = x.long()
    assert out.device == x.device
    assert out.cpu().numpy().tolist() == [INT64_MIN, 1, INT64_MIN]
