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
    ns._device, ns._linalg_errstate = contextlib.nullcontext(), lambda linalg: contextlib.nullcontext()
    backend.ArrayNamespace.__init__(ns, np, "cupy")
    taken = []
    ns._use_native("erf", lambda x: taken.append(x.dtype.name) or np.full(x.shape, 7.0, x.dtype))
    np.testing.assert_array_equal(ns.erf(np.zeros(2, dtype="float32")), [7.0, 7.0])
    assert ns.erf(np.array([0.5 + 0.25j])).dtype == "complex128"  # complex input: the engine's kernel,
    assert taken[0] == "float32" and "complex128" not in taken     # never CuPy's (real-only) one
    assert set(backend.NATIVE_SPECIAL_FUNCTIONS) <= set(backend.KERNELS)


def test_the_strict_device_refuses_a_solve_whose_batch_axes_differ_as_cupy_14():
    # CuPy 14's linalg.solve: a.shape[:-1] == b.shape[:-1] for a b of several axes (NumPy broadcasts)
    xp = mg.device("strict").xp
    raw = xp._function("linalg.solve")
    refusing = minigrad_ckpt.testing.strict._equal_batches_only(raw)
    a, b = xp.asarray(np.eye(3)[None].repeat(2, 0)), xp.asarray(np.ones((3, 2)))
    with pytest.raises(ValueError, match="multidimensional b"):
        refusing(a, b)
    assert refusing(a, xp.asarray(np.ones(3))).shape == (2, 3)   # a vector is broadcast by CuPy itself


A_BATCH, B_BATCH = [(2, 1), (2, 3), (), (1,), (3,)], [(), (3,), (2, 3), (4, 1), (1,)]


