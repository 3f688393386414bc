"""llama2.c, ported (``examples/ported/llama2c.py``: RMSNorm computed in float32 and cast back, rotary
embeddings as cos/sin tables applied through ``unbind``/``stack``/``flatten``, grouped-query attention by
``repeat_kv``'s ``expand``/``reshape``, fused or manual causal attention (a ``triu`` mask of ``-inf``),
SwiGLU, the tied embedding; train.py's loop with gradient accumulation, a disabled ``GradScaler``,
``clip_grad_norm_`` and the warmup-cosine schedule; a checkpoint of the model's and optimizer's state
dicts saved, loaded and trained on; greedy ``generate``; export.py's ``struct.pack`` fp32 files), gives
torch 2.13's numbers: the losses, learning rates and gradient norms, the estimated losses, the resumed
steps, the tokens, sums of the exported files and the final weights (``tests/data/make_ported_modern.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_llama2c_matches_pytorch = small_program_test("llama2c", *SMALL["llama2c"])
