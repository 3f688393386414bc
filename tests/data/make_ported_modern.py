"""Regenerate the fixtures of the modern small programs of ``examples/ported/`` (``fno``, ``s4d``,
``moe_block``, ``clip_contrastive``, ``resnet_amp``, ``llama2c``), each into
``tests/data/ported_<program>_reference.npz``: the program run as torch from its ported source with the
rename undone, once a command line below, through ``ported_small_torch.write_fixture`` (NumPy makes their
data; the weights start from ``ported_small.start_weights`` of the seed below, complex weights included).
``tests/test_ported_<program>.py`` replays them.

    python tests/data/make_ported_modern.py [program ...]        # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

#: program: ({run: argv}, seed of the start weights, names kept as the program built them, names stored whole)
SMALL = {
    "fno": ({"fno_f64": ["--double"], "fno": []}, 71, (), ("fc2.",)),
    "s4d": ({"s4d_f64": ["--double"], "s4d_prenorm_f64": ["--double", "--prenorm"], "s4d": []}, 73, (),
            ("decoder.",)),
    "moe_block": ({"moe_f64": ["--double"], "moe_dense_f64": ["--double", "--dense"], "moe": []}, 79, (),
                  ("block.moe.router.",)),
    # (float64 alone: AdamW's first step moves each weight by about lr * sign(grad), so in float32 the weights
    # whose gradient is round-off -- the attention's key bias, whose true gradient is 0 -- move by +-lr at random)
    "clip_contrastive": ({"clip_f64": ["--double"], "clip_forward_f64": ["--double", "--clamp", "forward"]}, 83,
                         ("logit_scale", "visual.bn1.running"), ("logit_scale", "visual.bn1.")),
    "resnet_amp": ({"resnet_f64": ["--double"], "resnet": []}, 89, (), ("fc.", "bn1.")),
    # (float32 alone: RMSNorm, the rotary embedding and the manual path's softmax compute in float32 by design)
    "llama2c": ({"llama2c": [], "llama2c_manual": ["--manual-attention"]}, 97, (), ("norm.",)),
}


def main(programs: list[str]) -> None:
    sys.path.insert(0, str(HERE))
    from ported_small_torch import write_fixture

    for program in programs or list(SMALL):
        runs, seed, keep, whole = SMALL[program]
        write_fixture(program, runs, HERE / f"ported_{program}_reference.npz", seed=seed, keep=keep, whole=whole)


if __name__ == "__main__":
    main(sys.argv[1:])
