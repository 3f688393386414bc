"""``mg.range``: PyTorch's deprecated ``torch.range``, whose end is inclusive.

Found porting mrdbourke's "PyTorch fundamentals" notebook, which calls ``torch.range(0, 10)``
beside ``torch.arange``: the name was missing, so the program stopped.  The values below are
torch 2.13's (recorded offline)."""
import numpy as np
import pytest

import minigrad_ckpt as mg

WARNING = "torch.range is deprecated"


def rng(*args, **kwargs):
    with pytest.warns(UserWarning, match=WARNING):
        return mg.range(*args, **kwargs)


def test_the_end_is_included_and_the_dtype_is_the_default_float():
    r = rng(0, 10)
    assert r.dtype == mg.float32 and r.tolist() == [float(i) for i in range(11)]
    assert rng(0, 10, 3).tolist() == [0.0, 3.0, 6.0, 9.0]
    assert rng(3, 0, -1).tolist() == [3.0, 2.0, 1.0, 0.0]
    assert rng(0, 0).tolist() == [0.0]


def test_float_values_are_start_plus_i_step_rounded_once():
    assert rng(1.0, 2.0, 0.3).tolist() == [1.0, 1.2999999523162842, 1.600000023841858, 1.899999976158142]
    tenth = rng(0, 1, 0.1)  # trunc(1 / 0.1) + 1 = 11 values: 1.0 is the last
    assert tenth.shape == (11,) and tenth.tolist()[-1] == 1.0
    assert rng(0, 1, 0.1, dtype=mg.float64).tolist()[3] == 0.30000000000000004


def test_an_integer_dtype_reads_the_numbers_as_integers_first():
    r = rng(0, 3, 1.5, dtype=mg.int64)  # the step truncates to 1, as PyTorch's
    assert r.dtype == mg.int64 and r.tolist() == [0, 1, 2, 3]


def test_refusals_are_pytorchs():
    with pytest.raises(TypeError, match="end"):
        rng(5)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        rng(0, 1, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        rng(2, 1)
    with pytest.raises(NotImplementedError, match="^\"range_cpu\" not implemented for 'Bool'$"):
        rng(0, 5, dtype=mg.bool)  # (PyTorch's kernel for range is range_cpu, not arange's)


def test_requires_grad_and_out():
    assert rng(0, 3, requires_grad=True).requires_grad
    out = mg.zeros(4, dtype=mg.float64)
    rng(0, 3, out=out)
    np.testing.assert_array_equal(out.numpy(), [0.0, 1.0, 2.0, 3.0])


def test_the_builtin_range_is_untouched_by_import_star():
    namespace: dict = {}
    exec("from minigrad_ckpt import *", namespace)
    assert "range" not in namespace
