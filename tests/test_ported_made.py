"""karpathy's ``pytorch-made``, ported (``examples/ported/made.py``), gives PyTorch's numbers:
``tests/data/make_ported_made.py`` ran the same source with the rename undone under torch 2.13.
The masks come from NumPy (``update_masks``, copied into a float buffer from a transposed ``uint8``
array through ``.data.copy_``), cycled over three orderings and averaged over two at test time;
the loop switches gradients with ``set_grad_enabled(split == 'train')`` as a call and steps ``StepLR``
with the epoch.  The history holds ``made.py``'s autoregressive check (how many outputs depend only on
earlier inputs, found by backprop) and every batch's loss.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_small import small_program_test  # noqa: E402

RUNS = {"made": ["--num-masks", "3", "--samples", "2"], "made_f64": ["--num-masks", "3", "--samples", "2", "--double"],
        "made_one_mask": ["--hiddens", "24"]}  # make_ported_made.py's list
KEEP = ("net.0.mask", "net.2.mask", "net.4.mask")  # the masks stay the program's (NumPy's)

test_made_matches_pytorch = small_program_test("made", RUNS, seed=7, keep=KEEP)
