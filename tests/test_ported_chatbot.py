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

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_chatbot_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_small import check_run  # noqa: E402

RUNS = {"chat": [], "chat_f64": ["--double"], "chat_general_f64": ["--double", "--attn", "general"],
        "chat_concat_f64": ["--double", "--attn", "concat"]}  # the generator's list


@pytest.mark.parametrize("run", list(RUNS))
def test_chatbot_matches_pytorch(run):
    argv = RUNS[run]
    check_run("chatbot", argv, REF, run, seed=67, float64="--double" in argv)
