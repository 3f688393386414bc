"""Neural tangent kernels, ported (``examples/ported/neural_tangent_kernels.py``: the Jacobian contraction by
``vmap(jacrev(...))`` and ``einsum``, and the NTK-vector products by ``vjp`` then ``jvp`` under two nested
``vmap``s), gives torch 2.13's kernels in their full, trace and diagonal forms, with parameters detached
and not (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_neural_tangent_kernels_matches_pytorch = small_program_test("neural_tangent_kernels",
                                                                 *SMALL["neural_tangent_kernels"])
