"""The tutorial "Jacobians, Hessians, hvp, vhp, and more", ported (``examples/ported/jacobians_hessians.py``),
gives torch 2.13's numbers: Jacobians by ``autograd.grad`` rows, ``vmap`` of ``vjp``, ``jacrev``/``jacfwd``
(``argnums``), Hessians three ways, batch Jacobians and Hessians, hvp by forward-over-reverse and
reverse-over-reverse, ``autograd.functional``, ``linearize``, and a Hessian's gradient in the weights, each
with its ``requires_grad`` (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_jacobians_hessians_matches_pytorch = small_program_test("jacobians_hessians", *SMALL["jacobians_hessians"])
