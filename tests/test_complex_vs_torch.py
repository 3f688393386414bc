"""Complex-capable functions and every ``mg.fft`` function against PyTorch's answers.

Complex-capable functions (cases ``cx_*``): elementwise arithmetic with complex
and real operands, exp/log/sqrt/trig, abs, angle, the parts, ``complex``,
``polar``, ``view_as_real``/``view_as_complex``, reductions, ``matmul``,
``einsum``, ``tensordot``, ``flip``, ``linalg.inv``/``det``/``solve``/``norm``.

Shape, indexing, writing, reduction, product and elementwise functions (cases ``op_*``,
written once for both engines in ``tests/data/complex_op_cases.py``): reshape, transpose,
permute, squeeze/unsqueeze, flatten, cat/stack/split/chunk/unbind, flip/roll/rot90, tile,
repeat, pad, tril/triu, diagonal/diag/trace, broadcast_to/expand, movedim; getitem with
slices, ints, arrays and masks, gather, take_along_axis, index_select, take, where,
masked_fill/select/scatter; setitem (forward mode: minigrad_ckpt records no in-place write
for reverse mode, and says so), scatter, index_add/copy/put/fill, put and the ``*_scatter``
functions; sum/mean/prod/cumsum/cumprod/var/std along axes, nansum/nanmean, logsumexp,
vector and matrix norms, diff, trapezoid, cov, corrcoef; batched matmul, einsum,
tensordot, dot, inner, vecdot, multi_dot, cross, matrix_power; rsqrt, sign (``sgn``),
lerp, ldexp, nan_to_num, powers with Python bases and exponents, the parts as methods.

Complex factorizations (cases ``cx_linalg_*``): ``eigh``, ``svd``, ``qr``,
``cholesky``, ``slogdet``, ``eig``/``eigvals`` (of complex and real matrices),
through the functions of ``tests/data/complex_linalg_cases.py`` that do not
depend on the eigen- and singular vectors' phases (PyTorch keeps LAPACK's,
minigrad_ckpt fixes them).

The fixture ``tests/data/torch_complex_reference.npz`` was made offline by
``tests/data/make_torch_complex_reference.py`` (torch, complex128): for each
case the output, the vector-Jacobian product for a random cotangent, the
jvp for a random tangent, and the second derivative -- the gradient of
``<vjp(cot), dir>`` with respect to the inputs and to the cotangent -- all
compared at 1e-12; and the output for the inputs in complex64 (float32),
compared at 1e-5.
PyTorch's gradient convention is minigrad_ckpt's (docs/complex.md), so the
numbers compare without conversion.  No torch import here.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

FIXTURE = Path(__file__).with_name("data") / "torch_complex_reference.npz"
with np.load(FIXTURE) as _npz:
    _ARRAYS = {k: _npz[k] for k in _npz.files}
CASES = json.loads(_ARRAYS.pop("__meta__").tobytes().decode())
sys.path.insert(0, str(FIXTURE.parent))
import complex_linalg_cases  # noqa: E402
import complex_op_cases  # noqa: E402


def arr(case: str, name: str) -> np.ndarray:
    return _ARRAYS[f"{case}|{name}"]


def function(name: str):
    if name.startswith("cases."):  # a composition in tests/data/complex_linalg_cases.py
        return functools.partial(getattr(complex_linalg_cases, name.removeprefix("cases.")), mg)
    if name.startswith("ops."):  # a function of tests/data/complex_op_cases.py
        return functools.partial(getattr(complex_op_cases, name.removeprefix("ops.")), mg)
    obj = mg
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def kwargs_of(case: str) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in CASES[case]["kwargs"].items()}


def close(got, want: np.ndarray, what: str, tol: float = 1e-12) -> None:
    """``got`` is ``want`` to ``tol`` relative to the largest finite magnitude, non-finite entries exactly."""
    got = got.numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, PyTorch {want.dtype}"
    finite = np.isfinite(want)
    assert np.array_equal(np.isfinite(got), finite) and np.array_equal(got[~finite], want[~finite]), (
        f"{what}: non-finite entries differ")
    got, want = got[finite], want[finite]
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= tol * scale, f"{what}: max |minigrad - torch| = {err:.3g} (scale {scale:.3g})"


def single(a: np.ndarray) -> np.ndarray:
    """``a`` in single precision: complex64 for complex128, float32 for float64, other dtypes kept."""
    return a.astype({"c": np.complex64, "f": np.float32}.get(a.dtype.kind, a.dtype))


def real_inner(a: mg.Tensor, b: mg.Tensor) -> mg.Tensor:
    """<a, b> with complex numbers as pairs of reals (b is a constant)."""
    return (a.real * b.real).sum() + (a.imag * b.imag).sum() if a.is_complex() else (a * b).sum()


def run(case: str):
    names = CASES[case]["inputs"]
    f = function(CASES[case]["fn"])
    kw = kwargs_of(case)
    prefix = CASES[case].get("prefix", [])
    xs = [mg.tensor(arr(case, n), requires_grad=True) for n in names]
    return names, xs, (lambda *a: f(*prefix, *a, **kw))


@pytest.mark.parametrize("case", sorted(CASES))  # in-place writes (setitem_*) too: recorded, as PyTorch's
def test_value_and_gradient(case):
    names, xs, f = run(case)
    out = f(*xs)
    close(out, arr(case, "out"), f"{case}: output")
    grads = mg.grad(out, xs, grad_outputs=mg.tensor(arr(case, "cot")))
    for n, g in zip(names, grads):
        close(g, arr(case, f"grad_{n}"), f"{case}: gradient of {n}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_single_precision_forward(case):
    """complex64 (and float32) inputs give PyTorch's complex64 (float32) outputs, to float32 rounding."""
    f = function(CASES[case]["fn"])
    prefix = CASES[case].get("prefix", [])
    xs = [mg.tensor(single(arr(case, n))) for n in CASES[case]["inputs"]]
    close(f(*prefix, *xs, **kwargs_of(case)), arr(case, "out32"), f"{case}: single-precision output", tol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
def test_jvp(case):
    names, xs, f = run(case)
    tangents = tuple(mg.tensor(arr(case, f"tan_{n}")) for n in names)
    _, jvp = mg.func.jvp(f, tuple(x.detach() for x in xs), tangents)
    close(jvp, arr(case, "jvp"), f"{case}: jvp")


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_derivative(case):
    names, xs, f = run(case)
    cot = mg.tensor(arr(case, "cot"), requires_grad=True)
    grads = mg.grad(f(*xs), xs, grad_outputs=cot, create_graph=True)
    second = sum(real_inner(g, mg.tensor(arr(case, f"dir_{n}"))) for n, g in zip(names, grads))
    if not second.requires_grad:  # the vjp does not depend on the inputs or the cotangent
        for n in names:
            assert not np.any(arr(case, f"gg_{n}")), f"{case}: PyTorch has a second derivative for {n}"
        return
    gg = mg.grad(second, [*xs, cot], allow_unused=True)
    for n, x, h in zip([*names, "cot"], [*xs, cot], gg):
        want = arr(case, "ggcot" if n == "cot" else f"gg_{n}")
        close(mg.zeros_like(x) if h is None else h, want, f"{case}: second derivative wrt {n}")
