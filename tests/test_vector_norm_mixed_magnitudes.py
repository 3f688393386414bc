"""``linalg.vector_norm``'s gradient for entries far smaller than the norm, as PyTorch's.

``d/dx_i ||x||_p = sign(x_i) (|x_i| / ||x||)^(p - 1)``: beside 1e200, the ratio of an entry 1e-200
underflows to 0, and the power came out ``inf`` for ``p < 1`` (torch 2.13: ``2e200`` for ``p = 1/2``)
and ``0`` for ``p > 1`` (torch: ``7.9e-201`` for ``p = 1.5``).  Where the ratio underflows the engine
now takes the same power by logarithms.

Expected values: torch 2.13 (``tests/data/make_torch_vector_norm_mixed.py`` writes
``tests/data/torch_vector_norm_mixed.json``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_vector_norm_mixed.json").read_text())
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]
# float32's logarithms carry ~80 * 6e-8 of rounding for a ratio of 1e-68 (float64: ~1e-13)
RTOL = {"float32": 1e-5, "float64": 1e-12}


def _cases(dtype):
    for i, v in enumerate(TORCH["vectors"][dtype]):
        for p in TORCH["orders"]:
            yield v, p, TORCH[f"{dtype}/{i}/{p}"]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_gradient_and_tangent_are_pytorchs(device, dtype):
    for v, p, want in _cases(dtype):
        x = mg.tensor(v, dtype=getattr(mg, dtype), device=device, requires_grad=True)
        n = mg.linalg.vector_norm(x, p)
        n.backward()
        wanted = np.array([float(g) for g in want["grad"]])
        np.testing.assert_allclose(n.item(), float(want["norm"]), rtol=RTOL[dtype])
        np.testing.assert_allclose(x.grad.cpu().numpy(), wanted, rtol=RTOL[dtype], err_msg=f"p={p}, x={v}")
        if not np.isfinite(wanted).all():
            continue  # (a tangent e_k meets the infinite entries as 0 * inf)
        # forward mode along each axis: the same numbers
        basis = np.eye(len(v), dtype=dtype)
        for k in range(len(v)):
            _, t = mg.func.jvp(lambda a, p=p: mg.linalg.vector_norm(a, p), (x.detach(),),
                               (mg.tensor(basis[k], device=device),))
            np.testing.assert_allclose(t.item(), wanted[k], rtol=RTOL[dtype])


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_inside_a_checkpoint_and_a_batch_of_rows(device):
    rows = np.array([[1e200, 1e-200, 3.0], [1.0, 2.0, 3.0]])
    x = mg.tensor(rows, device=device, requires_grad=True)
    mg.checkpoint.checkpoint(lambda a: mg.linalg.vector_norm(a * 1, 0.5, dim=1), x).sum().backward()
    norms = np.sum(np.sqrt(np.abs(rows)), axis=1) ** 2
    want = np.sqrt(norms[:, None]) / np.sqrt(np.abs(rows))  # (|x| / norm)^(-1/2)
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12)
