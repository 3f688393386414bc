"""Sampling into an integer or bool dtype is PyTorch's ``NotImplementedError`` (a ``RuntimeError``;
torch 2.13: ``"check_uniform_bounds" not implemented for 'Long'``, ``"normal_kernel_cpu" not
implemented for 'Int'``, ``"bernoulli_tensor_cpu_p_" not implemented for 'Long'``) as well as the
engine's ``TypeError``.  ``rand``/``randn``/``rand_like``/``randn_like``/``normal``/``bernoulli``
raised the bare TypeError, which ``except RuntimeError`` and ``except NotImplementedError`` miss,
while the in-place fills (``x.uniform_()``, ``x.normal_()``) already raised both.  Found running
PyTorch's tensor-construction tests against the engine."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

INTEGER = mg.ones(2, dtype=mg.int64)
CALLS = {
    "rand": lambda dt: mg.rand(2, dtype=dt),
    "randn": lambda dt: mg.randn(2, dtype=dt),
    "rand_like": lambda dt: mg.rand_like(mg.ones(2, dtype=dt)),
    "randn_like": lambda dt: mg.randn_like(mg.ones(2, dtype=dt)),
    "normal": lambda dt: mg.normal(mg.zeros(2, dtype=dt), 1.0),
    "bernoulli": lambda dt: mg.bernoulli(mg.ones(2, dtype=dt)),
    "uniform_": lambda dt: mg.zeros(2, dtype=dt).uniform_(),
    "normal_": lambda dt: mg.zeros(2, dtype=dt).normal_(),
}


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.uint8, mg.bool], ids=str)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_sampling_an_integer_dtype_is_not_implemented_and_a_type_error(call, dtype):
    with pytest.raises(NotImplementedError) as info:
        CALLS[call](dtype)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, TypeError)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_float_dtypes_still_sample(call):
    assert CALLS[call](mg.float32).dtype == mg.float32
