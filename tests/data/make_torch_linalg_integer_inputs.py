"""Regenerate ``tests/data/torch_linalg_integer_inputs.json``: torch 2.13's answer to its linear
algebra on an integer (int64, int32) or bool matrix -- the exception's type and message where it
refuses (it computes in floating point only: "linalg.det: Expected a floating point or complex
tensor as input. Got Long", a kernel it has none of for that dtype: '"lu_cpu" not implemented for
'Long''), and the dtype and values where it answers (``matrix_power`` with ``n >= 0``, ``vander``,
``cross``, ``multi_dot``).

    python tests/data/make_torch_linalg_integer_inputs.py     # needs torch; the tests do not

Read by ``tests/test_linalg_integer_inputs.py``, which runs the same ``CALLS`` on the engine
(``L`` is the library, ``torch`` or ``minigrad_ckpt``; ``F`` its ``nn.functional``).
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("torch_linalg_integer_inputs.json")
MATRIX = [[2, 1, 0], [1, 3, 1], [0, 1, 4]]
DTYPES = ("int64", "int32", "bool")

#: functions of the matrix alone, and of the matrix twice (``solve(a, a)``), by their path in the library
ONE_MATRIX = (
    "linalg.norm linalg.vector_norm linalg.matrix_norm linalg.det linalg.slogdet linalg.inv linalg.inv_ex "
    "linalg.svd linalg.svdvals linalg.eigh linalg.eigvalsh linalg.eig linalg.eigvals linalg.qr linalg.cholesky "
    "linalg.cholesky_ex linalg.lu linalg.lu_factor linalg.lu_factor_ex linalg.pinv linalg.matrix_rank "
    "linalg.matrix_exp linalg.cond linalg.ldl_factor linalg.diagonal cholesky_inverse det logdet inverse "
    "pinverse matrix_exp nn.functional.normalize nn.functional.pdist").split()
TWO_MATRICES = "linalg.solve linalg.solve_ex linalg.lstsq linalg.vecdot cholesky_solve dist cdist".split()
METHODS = "det slogdet inverse matrix_exp".split()


def _function(L, path: str):
    for part in path.split("."):
        L = getattr(L, part)
    return L


CALLS = {
    **{path: (lambda p: lambda L, F, a: _function(L, p)(a))(path) for path in ONE_MATRIX},
    **{path: (lambda p: lambda L, F, a: _function(L, p)(a, a))(path) for path in TWO_MATRICES},
    **{"t." + name: (lambda n: lambda L, F, a: getattr(a, n)())(name) for name in METHODS},
    "linalg.norm vector": lambda L, F, a: L.linalg.norm(a[0], 1),
    "linalg.norm matrix": lambda L, F, a: L.linalg.norm(a, "fro"),
    "linalg.norm dim": lambda L, F, a: L.linalg.norm(a, dim=1),
    "linalg.vector_norm inf": lambda L, F, a: L.linalg.vector_norm(a, float("inf")),
    "linalg.vector_norm dtype": lambda L, F, a: L.linalg.vector_norm(a, dtype=L.float64),
    "linalg.matrix_norm nuc": lambda L, F, a: L.linalg.matrix_norm(a, "nuc"),
    "linalg.lu_solve": lambda L, F, a: L.linalg.lu_solve(a, L.ones_like(a[0], dtype=L.int32), a),
    "linalg.matrix_power -1": lambda L, F, a: L.linalg.matrix_power(a, -1),
    "linalg.cond fro": lambda L, F, a: L.linalg.cond(a, "fro"),
    "linalg.tensorinv": lambda L, F, a: L.linalg.tensorinv(a, 1),
    "linalg.matrix_power 0": lambda L, F, a: L.linalg.matrix_power(a, 0),
    "linalg.tensorsolve": lambda L, F, a: L.linalg.tensorsolve(a, a[0]),
    "linalg.householder_product": lambda L, F, a: L.linalg.householder_product(a, a[0]),
    "linalg.ldl_solve": lambda L, F, a: L.linalg.ldl_solve(a, L.ones_like(a[0], dtype=L.int32), a),
    "linalg.matrix_power 1": lambda L, F, a: L.linalg.matrix_power(a, 1),
    "linalg.solve_triangular": lambda L, F, a: L.linalg.solve_triangular(a, a, upper=True),
    "linalg.vander": lambda L, F, a: L.linalg.vander(a[0]),
    "renorm": lambda L, F, a: L.renorm(a, 2, 0, 1.0),
    "t.matrix_power 1": lambda L, F, a: a.matrix_power(1),
}
BOOL_PRODUCTS = {  # PyTorch has no bool matrix product or cross product: its NotImplementedError
    "linalg.matmul": lambda L, F, a: L.linalg.matmul(a, a),
    "linalg.multi_dot bool": lambda L, F, a: L.linalg.multi_dot([a, a]),
    "linalg.cross bool": lambda L, F, a: L.linalg.cross(a, a),
    "linalg.matrix_power 2 bool": lambda L, F, a: L.linalg.matrix_power(a, 2),
}
# integers only: PyTorch has no bool matrix product or cross product
INTEGER_CALLS = {
    "linalg.matrix_power 2": lambda L, F, a: L.linalg.matrix_power(a, 2),
    "linalg.multi_dot": lambda L, F, a: L.linalg.multi_dot([a, a, a]),
    "linalg.cross": lambda L, F, a: L.linalg.cross(a, a.flip(0)),
    "F.pairwise_distance": lambda L, F, a: F.pairwise_distance(a, a.flip(0)),
}


def outcome(fn, L, a) -> dict:
    """What ``fn`` answers: its exception (type and message), or the dtype and values of its result."""
    try:
        out = fn(L, L.nn.functional, a)
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    parts = list(out) if isinstance(out, tuple) else [out]
    return {"dtypes": [str(p.dtype).split(".")[-1] for p in parts], "values": [p.tolist() for p in parts]}


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for dtype in DTYPES:
        a = torch.tensor(MATRIX, dtype=getattr(torch, dtype))
        calls = {**CALLS, **BOOL_PRODUCTS} if dtype == "bool" else {**CALLS, **INTEGER_CALLS}
        for name, fn in calls.items():
            out[f"{name}/{dtype}"] = outcome(fn, torch, a)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
