"""LoRA fine-tuning, ported (``examples/ported/lora.py``: ``parametrize.register_parametrization`` of a
low-rank add on frozen Linear weights, ``requires_grad = False`` by name, Adam over all parameters, the
LoRA switched off and on, the merge by ``remove_parametrizations(leave_parametrized=True)``; ``--manual``: a
wrapper module with ``requires_grad_(False)``), gives torch 2.13's numbers: losses, error counts, parameter
counts, flags and the final weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_lora_matches_pytorch = small_program_test("lora", *SMALL["lora"])
