"""Complex-capable functions and every ``mg.fft`` function against PyTorch's answers.

Complex-capable functions (cases ``cx_*``): elementwise arithmetic with complex
and real operands, exp/log/sqrt/trig, abs, angle, the parts, ``complex``,
``polar``, ``view_as_real``/``view_as_complex``, reductions, ``matmul``,
``einsum``, ``tensordot``, ``flip``, ``linalg.inv``/``det``/``solve``/``norm``.

Complex factorizations (cases ``cx_linalg_*``): ``eigh``, ``svd``, ``qr``,
``cholesky``, ``slogdet``, ``eig``/``eigvals`` (of complex and real matrices),
through the functions of ``tests/data/complex_linalg_cases.py`` that do not
depend on the eigen- and singular vectors' phases (PyTorch keeps LAPACK's,
minigrad_ckpt fixes them).

The fixture ``tests/data/torch_complex_reference.npz`` was made offline by
``tests/data/make_torch_complex_reference.py`` (torch, complex128): for each
case the output, the vector-Jacobian product for a random cotangent, the
jvp for a random tangent, and the second derivative -- the gradient of
``<vjp(cot), dir>`` with respect to the inputs and to the cotangent.
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


def arr(case: str, name: str) -> np.ndarray:
    return _ARRAYS[f"{case}|{name}"]


def function(name: str):
    if name.startswith("cases."):  # a composition in tests/data/complex_linalg_cases.py
        return functools.partial(getattr(complex_linalg_cases, name.removeprefix("cases.")), mg)
    obj = mg
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def kwargs_of(case: str) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in CASES[case]["kwargs"].items()}


def close(got, want: np.ndarray, what: str) -> None:
    got = got.numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, PyTorch {want.dtype}"
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= 1e-12 * scale, f"{what}: max |minigrad - torch| = {err:.3g} (scale {scale:.3g})"


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


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_and_gradient(case):
    names, xs, f = run(case)
    out = f(*xs)
    close(out, arr(case, "out"), f"{case}: output")
    grads = mg.grad(out, xs, grad_outputs=mg.tensor(arr(case, "cot")))
    for n, g in zip(names, grads):
        close(g, arr(case, f"grad_{n}"), f"{case}: gradient of {n}")


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
