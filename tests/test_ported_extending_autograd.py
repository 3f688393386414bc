"""PyTorch's "Extending torch.autograd" notes, its "Extending torch.func with autograd.Function" notes and the
"Double Backward with Custom Functions" tutorial, ported (``examples/ported/extending_autograd.py``), give
PyTorch's numbers and prints: ``tests/data/make_ported_extending_autograd.py`` ran the same source with the
rename undone under torch 2.13.  It exercises ``autograd.Function`` with ``forward``/``setup_context`` apart
and together, ``needs_input_grad``, a non-tensor argument, intermediates returned as outputs for double
backward, intermediates kept on ``ctx`` (``gradgradcheck`` fails, as it should), a backward that is itself a
Function, ``mark_dirty``, ``set_materialize_grads``, ``once_differentiable``, ``mark_non_differentiable``,
NumPy inside ``forward``, ``vmap`` staticmethods, ``generate_vmap_rule``, ``save_for_forward`` with ``jvp``,
under ``mg.func.grad``, ``vmap``, ``jvp``, ``jacrev`` and forward AD, and a network of the notes' ``Linear``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import log_program_test, small_program_test  # noqa: E402

RUNS = {"extending": [], "extending_f64": ["--double"]}  # the generator's list

test_extending_autograd_matches_pytorch = small_program_test("extending_autograd", RUNS, seed=41)
test_extending_autograd_prints_what_pytorch_prints = log_program_test("extending_autograd", RUNS)
