"""``avg_pool1d``/``avg_pool2d``/``avg_pool3d`` of an int64 tensor keep its dtype and truncate each window's
mean toward zero, as PyTorch's integer kernels do (the engine returned float32 means); PyTorch has no
kernel for the narrower integers (``"avg_pool2d" not implemented for 'Int'``), nor does the engine."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = np.arange(-20, 28).reshape(1, 3, 4, 4)


def test_known_values_from_torch():
    # torch.nn.functional.avg_pool2d(torch.arange(-20, 28).reshape(1, 3, 4, 4), 3, 2, 1)[0, 0]
    out = F.avg_pool2d(mg.tensor(X), 3, 2, 1)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy()[0, 0], [[-7, -10], [-7, -10]])  # means -7.78, -10.67, -7.67, -10
    # torch.nn.functional.avg_pool1d(x[0], 3, 2, 1)[0]
    np.testing.assert_array_equal(F.avg_pool1d(mg.tensor(X[0]), 3, 2, 1).numpy()[0],
                                  [[-13, -18], [-10, -14], [-7, -10], [-5, -6]])


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int8", "int16"])
def test_narrower_integers_are_pytorchs_refusal(dtype):
    x = mg.tensor(np.ones((1, 2, 4, 4), dtype=dtype))
    pools = ((F.avg_pool2d, "avg_pool2d"), (F.avg_pool1d, "avg_pool2d"), (F.avg_pool3d, "avg_pool3d_out_frame"))
    for pool, kernel in pools:
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented'):
            pool(x if pool is not F.avg_pool1d else x[0], 2)


@pytest.mark.parametrize("dtype", ["int64"])
@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=1, divisor_override=3),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)])
def test_integer_means_truncate_toward_zero(dtype, kw):
    x = np.random.default_rng(0).integers(0 if dtype == "uint8" else -50, 50, (2, 3, 5, 6)).astype(dtype)
    out = F.avg_pool2d(mg.tensor(x), **kw)
    want = np.trunc(F.avg_pool2d(mg.tensor(x.astype("float64")), **kw).numpy()).astype(dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.numpy(), want)


def test_avg_pool3d_known_values_from_torch():
    # torch.nn.functional.avg_pool3d(torch.arange(-20, 28).reshape(1, 1, 3, 4, 4), 2, 1)[0, 0, 0]
    out = F.avg_pool3d(mg.tensor(X.reshape(1, 1, 3, 4, 4)), 2, 1)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.numpy()[0, 0, 0], [[-9, -8, -7], [-5, -4, -3], [-1, 0, 0]])
    unbatched = F.avg_pool3d(mg.tensor(X.reshape(1, 3, 4, 4)), 2, 1, 1, ceil_mode=True, count_include_pad=False)
    want = np.trunc(F.avg_pool3d(mg.tensor(X.reshape(1, 3, 4, 4).astype("float64")), 2, 1, 1, ceil_mode=True,
                                 count_include_pad=False).numpy())
    np.testing.assert_array_equal(unbatched.numpy(), want)
