"""PyTorch's top-level nn functions of ATen's signatures, written once for both engines: each case
takes ``lib`` (``torch`` or ``minigrad_ckpt``) and its input tensors (made from NumPy seeds) and
returns the output.  ``make_torch_top_level_nn.py`` stores torch 2.13's outputs and input gradients;
``tests/test_top_level_nn_functions.py`` replays them."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(20261205)
INPUTS = {
    "x": RNG.standard_normal((2, 3, 4)),
    "w": RNG.standard_normal(4), "b": RNG.standard_normal(4),
    "c_w": RNG.standard_normal(3), "c_b": RNG.standard_normal(3),
    "mean": RNG.standard_normal(3), "var": RNG.uniform(0.5, 2.0, 3),
    "table": RNG.standard_normal((5, 3)),
}

CASES = {
    "dropout eval": lambda lib, t: lib.dropout(t["x"], 0.5, False),
    "alpha_dropout eval": lambda lib, t: lib.alpha_dropout(t["x"], 0.5, False),
    "layer_norm": lambda lib, t: lib.layer_norm(t["x"], (4,), t["w"], t["b"], 1e-5, True),
    "group_norm": lambda lib, t: lib.group_norm(t["x"], 3, t["c_w"], t["c_b"], 1e-5, True),
    "batch_norm train": lambda lib, t: lib.batch_norm(t["x"], t["c_w"], t["c_b"], None, None, True, 0.1, 1e-5, False),
    "batch_norm eval": lambda lib, t: lib.batch_norm(t["x"], t["c_w"], t["c_b"], t["mean"].detach(), t["var"].detach(),
                                                     False, 0.1, 1e-5, False),
    "instance_norm": lambda lib, t: lib.instance_norm(t["x"], t["c_w"], t["c_b"], None, None, True, 0.1, 1e-5, False),
    "embedding": lambda lib, t: lib.embedding(t["table"], lib.tensor([[0, 4], [2, 2]], device=t["table"].device)),
    "embedding padding": lambda lib, t: lib.embedding(t["table"], lib.tensor([0, 1, 1], device=t["table"].device), 1),
    "max_pool1d": lambda lib, t: lib.max_pool1d(t["x"], 2),
    "max_pool1d stride": lambda lib, t: lib.max_pool1d(t["x"], 2, 1, 1),
    "max_pool2d": lambda lib, t: lib.max_pool2d(t["x"], 2),
    "avg_pool1d": lambda lib, t: lib.avg_pool1d(t["x"], 2),
    "adaptive_max_pool1d": lambda lib, t: lib.adaptive_max_pool1d(t["x"], 3)[0],
    "adaptive_max_pool1d indices": lambda lib, t: lib.adaptive_max_pool1d(t["x"], 3)[1],
    "adaptive_avg_pool1d": lambda lib, t: lib.adaptive_avg_pool1d(t["x"], 3),
    "rms_norm": lambda lib, t: lib.rms_norm(t["x"], (4,), t["w"]),
    "constant_pad_nd": lambda lib, t: lib.constant_pad_nd(t["x"], (1, 2), 0.5),
    "fill": lambda lib, t: lib.fill(t["x"], 2.5),
    "split_with_sizes": lambda lib, t: lib.split_with_sizes(t["x"], [1, 3], 2)[1],
    "row_stack": lambda lib, t: lib.row_stack([t["w"], t["b"]]),
}
