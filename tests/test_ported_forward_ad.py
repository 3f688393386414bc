"""PyTorch's "Forward-mode Automatic Differentiation" tutorial, ported (``examples/ported/forward_ad.py``),
gives PyTorch's numbers and prints: ``tests/data/make_ported_forward_ad.py`` ran the same source with the
rename undone under torch 2.13.  It exercises ``forward_ad.dual_level``, ``make_dual`` (the tangent kept, or
copied for another layout), ``unpack_dual`` (None for a plain tensor and after the level), dual parameters
swapped into a module with ``delattr``/``setattr`` and through ``functional_call``, a custom Function's
``jvp`` with ``gradcheck(check_forward_ad=True)``, and ``mg.func.jvp`` of functions, of a
``functools.partial`` and of a module's parameters.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import log_program_test, small_program_test  # noqa: E402

RUNS = {"fwad": [], "fwad_f64": ["--double"]}  # the generator's list

test_forward_ad_tutorial_matches_pytorch = small_program_test("forward_ad", RUNS, seed=53)
test_forward_ad_tutorial_prints_what_pytorch_prints = log_program_test("forward_ad", RUNS)
