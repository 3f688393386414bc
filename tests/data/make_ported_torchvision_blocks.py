"""Regenerate ``tests/data/ported_torchvision_blocks_reference.npz``: the PyTorch runs of
``examples/ported/torchvision_blocks.py`` (torchvision's blocks and detection losses in a small
detector), read with the rename undone, in float64, with the dense layers' bottleneck
checkpointed (torchvision's ``memory_efficient=True``) and without (``tests/test_ported_torchvision_blocks.py``
replays ``RUNS``).  The model starts from ``ported_small.start_weights`` (seed 71); stored are each
step's focal loss, GIoU loss and mean IoU, and ``ported_small.records`` of the final weights.

The checkpointed bottleneck's first BatchNorm (``norm1``) is left out of the records: PyTorch's
checkpoint re-runs it in backward and so updates its running statistics and batch count a second
time each step, where the engine's replay updates them once, as without checkpointing
(docs/from-pytorch.md; the test checks the engine's count).

    python tests/data/make_ported_torchvision_blocks.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

from ported_small_torch import write_fixture

# Float64 only: several BatchNorm biases have a true gradient of 0 (below), which AdamW moves by round-off;
# in float32 that is a step of ~lr (torch's own run moves 9% from a 1e-7 change of its input).
RUNS = {"blocks_f64": ["--double"], "blocks_f64_plain": ["--double", "--plain"]}
EXCUSED = {f"norm1.{name}": slice(None) for name in ("running_mean", "running_var", "num_batches_tracked")}
# A BatchNorm's bias that a 1x1 convolution and another BatchNorm follow (ShuffleNetV2's branches, after each
# depthwise convolution) shifts every output channel by a constant the second BatchNorm takes out: its true
# gradient is 0, and AdamW moves it by each engine's round-off (left out of the records). So is the stem's
# BatchNorm bias where its ReLU passes a channel whole: every reader of the stem's output is a BatchNorm
EXCUSED.update({"branch1.1.bias": slice(None), "branch2.4.bias": slice(None), "stem.1.bias": slice(None)})

if __name__ == "__main__":
    write_fixture("torchvision_blocks", RUNS, Path(__file__).with_name("ported_torchvision_blocks_reference.npz"),
                  seed=71, excused=EXCUSED)
