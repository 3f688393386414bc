"""minigrad_ckpt against PyTorch's answers stored in ``tests/data/torch_nn_reference.npz`` and
``torch_3d_ops.npz`` (made offline by ``tests/data/make_torch_nn_reference.py`` and
``make_torch_3d_ops.py``; torch is not imported here).

Every case is one call: a function of ``nn.functional``, ``linalg``, ``special`` or the top
level, or a layer of ``nn`` built with the stored options.  Its outputs (integer pooling
indices included) and the gradients of ``sum(out_i * cot_i)`` must match to float64
round-off.  Where PyTorch's own backward is not the adjoint of its forward (``interpolate``
with ``mode="nearest"``, 3 spatial axes and unequal scale factors), the fixture holds the
adjoint read off PyTorch's forward (one call per one-hot input) and marks the case
``adjoint_from_forward``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

# the second file: the 3-D transposed convolution, adaptive max pooling and unpooling, some at edge values
FIXTURES = [Path(__file__).with_name("data") / name for name in ("torch_nn_reference.npz", "torch_3d_ops.npz")]
ARRAYS: dict = {}
CASES: dict = {}
for _path in FIXTURES:
    with np.load(_path) as _npz:
        _arrays = {k: _npz[k] for k in _npz.files}
    _cases = json.loads(_arrays.pop("__meta__").tobytes().decode())
    assert not set(_cases) & set(CASES), f"{_path.name} repeats case names"
    ARRAYS.update(_arrays)
    CASES.update(_cases)
NAMESPACES = {"F": F, "linalg": mg.linalg, "special": mg.special, "torch": mg}
RTOL = 1e-12
# PyTorch's backward kernels of these take a constant in float32 (hardsigmoid's and hardswish's 1/6,
# celu's 1/alpha): their float64 gradients are off by ~1e-8 relative; the engine's are exact
LOOSER = {"celu": 1e-7, "hardsigmoid": 1e-7, "hardswish": 1e-7, "layer_CELU": 1e-7, "layer_Hardsigmoid": 1e-7,
          "layer_Hardswish": 1e-7, "ctc_loss_float32": 1e-5}

# PyTorch's gradient of a Cholesky factor treats every entry as used, though the forward reads one
# triangle (LAPACK's potrs); the engine's is the derivative of what is computed, 0 off the triangle:
# compare the triangle read
FACTOR_TRIANGLE = {"cholesky_solve": "lower", "cholesky_solve_upper": "upper", "cholesky_inverse": "lower"}


def resolve(v, env: dict):
    if isinstance(v, str) and v.startswith("@"):
        return env[v[1:]]
    if isinstance(v, list):
        return tuple(resolve(a, env) for a in v)
    return v


def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [o for part in out for o in flat(part)]
    return [out]


def close(got, want: np.ndarray, what: str, rtol: float = RTOL) -> None:
    got = got.numpy() if isinstance(got, mg.Tensor) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, PyTorch {want.shape}"
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, PyTorch {want.dtype}"
    finite = np.abs(want[np.isfinite(want)])  # infinities and NaNs must match exactly (assert_allclose)
    scale = max(1.0, float(np.max(finite))) if finite.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale * 10, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str) -> None:
    meta = CASES[name]
    inputs = {k.split("|", 1)[1]: v for k, v in ARRAYS.items()
              if k.startswith(name + "|") and not k.split("|", 1)[1].startswith(("out", "cot", "grad_"))}
    env = {k: mg.tensor(v, requires_grad=k in meta["grad"]) for k, v in inputs.items()}
    if meta["ns"] == "nn":
        init = {k: tuple(v) if isinstance(v, list) else v for k, v in meta["init"].items()}
        fn = getattr(nn, meta["fn"])(**init)
    else:
        fn = getattr(NAMESPACES[meta.get("mg_ns", meta["ns"])], meta["fn"])
    outs = flat(fn(*resolve(meta["args"], env), **{k: resolve(v, env) for k, v in meta["kwargs"].items()}))
    total = None
    for i, o in enumerate(outs):
        close(o, ARRAYS[f"{name}|out{i}"], f"{name}: output {i}")
        if f"{name}|cot{i}" in ARRAYS:
            term = (o * mg.tensor(ARRAYS[f"{name}|cot{i}"])).sum()
            total = term if total is None else total + term
        else:
            assert not o.requires_grad or o.dtype.kind != "f", f"{name}: output {i} has no PyTorch gradient"
    rtol = next((v for k, v in LOOSER.items() if name.startswith(k)), RTOL)
    for k in meta["grad"]:
        (g,) = mg.grad(total, [env[k]], retain_graph=True)
        want = ARRAYS[f"{name}|grad_{k}"]
        if name in FACTOR_TRIANGLE and k == "f":
            keep = np.tril if FACTOR_TRIANGLE[name] == "lower" else np.triu
            np.testing.assert_array_equal(g.numpy() - keep(g.numpy()), 0)
            g, want = keep(g.numpy()), keep(want)
        close(g, want, f"{name}: gradient of {k}", rtol)


def test_fixture_covers_the_keywords() -> None:
    """The pooling keywords and ``padding='same'`` with even kernels are all in the fixture."""
    kws = {k for m in CASES.values() for k, v in {**m["kwargs"], **m["init"]}.items() if v not in (False, None)}
    assert {"ceil_mode", "return_indices", "count_include_pad", "divisor_override", "dilation"} <= kws
    assert any(m["kwargs"].get("padding") == "same" and m["fn"] == "conv2d" for m in CASES.values())
    modes = {m["kwargs"]["mode"] for m in CASES.values() if m["fn"] == "interpolate"}
    assert modes == {"nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"}
