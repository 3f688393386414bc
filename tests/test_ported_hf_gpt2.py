"""Hugging Face's GPT-2, ported (``examples/ported/hf_gpt2.py``: ``Conv1D`` as ``addmm``, the causal mask
buffer and ``torch.finfo(dtype).min`` through ``torch.where``, the padding mask's ``(1.0 - mask) * finfo.min``,
``_upcast_and_reordered_attn``'s ``baddbmm`` under ``autocast(enabled=False)``, the SDPA path, ``gelu_new``,
``lm_head`` tied to ``wte``, the shifted-label loss, AdamW in two weight-decay groups under a linear-warmup
``LambdaLR`` with ``clip_grad_norm_``; greedy decoding with and without ``past_key_values``; float16
evaluation), gives torch 2.13's numbers: losses, gradient norms, learning rates, logits, attention
weights, decoded tokens and the final weights (``tests/data/make_ported_portfunc.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_portfunc import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_hf_gpt2_matches_pytorch = small_program_test("hf_gpt2", *SMALL["hf_gpt2"])
