"""Make tests/data/torch_factorizations.npz: LU of non-square matrices and the LDL^T
(Bunch-Kaufman) factorization, by PyTorch.

Run offline (torch is never a test dependency):  python tests/data/make_torch_factorizations.py

LU (``lu.<name>.*``): the input ``a``, PyTorch's ``P``, ``L``, ``U``, ``LU``, ``pivots`` and the
gradient ``ga`` of ``sum(L * cl) + sum(U * cu)`` for the cotangents ``cl``, ``cu``.

LDL (``ldl.<name>.*``): the input ``a`` (only its lower triangle is read), PyTorch's ``LD``,
``pivots`` and ``info`` (``linalg.ldl_factor_ex``), a right-hand side ``b`` and
``x = linalg.ldl_solve(LD, pivots, b)``; complex symmetric matrices with ``hermitian=False``.
PyTorch offers no derivative of either.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

LU_SHAPES = {  # name: shape
    "square": (4, 4),
    "tall": (5, 3),
    "wide": (3, 5),
    "tall_batched": (2, 4, 2),
    "wide_batched": (2, 2, 4),
    "row": (1, 4),
    "column": (4, 1),
}


def lu_cases(rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    for name, shape in LU_SHAPES.items():
        a = rng.standard_normal(shape)
        at = torch.tensor(a, requires_grad=True)
        p, low, up = torch.linalg.lu(at)
        cl, cu = rng.standard_normal(tuple(low.shape)), rng.standard_normal(tuple(up.shape))
        ((low * torch.tensor(cl)).sum() + (up * torch.tensor(cu)).sum()).backward()
        lu_, piv = torch.linalg.lu_factor(torch.tensor(a))
        for key, value in {"a": a, "P": p, "L": low, "U": up, "LU": lu_, "pivots": piv, "cl": cl, "cu": cu,
                           "ga": at.grad}.items():
            out[f"lu.{name}.{key}"] = value.detach().numpy() if isinstance(value, torch.Tensor) else value


def _symmetric(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    a = rng.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def ldl_inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Symmetric indefinite matrices that take every branch of Bunch-Kaufman's pivot choice."""
    zero_diag = _symmetric(rng, (5, 5))
    np.fill_diagonal(zero_diag, 0.0)  # every first pivot a 2x2 block
    graded = _symmetric(rng, (6, 6)) * np.logspace(0, 3, 6)[:, None] * np.logspace(0, 3, 6)[None, :]
    singular = np.zeros((4, 4))
    singular[1:, 1:] = _symmetric(rng, (3, 3))  # a zero first column: info = 1
    upper_noise = np.tril(_symmetric(rng, (4, 4))) + np.triu(rng.standard_normal((4, 4)) * 100, 1)
    return {
        "random": _symmetric(rng, (4, 4)),
        "batched": _symmetric(rng, (3, 2, 5, 5)),
        "zero_diagonal": zero_diag,
        "swap_2x2": np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]),
        "graded": graded,
        "spd": (lambda m: m @ m.T + 6 * np.eye(6))(rng.standard_normal((6, 6))),
        "large": _symmetric(rng, (12, 12)),
        "one": np.array([[-2.5]]),
        "singular": singular,
        "zeros": np.zeros((3, 3)),
        "upper_ignored": upper_noise,
        "nan_pivot": np.array([[np.nan, 0.0], [0.0, 1.0]]),  # info = 1, and the next column goes on
        "inf_pivot": np.array([[1.0, 0.0], [0.0, np.inf]]),
        "complex_symmetric": _symmetric(rng, (2, 6, 6)) + 1j * _symmetric(rng, (2, 6, 6)),  # A^T = A (not A^H)
    }


def ldl_cases(rng: np.random.Generator, out: dict[str, np.ndarray]) -> None:
    for name, a in ldl_inputs(rng).items():
        ld, piv, info = torch.linalg.ldl_factor_ex(torch.tensor(a))
        b = rng.standard_normal(a.shape[:-1] + (2,)) + (1j * rng.standard_normal(a.shape[:-1] + (2,))
                                                         if np.iscomplexobj(a) else 0)
        out[f"ldl.{name}.a"] = a
        out[f"ldl.{name}.LD"] = ld.numpy()
        out[f"ldl.{name}.pivots"] = piv.numpy()
        out[f"ldl.{name}.info"] = info.numpy()
        out[f"ldl.{name}.b"] = b
        if not info.any() and np.isfinite(a).all():
            out[f"ldl.{name}.x"] = torch.linalg.ldl_solve(ld, piv, torch.tensor(b)).numpy()


def main() -> None:
    rng = np.random.default_rng(0)
    out: dict[str, np.ndarray] = {}
    lu_cases(rng, out)
    ldl_cases(rng, out)
    np.savez_compressed(Path(__file__).with_name("torch_factorizations.npz"), **out)


if __name__ == "__main__":
    main()
