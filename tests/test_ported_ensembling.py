"""Model ensembling, ported (``examples/ported/ensembling.py``: ``stack_module_state`` and ``vmap`` over
``functional_call``, the same and different minibatches; ``--batchnorm`` models whose running statistics
come in as stacked buffers), gives torch 2.13's numbers: the stacked parameters' sizes and leafness, the
ensemble's predictions, Adam steps of the stacked parameters against each model's own, and the final
weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_ensembling_matches_pytorch = small_program_test("ensembling", *SMALL["ensembling"])
