"""``nn.init``'s fills check their tensor and arguments as PyTorch's (whose fills call the tensor's own
``uniform_``/``normal_``).

Before: a random fill of an integer or bool tensor wrote truncated draws (``uniform_(int64 zeros,
-3, 3)`` gave all -3s; ``uniform_`` of bools all True) where torch 2.13 raises NotImplementedError
("check_uniform_bounds" / "normal_kernel_cpu" not implemented for 'Long'); ``uniform_(t, 2, 1)`` (and
``xavier_uniform_`` with a negative gain) filled where PyTorch raises "uniform_ expects to return a
[from, to) range"; float32 ``uniform_(t, 1000, 1001)`` could draw 1001.0, PyTorch's stay below ``b``;
``sparse_`` with a negative ``std`` filled (PyTorch: "normal expects std >= 0.0"), and with a
negative sparsity zeroed nothing where PyTorch's slice ``row_indices[:ceil(sparsity * rows)]``
counts from the end (sparsity -0.5 of 4 rows: 2 zeros per column); ``trunc_normal_`` with ``a == b``
raised where PyTorch fills with ``a``, and with a negative ``std`` filled with ``a`` everywhere where
PyTorch's sampler (which reads only ``std ** 2``) draws the law of ``|std|``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.nn import init

RANDOM_FILLS = {
    "uniform_": lambda t: init.uniform_(t, -3.0, 3.0),
    "normal_": lambda t: init.normal_(t),
    "xavier_uniform_": lambda t: init.xavier_uniform_(t),
    "xavier_normal_": lambda t: init.xavier_normal_(t),
    "kaiming_uniform_": lambda t: init.kaiming_uniform_(t),
    "kaiming_normal_": lambda t: init.kaiming_normal_(t),
    "trunc_normal_": lambda t: init.trunc_normal_(t),
    "orthogonal_": lambda t: init.orthogonal_(t),
    "sparse_": lambda t: init.sparse_(t, 0.5),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", sorted(RANDOM_FILLS))
def test_random_fills_refuse_integer_and_bool_tensors(name, dtype, device):
    t = mg.zeros(4, 6, dtype=dtype, device=device)
    with pytest.raises(NotImplementedError, match="floating point"):
        RANDOM_FILLS[name](t)
    assert not t.numpy().any()  # left as it was


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_deterministic_fills_still_take_integer_tensors(device):
    np.testing.assert_array_equal(init.constant_(mg.zeros(2, 3, dtype="int64", device=device), 7).numpy(),
                                  np.full((2, 3), 7))
    np.testing.assert_array_equal(init.eye_(mg.zeros(2, 3, dtype="int64", device=device)).numpy(), np.eye(2, 3))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_uniform_bounds_out_of_order_raise(device):
    with pytest.raises(RuntimeError, match=r"\[from, to\) range"):
        init.uniform_(mg.zeros(3, device=device), 2.0, 1.0)
    with pytest.raises(RuntimeError, match=r"\[from, to\) range"):
        init.xavier_uniform_(mg.zeros(3, 3, device=device), gain=-1.0)
    with pytest.raises(RuntimeError, match="out of bounds"):
        init.uniform_(mg.zeros(3, device=device), 0.0, 1e39)
    np.testing.assert_array_equal(init.uniform_(mg.zeros(3, device=device), 1.5, 1.5).numpy(), [1.5] * 3)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_float32_uniform_stays_below_its_upper_bound(device):
    t = init.uniform_(mg.zeros(200_000, device=device), 1000.0, 1001.0, generator=mg.Generator().manual_seed(0))
    values = t.numpy()
    assert values.max() < 1001.0 and values.min() >= 1000.0


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_sparse_checks_std_and_reads_sparsity_as_a_slice(device):
    with pytest.raises(RuntimeError, match="std >= 0"):
        init.sparse_(mg.zeros(4, 3, device=device), 0.5, std=-1.0)
    zeros_per_column = {-0.5: 2, -0.25: 3, -2.0: 0, 0.0: 0, 0.3: 2, 1.5: 4}
    for sparsity, expected in zeros_per_column.items():
        t = init.sparse_(mg.zeros(4, 3, device=device), sparsity, generator=mg.Generator().manual_seed(1))
        np.testing.assert_array_equal((t.numpy() == 0).sum(axis=0), [expected] * 3, err_msg=f"sparsity={sparsity}")


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trunc_normal_of_equal_bounds_and_negative_std(dtype, device):
    np.testing.assert_array_equal(init.trunc_normal_(mg.zeros(5, dtype=dtype, device=device), 0.0, 1.0, 0.5, 0.5)
                                  .numpy(), np.full(5, 0.5, dtype))
    with pytest.raises(RuntimeError, match="a <= b"):
        init.trunc_normal_(mg.zeros(5, dtype=dtype, device=device), 0.0, 1.0, 1.0, 0.5)
    # N(0.5, 1) truncated to [-1, 3]: mean 0.5 + (phi(-1.5) - phi(2.5)) / (Phi(2.5) - Phi(-1.5)) = 0.6209
    values = init.trunc_normal_(mg.zeros(200_000, dtype=dtype, device=device), 0.5, -1.0, -1.0, 3.0,
                                generator=mg.Generator().manual_seed(2)).numpy()
    assert values.min() >= -1.0 and values.max() <= 3.0
    np.testing.assert_allclose(values.mean(), 0.6209, atol=0.01)
