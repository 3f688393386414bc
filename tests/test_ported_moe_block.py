"""A mixture-of-experts transformer block, ported (``examples/ported/moe_block.py``: ``topk`` of a router's
logits, softmax over the selected ones, tokens dispatched by ``where`` and gathered back by ``index_add_``
-- or, ``--dense``, mixed by gates from ``scatter`` --, the Switch load-balancing loss from ``scatter_`` of
ones, ``nn.MultiheadAttention`` with a ``key_padding_mask``, ``ignore_index`` over the pads; AdamW), gives
torch 2.13's numbers: each step's loss, auxiliary loss, tokens per expert, sums of each gradient and the
final weights (``tests/data/make_ported_modern.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_moe_block_matches_pytorch = small_program_test("moe_block", *SMALL["moe_block"])
