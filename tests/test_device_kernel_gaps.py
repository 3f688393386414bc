"""What CuPy's kernels lack that NumPy's have, and how the engine fills it in (found by the
first real-GPU run of the op battery: complex gradients of indexing, complex logical ops, and
an empty batch's convolution gradient all failed on CuPy 14 while the CPU passed).

The strict stand-in device refuses what CuPy refuses (``cupyx.scatter_add`` of complex, bool
or narrow integers; logical ufuncs of complex), so these run without a GPU.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import backend
from minigrad_ckpt.ops import conv
from minigrad_ckpt.testing.strict import StrictDeviceError

DTYPES = ["complex64", "complex128", "int8", "uint8", "int16", "bool", "float32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_by_parts_matches_numpy_add_at(dtype):
    taken = []

    def cupy_like(target, index, values):  # cupyx.scatter_add's dtypes only
        assert target.dtype.name in backend.SCATTER_ADD_DTYPES, target.dtype
        taken.append(target.dtype.name)
        np.add.at(target, index, values)

    rng = np.random.default_rng(0)
    base = (rng.integers(-100, 100, 8) + (1j * rng.integers(-9, 9, 8) if "complex" in dtype else 0)).astype(dtype)
    index = np.array([0, 3, 3, 7, 3, 0])
    values = (rng.integers(60, 120, 6) + (1j * rng.integers(-9, 9, 6) if "complex" in dtype else 0)).astype(dtype)
    want, got = base.copy(), base.copy()
    np.add.at(want, index, values)          # narrow integers wrap, bools or
    backend.scatter_add_by_parts(cupy_like, backend.get_device("cpu").xp, got, index, values)
    np.testing.assert_array_equal(got, want)
    assert taken


def test_the_strict_device_refuses_what_cupy_refuses():
    xp = mg.device("strict").xp
    with pytest.raises(StrictDeviceError, match="complex"):
        xp._scatter(xp.zeros(3, dtype="complex64"), xp.asarray(np.array([0, 0])), xp.ones(2, dtype="complex64"))
    out = xp.logical_not(xp.asarray(np.array([0j, 1j])))   # read as != 0, as NumPy does
    np.testing.assert_array_equal(xp.to_host(out), [True, False])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_gradients_through_repeated_indices_on_a_device(device, dtype):
    z = np.array([1 + 2j, -3 + 0.5j, 2 - 1j, 0.25 + 4j], dtype=dtype)
    x = mg.tensor(z, device=device, requires_grad=True)
    idx = mg.tensor([0, 2, 2, 3, 0, 0], device=device)
    y = x[idx] * mg.tensor(np.arange(1, 7) * (1 - 1j), dtype=dtype, device=device)
    (y.real.sum() + 2 * y.imag.sum()).backward()
    # torch 2.13: the conjugate Wirtinger gradient of re(y) + 2 im(y) through y = w x[idx]
    w = np.arange(1, 7) * (1 - 1j)
    want = np.zeros(4, dtype=dtype)
    np.add.at(want, [0, 2, 2, 3, 0, 0], np.conj(w) * (1 + 2j))
    np.testing.assert_allclose(x.grad.to("cpu").numpy(), want, rtol=1e-6)
    g = mg.zeros(4, dtype=dtype, device=device).index_add(0, idx, mg.ones(6, dtype=dtype, device=device) * 1j)
    np.testing.assert_array_equal(g.to("cpu").numpy(), [3j, 0, 2j, 1j])


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_logical_ops_read_a_complex_number_as_nonzero(device):
    a = mg.tensor([0j, 1j, 2 + 0j, 0j], device=device)
    b = mg.tensor([0j, 0j, 1 + 1j, 3j], device=device)
    assert mg.logical_and(a, b).tolist() == [False, False, True, False]
    assert mg.logical_or(a, b).tolist() == [False, True, True, True]
    assert mg.logical_xor(a, b).tolist() == [False, True, False, True]
    assert mg.logical_not(a).tolist() == [True, False, False, True]


def test_a_gpu_takes_an_empty_batch_as_one_empty_chunk():
    # before: range(0, 0, 0) -> ValueError in Conv2dInputGrad of an empty batch on CuPy
    for name in ("cupy", "numpy"):
        xp = SimpleNamespace(name=name)
        assert conv._image_chunks(xp, 0, 100) == [slice(0, 0)]
        assert conv._image_chunks(xp, 3, 1)[-1].stop == 3


def test_a_gpu_namespace_computes_special_functions_of_real_floats_by_cupys_one_kernel():
    # GELU's erf is ~75 array passes in the engine's kernel, each a launch on a GPU; CuPy has it as one ufunc
    import contextlib

    ns = backend.CupyNamespace.__new__(backend.CupyNamespace)   # (no GPU here: NumPy behind CuPy's adapter)
    ns._device = contextlib.nullcontext()
    backend.ArrayNamespace.__init__(ns, np, "cupy")
    taken = []
    ns._use_native("erf", lambda x: taken.append(x.dtype.name) or np.full(x.shape, 7.0, x.dtype))
    np.testing.assert_array_equal(ns.erf(np.zeros(2, dtype="float32")), [7.0, 7.0])
    assert ns.erf(np.array([0.5 + 0.25j])).dtype == "complex128"  # complex input: the engine's kernel,
    assert taken[0] == "float32" and "complex128" not in taken     # never CuPy's (real-only) one
    assert set(backend.NATIVE_SPECIAL_FUNCTIONS) <= set(backend.KERNELS)
