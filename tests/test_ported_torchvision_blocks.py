"""torchvision's building blocks and detection losses, ported (``examples/ported/torchvision_blocks.py``:
torchvision's own class and function text after the rename), give PyTorch's numbers:
``tests/data/make_ported_torchvision_blocks.py`` ran the same source with the rename undone under torch
2.13.  It exercises ``torch.fx.wrap`` at a module's top level, DenseNet's memory-efficient dense layer
(``torch.utils.checkpoint(closure, *inputs, use_reentrant=False)`` over ``cat`` -> BatchNorm -> ReLU(inplace)
-> 1x1 conv, taken only where an input requires grad), ShuffleNetV2's ``channel_shuffle`` (``view`` ->
``transpose`` -> ``contiguous`` -> ``view``) and ``chunk``, ``SqueezeExcitation`` with ``Hardsigmoid``,
``Conv2dNormActivation``'s padding and bias rules, ``_make_divisible``, ``sigmoid_focal_loss``,
``generalized_box_iou`` and ``box_iou`` (``torch.max``/``torch.min`` of two broadcast tensors, ``clamp(min=0)``,
``unbind``), ``one_hot`` and ``AdamW``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REF = np.load(HERE / "data" / "ported_torchvision_blocks_reference.npz")
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program  # noqa: E402
from ported_small import check_run  # noqa: E402

RUNS = {"blocks_f64": (["--double"], True), "blocks_f64_plain": (["--double", "--plain"], True)}  # the generator's
# PyTorch's checkpoint updates the checkpointed BatchNorm's statistics twice a step (left out of the records)
EXCUSED = {f"norm1.{name}": slice(None) for name in ("running_mean", "running_var", "num_batches_tracked")}
# A BatchNorm's bias that a 1x1 convolution and another BatchNorm follow (ShuffleNetV2's branches, after each
# depthwise convolution) shifts every output channel by a constant the second BatchNorm takes out: its true
# gradient is 0, and AdamW moves it by each engine's round-off (left out of the records). So is the stem's
# BatchNorm bias where its ReLU passes a channel whole: every reader of the stem's output is a BatchNorm
EXCUSED.update({"branch1.1.bias": slice(None), "branch2.4.bias": slice(None), "stem.1.bias": slice(None)})


@pytest.mark.parametrize("run", list(RUNS))
def test_torchvision_blocks_match_pytorch(run):
    argv, float64 = RUNS[run]
    check_run("torchvision_blocks", argv, REF, run, seed=71, float64=float64, excused=EXCUSED)


def test_checkpointed_and_plain_dense_layers_train_alike():
    # the same losses with and without the checkpoint (PyTorch's too: its two float64 runs agree)
    np.testing.assert_allclose(REF["blocks_f64|history"], REF["blocks_f64_plain|history"], rtol=1e-12)
    program = load_program("torchvision_blocks")
    for argv in (["--double", "--steps", "2"], ["--double", "--steps", "2", "--plain"]):
        _, model = program.main(argv)
        counts = {name: int(value.item()) for name, value in model.state_dict().items()
                  if name.endswith("num_batches_tracked")}
        assert set(counts.values()) == {2}, counts  # once a step, the checkpointed norm1 too
