"""Make tests/data/torch_linalg_keywords.npz: PyTorch's answers to the keyword arguments of
``torch.linalg.lstsq`` (``driver=``) and ``torch.linalg.pinv`` (``atol=``, ``rtol=``).

Run offline (torch is never a test dependency):  python tests/data/make_torch_linalg_keywords.py

lstsq (``lstsq.<case>.<driver>.*``): the inputs ``a``, ``b`` and the four fields
``solution``, ``residuals``, ``rank``, ``singular_values`` (empty where that driver leaves
them), full-rank tall, batched and rank-deficient matrices.

pinv (``pinv.<case>.*``): the input ``a``, the tolerances, PyTorch's ``pinv`` and the gradient
``ga`` of ``sum(pinv * c)`` for the cotangent ``c`` (a matrix whose singular values straddle the
cutoffs, so each tolerance drops a different number of them).

per_matrix (``per_matrix.*``): tensor tolerances, one per matrix of a stack, for ``matrix_rank``
and ``pinv``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
PINV_TOLERANCES = {  # name: (atol, rtol); None: not passed
    "atol": (0.5, None),
    "rtol": (None, 0.2),
    "both_atol_wins": (0.5, 0.01),
    "both_rtol_wins": (0.05, 0.3),
    "neither": (None, None),
}


def lstsq_cases(rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    deficient = rng.standard_normal((5, 3))
    deficient[:, 2] = deficient[:, 1]
    inputs = {"tall": (rng.standard_normal((5, 3)), rng.standard_normal((5, 2))),
              "batched": (rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))),
              "square": (rng.standard_normal((3, 3)), rng.standard_normal((3, 2))),
              "deficient": (deficient, rng.standard_normal((5, 2)))}
    for name, (a, b) in inputs.items():
        out[f"lstsq.{name}.a"], out[f"lstsq.{name}.b"] = a, b
        for driver in DRIVERS:
            if driver == "gels" and name == "deficient":
                continue  # gels assumes full rank
            result = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
            for field in ("solution", "residuals", "rank", "singular_values"):
                out[f"lstsq.{name}.{driver}.{field}"] = getattr(result, field).numpy()


def pinv_cases(rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    u, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    v, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    a = u[:, :3] * np.array([2.0, 0.3, 0.04]) @ v.T  # singular values 2, 0.3, 0.04
    c = rng.standard_normal((3, 4))
    out["pinv.a"], out["pinv.c"] = a, c
    for name, (atol, rtol) in PINV_TOLERANCES.items():
        at = torch.tensor(a, requires_grad=True)
        p = torch.linalg.pinv(at, atol=atol, rtol=rtol)
        (p * torch.tensor(c)).sum().backward()
        out[f"pinv.{name}.pinv"], out[f"pinv.{name}.ga"] = p.detach().numpy(), at.grad.numpy()


def per_matrix_cases(rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    """Tensor tolerances, one per matrix of a stack (``per_matrix.*``): ``matrix_rank`` and
    ``pinv`` (with the gradient of ``sum(pinv * c)``) of a (4, 4, 4) stack."""
    a = rng.standard_normal((4, 4, 4))
    c = rng.standard_normal((2, 4, 4, 4))
    atol, rtol = np.array([0.5, 1.0, 2.0, 3.0]), np.array([0.1, 0.3, 0.5, 0.9])
    column = np.array([[0.5], [1.0]])
    out["per_matrix.a"], out["per_matrix.c"] = a, c
    out["per_matrix.atol"], out["per_matrix.rtol"], out["per_matrix.column"] = atol, rtol, column
    t = torch.tensor
    out["per_matrix.rank_atol"] = torch.linalg.matrix_rank(t(a), atol=t(atol)).numpy()
    out["per_matrix.rank_rtol"] = torch.linalg.matrix_rank(t(a), rtol=t(rtol)).numpy()
    out["per_matrix.rank_both"] = torch.linalg.matrix_rank(t(a), atol=t(column), rtol=t(rtol)).numpy()
    at = torch.tensor(a, requires_grad=True)
    p = torch.linalg.pinv(at, atol=t(column), rtol=t(rtol))
    (p * t(c)).sum().backward()
    out["per_matrix.pinv_both"], out["per_matrix.pinv_both_ga"] = p.detach().numpy(), at.grad.numpy()
    out["per_matrix.pinv_rtol"] = torch.linalg.pinv(t(a), rtol=t(rtol)).numpy()


def main() -> None:
    rng = np.random.default_rng(20261204)
    out: dict[str, np.ndarray] = {"torch_version": np.array(torch.__version__)}
    lstsq_cases(rng, out)
    pinv_cases(rng, out)
    per_matrix_cases(rng, out)
    np.savez(Path(__file__).with_name("torch_linalg_keywords.npz"), **out)


if __name__ == "__main__":
    main()
