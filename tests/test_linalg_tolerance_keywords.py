"""PyTorch's keyword arguments of ``linalg.lstsq`` (``driver=``) and ``linalg.pinv`` (``atol=``):
both were TypeErrors.  ``driver`` picks which of ``residuals``, ``rank`` and ``singular_values``
are filled (the others empty, as PyTorch's); ``pinv``'s cutoff is ``max(atol, rtol * max(s))``
with ``rtol`` 0 when ``atol`` alone is given.  PyTorch's answers: tests/data/torch_linalg_keywords.npz
(tests/data/make_torch_linalg_keywords.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.checkpoint import checkpoint

DATA = np.load(Path(__file__).parent / "data" / "torch_linalg_keywords.npz")
FIELDS = ("solution", "residuals", "rank", "singular_values")
LSTSQ = sorted({tuple(key.split(".")[1:3]) for key in DATA.files
                if key.startswith("lstsq.") and key.endswith(".solution")})
PINV = ("atol", "rtol", "both_atol_wins", "both_rtol_wins", "neither")
TOLERANCES = {"atol": (0.5, None), "rtol": (None, 0.2), "both_atol_wins": (0.5, 0.01),
              "both_rtol_wins": (0.05, 0.3), "neither": (None, None)}


@pytest.mark.parametrize("case, driver", LSTSQ)
def test_lstsq_fills_the_fields_of_its_driver(case, driver):
    a, b = DATA[f"lstsq.{case}.a"], DATA[f"lstsq.{case}.b"]
    result = mg.linalg.lstsq(mg.tensor(a), mg.tensor(b), driver=driver)
    for field in FIELDS:
        want = DATA[f"lstsq.{case}.{driver}.{field}"]
        got = getattr(result, field).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype, field
        np.testing.assert_allclose(got, want, atol=1e-10)


def test_lstsq_refuses_a_driver_pytorch_does_not_have():
    with pytest.raises(RuntimeError, match="driver"):
        mg.linalg.lstsq(mg.eye(3), mg.ones(3, 1), driver="gesv")


def test_lstsq_with_a_driver_is_differentiable():
    a = mg.tensor(DATA["lstsq.tall.a"], requires_grad=True)
    mg.linalg.lstsq(a, mg.tensor(DATA["lstsq.tall.b"]), driver="gelsd").solution.sum().backward()
    b = mg.tensor(DATA["lstsq.tall.a"], requires_grad=True)
    mg.linalg.lstsq(b, mg.tensor(DATA["lstsq.tall.b"])).solution.sum().backward()
    assert np.array_equal(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("case", PINV)
def test_pinv_takes_pytorchs_tolerances(case, dtype, device):
    atol, rtol = TOLERANCES[case]
    tol = 1e-4 if dtype == mg.float32 else 1e-10
    c = mg.tensor(DATA["pinv.c"], dtype=dtype, device=device)

    def loss(x):
        return (mg.linalg.pinv(x, atol=atol, rtol=rtol) * c).sum()

    x = mg.tensor(DATA["pinv.a"], dtype=dtype, device=device, requires_grad=True)
    np.testing.assert_allclose(mg.linalg.pinv(x, atol=atol, rtol=rtol).detach().numpy(),
                               DATA[f"pinv.{case}.pinv"], atol=tol, rtol=tol)
    loss(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), DATA[f"pinv.{case}.ga"], atol=tol, rtol=tol)
    y = mg.tensor(DATA["pinv.a"], dtype=dtype, device=device, requires_grad=True)
    checkpoint(loss, y, use_reentrant=False).backward()
    np.testing.assert_allclose(y.grad.numpy(), DATA[f"pinv.{case}.ga"], atol=tol, rtol=tol)
    g = mg.func.grad(loss)(mg.tensor(DATA["pinv.a"], dtype=dtype, device=device))
    np.testing.assert_allclose(g.numpy(), DATA[f"pinv.{case}.ga"], atol=tol, rtol=tol)


def test_matrix_rank_takes_one_tolerance_per_matrix():
    # a tensor atol of a (4, 4, 4) stack was broadcast against the (4, 4) singular values themselves:
    # ranks [2, 2, 2, 2] where torch 2.13 gives [3, 2, 1, 1]
    a, rtol = mg.tensor(DATA["per_matrix.a"]), mg.tensor(DATA["per_matrix.rtol"])
    ranks = {"atol": mg.linalg.matrix_rank(a, atol=mg.tensor(DATA["per_matrix.atol"])),
             "rtol": mg.linalg.matrix_rank(a, rtol=rtol),
             "both": mg.linalg.matrix_rank(a, atol=mg.tensor(DATA["per_matrix.column"]), rtol=rtol)}
    for name, rank in ranks.items():
        assert rank.numpy().tolist() == DATA[f"per_matrix.rank_{name}"].tolist(), name


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_pinv_takes_one_tolerance_per_matrix(device):
    a = mg.tensor(DATA["per_matrix.a"], device=device, requires_grad=True)
    atol = mg.tensor(DATA["per_matrix.column"], device=device)
    rtol = mg.tensor(DATA["per_matrix.rtol"], device=device)
    p = mg.linalg.pinv(a, atol=atol, rtol=rtol)
    np.testing.assert_allclose(p.detach().numpy(), DATA["per_matrix.pinv_both"], atol=1e-10)
    (p * mg.tensor(DATA["per_matrix.c"], device=device)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), DATA["per_matrix.pinv_both_ga"], atol=1e-8)
    np.testing.assert_allclose(mg.linalg.pinv(a.detach(), rtol=rtol).numpy(), DATA["per_matrix.pinv_rtol"],
                               atol=1e-10)
