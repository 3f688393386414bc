"""PyTorch's "Chatbot Tutorial", ported (``examples/ported/chatbot.py``), gives PyTorch's numbers:
``tests/data/make_ported_chatbot.py`` ran the same source with the rename undone under torch 2.13.  It
exercises ``zip_longest`` padding into ``LongTensor`` / ``BoolTensor``, an ``Embedding`` shared by two
models, ``pack_padded_sequence`` into a two-layer bidirectional ``GRU`` and ``pad_packed_sequence``, Luong
attention (dot, general, concat with a ``Parameter(FloatTensor(n))``), ``bmm``, the masked NLL loss
(``gather``, ``masked_select``), teacher forcing and ``topk`` guesses turned into a ``LongTensor`` of 0-d
tensors, ``clip_grad_norm_``, two ``Adam`` optimizers, a checkpoint of state dicts (optimizers' too) saved and
loaded into new models, and greedy decoding (``max(dim=1)``, ``cat`` onto empty tensors).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import small_program_test  # noqa: E402

RUNS = {"chat": [], "chat_f64": ["--double"], "chat_general_f64": ["--double", "--attn", "general"],
        "chat_concat_f64": ["--double", "--attn", "concat"]}  # the generator's list

test_chatbot_matches_pytorch = small_program_test("chatbot", RUNS, seed=67)
