"""Regenerate ``tests/data/ported_fuse_conv_bn_reference.npz``: the PyTorch runs of
``examples/ported/fuse_conv_bn.py`` (the "Fusing Convolution and Batch Norm using Custom Function"
tutorial), read with the rename undone, in float32 and float64 (``tests/test_ported_fuse_conv_bn.py``
replays ``RUNS``).  The fused and the unfused networks start from ``ported_small.start_weights``
(seeds 31 and 32); stored are the three ``gradcheck`` answers, each network's training losses, test loss
and count of correct answers, and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_fuse_conv_bn.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"fuse": [], "fuse_f64": ["--double"]}


def main() -> None:
    from ported_small_torch import write_fixture

    write_fixture("fuse_conv_bn", RUNS, Path(__file__).with_name("ported_fuse_conv_bn_reference.npz"), seed=31)


if __name__ == "__main__":
    main()
