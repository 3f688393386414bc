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

CALLS = {
    "linalg.norm": lambda L, F, a: L.linalg.norm(a),
    "linalg.norm vector": lambda L, F, a: L.linalg.norm(a[0], 1),
    "linalg.norm matrix": lambda L, F, a: L.linalg.norm(a, "fro"),
    "linalg.norm dim": lambda L, F, a: L.linalg.norm(a, dim=1),
    "linalg.vector_norm": lambda L, F, a: L.linalg.vector_norm(a),
    "linalg.vector_norm inf": lambda L, F, a: L.linalg.vector_norm(a, float("inf")),
    "linalg.vector_norm dtype": lambda L, F, a: L.linalg.vector_norm(a, dtype=L.float64),
    "linalg.matrix_norm": lambda L, F, a: L.linalg.matrix_norm(a),
    "linalg.matrix_norm nuc": lambda L, F, a: L.linalg.matrix_norm(a, "nuc"),
    "linalg.det": lambda L, F, a: L.linalg.det(a),
    "linalg.slogdet": lambda L, F, a: L.linalg.slogdet(a),
    "linalg.inv": lambda L, F, a: L.linalg.inv(a),
    "linalg.inv_ex": lambda L, F, a: L.linalg.inv_ex(a),
    "linalg.solve": lambda L, F, a: L.linalg.solve(a, a),
    "linalg.solve_ex": lambda L, F, a: L.linalg.solve_ex(a, a),
    "linalg.svd": lambda L, F, a: L.linalg.svd(a),
    "linalg.svdvals": lambda L, F, a: L.linalg.svdvals(a),
    "linalg.eigh": lambda L, F, a: L.linalg.eigh(a),
    "linalg.eigvalsh": lambda L, F, a: L.linalg.eigvalsh(a),
    "linalg.eig": lambda L, F, a: L.linalg.eig(a),
    "linalg.eigvals": lambda L, F, a: L.linalg.eigvals(a),
    "linalg.qr": lambda L, F, a: L.linalg.qr(a),
    "linalg.cholesky": lambda L, F, a: L.linalg.cholesky(a),
    "linalg.cholesky_ex": lambda L, F, a: L.linalg.cholesky_ex(a),
    "linalg.lu": lambda L, F, a: L.linalg.lu(a),
    "linalg.lu_factor": lambda L, F, a: L.linalg.lu_factor(a),
    "linalg.lu_factor_ex": lambda L, F, a: L.linalg.lu_factor_ex(a),
    "linalg.lu_solve": lambda L, F, a: L.linalg.lu_solve(a, L.ones_like(a[0], dtype=L.int32), a),
    "linalg.lstsq": lambda L, F, a: L.linalg.lstsq(a, a),
    "linalg.pinv": lambda L, F, a: L.linalg.pinv(a),
    "linalg.matrix_rank": lambda L, F, a: L.linalg.matrix_rank(a),
    "linalg.matrix_power -1": lambda L, F, a: L.linalg.matrix_power(a, -1),
    "linalg.matrix_power 0": lambda L, F, a: L.linalg.matrix_power(a, 0),
    "linalg.matrix_power 1": lambda L, F, a: L.linalg.matrix_power(a, 1),
    "linalg.matrix_exp": lambda L, F, a: L.linalg.matrix_exp(a),
    "linalg.cond": lambda L, F, a: L.linalg.cond(a),
    "linalg.cond fro": lambda L, F, a: L.linalg.cond(a, "fro"),
    "linalg.tensorinv": lambda L, F, a: L.linalg.tensorinv(a, 1),
    "linalg.tensorsolve": lambda L, F, a: L.linalg.tensorsolve(a, a[0]),
    "linalg.vecdot": lambda L, F, a: L.linalg.vecdot(a, a),
    "linalg.householder_product": lambda L, F, a: L.linalg.householder_product(a, a[0]),
    "linalg.ldl_factor": lambda L, F, a: L.linalg.ldl_factor(a),
    "linalg.ldl_solve": lambda L, F, a: L.linalg.ldl_solve(a, L.ones_like(a[0], dtype=L.int32), a),
    "linalg.solve_triangular": lambda L, F, a: L.linalg.solve_triangular(a, a, upper=True),
    "linalg.vander": lambda L, F, a: L.linalg.vander(a[0]),
    "linalg.diagonal": lambda L, F, a: L.linalg.diagonal(a),
    "cholesky_inverse": lambda L, F, a: L.cholesky_inverse(a),
    "cholesky_solve": lambda L, F, a: L.cholesky_solve(a, a),
    "det": lambda L, F, a: L.det(a),
    "logdet": lambda L, F, a: L.logdet(a),
    "inverse": lambda L, F, a: L.inverse(a),
    "pinverse": lambda L, F, a: L.pinverse(a),
    "matrix_exp": lambda L, F, a: L.matrix_exp(a),
    "dist": lambda L, F, a: L.dist(a, a),
    "cdist": lambda L, F, a: L.cdist(a, a),
    "renorm": lambda L, F, a: L.renorm(a, 2, 0, 1.0),
    "t.det": lambda L, F, a: a.det(),
    "t.slogdet": lambda L, F, a: a.slogdet(),
    "t.inverse": lambda L, F, a: a.inverse(),
    "t.matrix_power 1": lambda L, F, a: a.matrix_power(1),
    "t.matrix_exp": lambda L, F, a: a.matrix_exp(),
    "F.normalize": lambda L, F, a: F.normalize(a),
    "F.pdist": lambda L, F, a: F.pdist(a),
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
        calls = CALLS if dtype == "bool" else {**CALLS, **INTEGER_CALLS}
        for name, fn in calls.items():
            out[f"{name}/{dtype}"] = outcome(fn, torch, a)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
