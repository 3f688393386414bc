"""``torch.linalg`` functions at extremal matrices (singular, zero columns, subnormal, huge,
empty), written once for either library: each case is ``(function of (lib, a), matrix, also_grad, dtypes)``,
where ``lib`` is ``torch`` or ``minigrad_ckpt`` and ``function`` returns a tensor or a tuple of
them.  ``make_torch_linalg_extremes.py`` records PyTorch's outputs (and, where ``also_grad``, the
gradient of ``sum_i (i + 1.5) * sum(output_i)`` over the floating outputs);
``tests/test_linalg_extremes.py`` asks ``mg.linalg`` for the same.
"""

from __future__ import annotations

ZERO = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
ZERO_FIRST_COLUMN = [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]]
RANK_TWO = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]  # U[2, 2] = 0 after pivoting
ZERO_WIDE = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
ZERO_TALL = [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
NILPOTENT = [[0.0, 1.0], [0.0, 0.0]]

SINGULAR = {"zero": ZERO, "zero first column": ZERO_FIRST_COLUMN, "rank two": RANK_TWO, "zero wide": ZERO_WIDE,
            "zero tall": ZERO_TALL, "nilpotent": NILPOTENT, "batch": [ZERO, ZERO_FIRST_COLUMN, RANK_TWO]}

BOTH = ("float64", "float32")
CASES = {}
for _name, _a in SINGULAR.items():
    CASES[f"lu of {_name}"] = (lambda lib, a: lib.linalg.lu(a), _a, False, BOTH)
    CASES[f"lu_factor_ex of {_name}"] = (lambda lib, a: lib.linalg.lu_factor_ex(a), _a, False, BOTH)

# Singular values whose squares overflow (float64 from 1.3e154, float32 from 1.8e19), and a
# symmetric matrix of subnormals (its eigenvalue gaps overflow 1 / gap): the gradients of the
# values alone are finite (U V^T, V V^T)
_A = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.5], [-1.0, 2.5, 1.25]]
_S = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.25], [0.5, -0.25, 2.0]]
_SCALES = {"float64": (1e300, 1e-310), "float32": (1e30, 1e-40)}
_SPECTRAL = {
    "svdvals": lambda lib, a: lib.linalg.svdvals(a),
    "svd's S": lambda lib, a: lib.linalg.svd(a, full_matrices=False)[1],
    "matrix_norm 2": lambda lib, a: lib.linalg.matrix_norm(a, 2),
    "matrix_norm -2": lambda lib, a: lib.linalg.matrix_norm(a, -2),
    "matrix_norm nuc": lambda lib, a: lib.linalg.matrix_norm(a, "nuc"),
}
_EIGEN = {
    "eigvalsh": lambda lib, a: lib.linalg.eigvalsh(a),
    "eigh's values": lambda lib, a: lib.linalg.eigh(a)[0],
}
for _dt, (_huge, _tiny) in _SCALES.items():
    for _name, _fn in _SPECTRAL.items():
        CASES[f"{_name} of huge ({_dt})"] = (_fn, [[_huge * x for x in row] for row in _A], True, (_dt,))
    for _name, _fn in _EIGEN.items():
        CASES[f"{_name} of subnormal ({_dt})"] = (_fn, [[_tiny * x for x in row] for row in _S], True, (_dt,))

# stacks of empty matrices: every _ex function answers (the failure count was a reshape by -1 of
# an empty stack); the values are [] and each case reshapes them to its stack
_EMPTY = {"0x0": (0, 0), "2 of 0x0": (2, 0, 0), "0 of 2x2": (0, 2, 2)}
_EX = {
    "cholesky_ex": lambda lib, a: lib.linalg.cholesky_ex(a),
    "inv_ex": lambda lib, a: lib.linalg.inv_ex(a),
    "lu_factor_ex": lambda lib, a: lib.linalg.lu_factor_ex(a),
    "ldl_factor_ex": lambda lib, a: lib.linalg.ldl_factor_ex(a),
    "solve_ex": lambda lib, a: lib.linalg.solve_ex(a, a),
}
for _name, _fn in _EX.items():
    for _label, _shape in _EMPTY.items():
        CASES[f"{_name} of {_label}"] = (lambda lib, a, f=_fn, s=_shape: f(lib, a.reshape(s)), [], False, BOTH)

# cond through the inverse of a singular matrix is inf (PyTorch fills the failed inverse with inf
# and a NaN product with inf); of an empty matrix, any shape, 0
_COND_SINGULAR = {"rank two": RANK_TWO, "zero": ZERO, "nilpotent": NILPOTENT,
                  "batch": [[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]]}
for _label, _a in _COND_SINGULAR.items():
    for _p in (1, -1, float("inf"), float("-inf"), "fro"):
        CASES[f"cond {_p} of {_label}"] = (lambda lib, a, p=_p: lib.linalg.cond(a, p), _a, False, BOTH)
for _label, _shape in {"3x0": (3, 0), "0x3": (0, 3), "2 of 3x0": (2, 3, 0), "0x0": (0, 0)}.items():
    for _p in (None, 2, -2, 1, float("inf")):
        CASES[f"cond {_p} of {_label}"] = (lambda lib, a, p=_p, s=_shape: lib.linalg.cond(a.reshape(s), p), [], False,
                                          BOTH)

# norms of empty vectors and matrices: 0 where the norm has an identity (sums, and the largest of no
# row or column sums), PyTorch's RuntimeError for the max and the negative powers of a vector
for _label, _shape in {"0": (0,), "3x0": (3, 0), "0x3": (0, 3), "2 of 0x3": (2, 0, 3)}.items():
    for _p in (float("inf"), float("-inf"), -1, -0.5, 0, 1, 2):
        CASES[f"vector_norm {_p} of {_label}"] = (
            lambda lib, a, p=_p, s=_shape: lib.linalg.vector_norm(a.reshape(s), p), [], False, BOTH)
    if len(_shape) > 1:
        for _p in (1, float("inf"), "fro", "nuc", 2):
            CASES[f"matrix_norm {_p} of {_label}"] = (
                lambda lib, a, p=_p, s=_shape: lib.linalg.matrix_norm(a.reshape(s), p), [], False, BOTH)

# slogdet of matrices with NaN (and of float32 overflow to inf): PyTorch's sign is 0 where
# log|det| is NaN (sign(NaN) = 0 on U's diagonal)
_NAN = float("nan")
_NAN_MATRICES = {"NaN diagonal": [[_NAN, 1.0], [1.0, _NAN]], "one NaN": [[1.0, _NAN], [0.0, 1.0]], "1x1 NaN": [[_NAN]],
                 "inf and -inf": [[float("inf"), float("-inf")], [1.0, 1.0]],
                 "batch": [[[2.0, 1.0], [1.0, 3.0]], [[_NAN, 0.0], [0.0, 1.0]]]}
for _label, _a in _NAN_MATRICES.items():
    CASES[f"slogdet of {_label}"] = (lambda lib, a: lib.linalg.slogdet(a), _a, False, BOTH)

# cholesky of a matrix with NaN: LAPACK's potrf stops at the NaN pivot (PyTorch's LinAlgError),
# NumPy's goes on (a NaN factor)
for _label, _a in _NAN_MATRICES.items():
    if _label != "inf and -inf":
        CASES[f"cholesky of {_label}"] = (lambda lib, a: lib.linalg.cholesky(a), _a, False, BOTH)
CASES["cholesky of a NaN below the diagonal"] = (lambda lib, a: lib.linalg.cholesky(a), [[4.0, _NAN], [_NAN, 4.0]],
                                                 False, BOTH)
