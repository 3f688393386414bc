"""Regenerate ``tests/data/ported_grad_cam_reference.npz``: the PyTorch runs of
``examples/ported/grad_cam.py`` (pytorch-grad-cam's classes on a small ResNet), read with the rename undone,
with a float32 and a float64 network, the maps float32 in both (``tests/test_ported_grad_cam.py`` replays
``RUNS``).  The network starts from ``ported_small.start_weights`` (seed 51; its BatchNorm layers keep what
they were built with); stored are the history (the training losses, three sums of each method's maps, the
confidence changes) and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_grad_cam.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"cam": [], "cam_f64": ["--dtype", "float64"]}
KEEP = ("bn1.", "layer1.0.bn", "layer2.0.bn", "layer2.0.downsample.1.")


def main() -> None:
    from ported_small_torch import write_fixture

    out = Path(__file__).with_name("ported_grad_cam_reference.npz")
    write_fixture("grad_cam", RUNS, out, seed=51, keep=KEEP)


if __name__ == "__main__":
    main()
