"""``torch.linalg`` functions at extremal matrices (singular, zero columns, subnormal, huge,
empty), written once for either library: each case is ``(function of (lib, a), matrix, also_grad)``,
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

CASES = {}
for _name, _a in SINGULAR.items():
    CASES[f"lu of {_name}"] = (lambda lib, a: lib.linalg.lu(a), _a, False)
    CASES[f"lu_factor_ex of {_name}"] = (lambda lib, a: lib.linalg.lu_factor_ex(a), _a, False)