@pytest.mark.parametrize("a_batch, b_batch", list(zip(A_BATCH, B_BATCH)))
@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_solve_broadcasts_batch_axes_on_a_device_whose_solve_does_not(device, a_batch, b_batch):
    # the first real-GPU op battery (H100, CuPy 14.2): Solve of a (2, 3, 3) stack and a (3, K) b raised there
    rng = np.random.default_rng(len(a_batch) * 7 + len(b_batch))
    dtype = "float32" if device == "strict-f32" else "float64"
    a = (rng.standard_normal(a_batch + (3, 3)) + 4 * np.eye(3)).astype(dtype)
    b = rng.standard_normal(b_batch + (3, 2)).astype(dtype)
    ta, tb = rng.standard_normal(a.shape).astype(dtype), rng.standard_normal(b.shape).astype(dtype)
    results = {}
    for dev in ("cpu", device):
        A = mg.tensor(a, device=dev, requires_grad=True)
        B = mg.tensor(b, device=dev, requires_grad=True)
        x = mg.linalg.solve(A, B)
        (x * x).sum().backward()
        _, tangent = mg.func.jvp(mg.linalg.solve, (A.detach(), B.detach()),
                                 (mg.tensor(ta, device=dev), mg.tensor(tb, device=dev)))
        v = mg.linalg.solve(A.detach(), B.detach()[(0,) * len(b_batch) + (slice(None), 0)])  # one vector
        results[dev] = [t.to("cpu").numpy() for t in (x, A.grad, B.grad, tangent, v)]
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in zip(results[device], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_a_gpu_namespace_solves_with_numpys_broadcasting():
    import contextlib

    calls = []

    def cupy14_solve(a, b):
        calls.append((a.shape, b.shape))
        assert b.ndim == 1 or a.shape[:-1] == b.shape[:-1], (a.shape, b.shape)
        return np.linalg.solve(a, b)

    ns = backend.CupyNamespace.__new__(backend.CupyNamespace)   # (no GPU here: NumPy behind CuPy's adapter)
    ns._device, ns._linalg_errstate = contextlib.nullcontext(), lambda linalg: contextlib.nullcontext()
    ns.library = SimpleNamespace(broadcast_to=np.broadcast_to, linalg=SimpleNamespace(solve=cupy14_solve))
    solve = ns._function("linalg.solve")
    a, b = np.eye(3)[None].repeat(2, 0) * 2, np.ones((3, 4))
    np.testing.assert_array_equal(solve(a, b), np.full((2, 3, 4), 0.5))
    assert calls == [((2, 3, 3), (2, 3, 4))]


def _cupy_like_namespace(linalg):
    """A CupyNamespace over NumPy (no GPU here) whose ``linalg`` is ``linalg`` and whose
    ``cupyx.errstate`` records the linalg setting in force, as CuPy's solvers read it."""
    import contextlib

    config = {"linalg": "ignore"}  # CuPy's default

    @contextlib.contextmanager
    def errstate(linalg):
        before, config["linalg"] = config["linalg"], linalg
        try:
            yield
        finally:
            config["linalg"] = before

    ns = backend.CupyNamespace.__new__(backend.CupyNamespace)
    ns._device, ns._linalg_errstate = contextlib.nullcontext(), errstate
    ns.library = SimpleNamespace(broadcast_to=np.broadcast_to, linalg=SimpleNamespace(**linalg(config)))
    return ns


def test_a_gpu_namespace_asks_cupy_to_raise_what_it_cannot_factor():
    # CuPy's inv, solve and cholesky answer a singular (not positive-definite) matrix with inf, NaN or a
    # half-done factor unless cupyx.errstate(linalg="raise"); NumPy's -- and PyTorch's -- raise LinAlgError
    def linalg(config):
        def checked(numpys):
            def fn(a, *rest):
                if config["linalg"] == "raise":
                    return numpys(a, *rest)
                with np.errstate(all="ignore"):
                    return np.full(np.broadcast_shapes(a.shape, *(r.shape for r in rest)), np.inf)
            return fn
        return {name: checked(getattr(np.linalg, name)) for name in ("inv", "solve", "cholesky", "det")}

    ns = _cupy_like_namespace(linalg)
    singular = np.ones((2, 2))
    for name, args in [("inv", ()), ("solve", (np.ones((2, 1)),)), ("cholesky", ())]:
        with pytest.raises(np.linalg.LinAlgError):
            ns._function("linalg." + name)(singular, *args)
    assert np.isinf(ns._function("linalg.det")(singular)).all()  # (det of a singular matrix is 0, no error)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_strict_device_factors_as_cupy_and_the_engine_refuses_as_pytorch(device):
    xp = mg.device(device).xp
    singular = xp.asarray(np.ones((2, 3, 3), dtype="float32"))
    for name, args in [("inv", ()), ("solve", (singular[..., :1],)), ("cholesky", ())]:
        raw = xp._function("linalg." + name)   # CuPy's default: no error, garbage (NaN here)
        assert np.isnan(xp.to_host(raw(singular, *args))).all()
        with pytest.raises(np.linalg.LinAlgError):  # the namespace the engine calls raises, as NumPy's
            getattr(xp.linalg, name)(singular, *args)
    for dev in ("cpu", device):
        a = mg.ones(2, 3, 3, device=dev)
        with pytest.raises(mg.linalg.LinAlgError, match="singular"):
            mg.linalg.inv(a)
        with pytest.raises(mg.linalg.LinAlgError, match="singular"):
            mg.linalg.solve(a, mg.ones(2, 3, 1, device=dev))
        with pytest.raises(mg.linalg.LinAlgError, match="positive-definite"):
            mg.linalg.cholesky(-mg.eye(3, device=dev))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_solve_with_broadcast_batches_inside_checkpoint_and_vmap_on_a_device(device):
    # the seams of the broadcasting wrapper: a checkpoint's replay and vmap's batching call xp.linalg.solve
    # with the shapes they make (vmap moves the mapped axis into the batch, a stack against one matrix)
    from minigrad_ckpt import checkpoint as ck

    dtype = "float32" if device == "strict-f32" else "float64"
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((2, 3, 3)) + 4 * np.eye(3)).astype(dtype)
    b = rng.standard_normal((4, 3, 2)).astype(dtype)
    results = {}
    for dev in ("cpu", device):
        A = mg.tensor(a, device=dev, requires_grad=True)
        B = mg.tensor(b, device=dev, requires_grad=True)
        out = ck.checkpoint(lambda p, q: mg.linalg.solve(p[:, None], q), A, B, use_reentrant=False)
        (out * out).sum().backward()
        mapped = mg.func.vmap(mg.linalg.solve, in_dims=(None, 0))(A.detach(), B.detach())
        results[dev] = [t.to("cpu").numpy() for t in (out, A.grad, B.grad, mapped)]
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in zip(results[device], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
