"""Regenerate ``tests/data/ported_vision_transformer_reference.npz``: the PyTorch runs of
``examples/ported/vision_transformer.py`` (a from-scratch Vision Transformer), read with the rename
undone, in float32 and float64 (``tests/test_ported_vision_transformer.py`` replays ``RUNS``).  The
model starts from ``ported_small.start_weights`` (seed 13); stored are the training losses, each
epoch's test loss, accuracy and learning rate, and ``ported_small.records`` of the final weights
(the class token and the position embedding whole, the key bias left out).

    python tests/data/make_ported_vision_transformer.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

RUNS = {"vit": [], "vit_f64": ["--double"]}
# The key projection's bias adds q . b_k to every score of a row, which softmax ignores: its true
# gradient is 0, and AdamW moves it by each engine's round-off (left out of the records).
EXCUSED = {"in_proj_bias": slice(16, 32)}

if __name__ == "__main__":
    write_fixture("vision_transformer", RUNS, Path(__file__).with_name("ported_vision_transformer_reference.npz"),
                  seed=13, whole=("cls_token", "pos_embed"), excused=EXCUSED)
