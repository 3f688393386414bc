"""Per-sample gradients, ported (``examples/ported/per_sample_grads.py``, the tutorial's loop of
``autograd.grad`` against ``vmap(grad(compute_loss), in_dims=(None, None, 0, 0))`` over ``functional_call``
with ``(params, buffers)``; ``grad_and_value(has_aux=True)`` and DP-SGD's clipped steps), gives torch 2.13's
numbers: the losses, the per-sample gradients' sums, norms, dtypes and ``requires_grad``, the probabilities
the aux carries, and the final weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_per_sample_grads_matches_pytorch = small_program_test("per_sample_grads", *SMALL["per_sample_grads"])
