"""Regenerate ``tests/data/ported_show_attend_tell_reference.npz``: the PyTorch runs of
``examples/ported/show_attend_tell.py`` (sgrvinod's image-captioning tutorial: Show, Attend and Tell),
read with the rename undone, in float64 with the encoder frozen and fine-tuned
(``tests/test_ported_show_attend_tell.py`` replays ``RUNS``).  Both sides start from
``ported_small.start_weights`` (seed 91); stored are the history (each batch's loss and top-5 accuracy
and their running means, the validation losses, accuracies and greedy words, two beam searches' words
and scores) and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_show_attend_tell.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"show_attend_tell_f64": ["--double", "--dropout", "0"],
        "show_attend_tell_finetune_f64": ["--double", "--dropout", "0", "--fine-tune-encoder"]}
SEED = 91
# the encoder's BatchNorm statistics keep what the program built (ones and zeros), not drawn weights
# the attention score's bias: a softmax ignores it, so its true gradient is 0 and Adam moves it by
# round-off.  (In float32 the rest of the attention network is nearly as fragile: its scores barely
# differ between pixels at the start, and PyTorch's own float32 run moves its weights by 1e-2 from a
# one-ulp change of its start -- hence two float64 runs.)
EXCUSED = {"full_att.bias": slice(None)}
KEEP = tuple(f"resnet.{m}.running_" for m in ("1", "4.1", "5.1", "6.1", "7.1"))

if __name__ == "__main__":
    from ported_small_torch import write_fixture  # torch: imported only to regenerate

    write_fixture("show_attend_tell", RUNS, Path(__file__).with_name("ported_show_attend_tell_reference.npz"),
                  seed=SEED, keep=KEEP, excused=EXCUSED)
