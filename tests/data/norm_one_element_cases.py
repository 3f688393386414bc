"""Norms of one-element slices that ``make_torch_norm_one_element.py`` records and
``tests/test_norm_one_element.py`` replays: ``name -> (call(namespace, x), values, dtype)``,
``call`` written once for torch and the engine (the same names).  A square of these entries
overflows or underflows the dtype; the norm, ``|x|``, does not."""

from __future__ import annotations

COLUMN = [[2e19], [-3.0], [1e30], [-1e-30], [0.0]]

CASES = {
    "vector_norm": (lambda m, x: m.linalg.vector_norm(x), [2e19], "float32"),
    "vector_norm_tiny": (lambda m, x: m.linalg.vector_norm(x), [-1e-30], "float32"),
    "vector_norm_0d": (lambda m, x: m.linalg.vector_norm(x), -2e19, "float32"),
    "vector_norm_dim": (lambda m, x: m.linalg.vector_norm(x, dim=1), COLUMN, "float32"),
    "vector_norm_keepdim": (lambda m, x: m.linalg.vector_norm(x, dim=-1, keepdim=True), COLUMN, "float32"),
    "vector_norm_p3": (lambda m, x: m.linalg.vector_norm(x, 3, dim=1), COLUMN, "float32"),
    "vector_norm_p_half": (lambda m, x: m.linalg.vector_norm(x, 0.5, dim=1), COLUMN, "float32"),
    "vector_norm_float64": (lambda m, x: m.linalg.vector_norm(x, dim=1), [[1e200], [-1e-200]], "float64"),
    "tensor_norm": (lambda m, x: x.norm(dim=1), COLUMN, "float32"),
    "norm": (lambda m, x: m.norm(x), [[2e19]], "float32"),
    "linalg_norm": (lambda m, x: m.linalg.norm(x, dim=1), COLUMN, "float32"),
    "matrix_norm_fro": (lambda m, x: m.linalg.matrix_norm(x), [[[2e19]], [[1e-30]]], "float32"),
    "normalize": (lambda m, x: m.nn.functional.normalize(x, dim=1), COLUMN, "float32"),
}
