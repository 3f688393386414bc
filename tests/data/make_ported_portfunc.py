"""Regenerate the fixtures of the torch.func tutorials and seam-heavy programs of ``examples/ported/``
(``per_sample_grads``, ``ensembling``, ``neural_tangent_kernels``, ``jacobians_hessians``, ``lora``,
``unet``, ``yolo_v1``, ``hf_gpt2``, ``sam``, ``mixup``),
each into ``tests/data/ported_<program>_reference.npz``: the program run as torch
from its ported source with the rename undone, once a command line below.  ``mixup`` goes through
``ported_record.record`` (its ``torch.randperm`` draws are recorded for the test to replay; the weights
start from ``ported_init.start_weights``); the others through ``ported_small_torch.write_fixture`` (they
draw nothing from torch's generator: NumPy makes their data; the weights start from
``ported_small.start_weights`` of ``SEEDS``).  ``tests/test_ported_<program>.py`` replays them.

    python tests/data/make_ported_portfunc.py [program ...]        # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

#: program: ({run: argv}, seed of the start weights, names kept as the program built them, names stored whole
#: [, names left out: ``ported_small.records``' ``excused``])
SMALL = {
    "per_sample_grads": ({"psg_f64": ["--double"], "psg": []}, 41, (), ("fc2.",)),
    "ensembling": ({"ens_f64": ["--double"], "ens": [], "ens_bn_f64": ["--double", "--batchnorm"]}, 43,
                   ("bn.running",), ("fc3.",)),
    "neural_tangent_kernels": ({"ntk_f64": ["--double"], "ntk": []}, 47, (), ()),
    "jacobians_hessians": ({"jac_f64": ["--double"], "jac": []}, 53, (), ("weight", "bias")),
    "lora": ({"lora_f64": ["--double"], "lora": [], "lora_manual_f64": ["--double", "--manual"]}, 59, (),
             ("linear3.", "lora")),
    "unet": ({"unet_f64": ["--double"], "unet_bilinear_f64": ["--double", "--bilinear"], "unet": []}, 61,
             ("zzz",), ("outc.",)),
    # (the darknet's BatchNorm shifts are left out: all but the last feed a LeakyReLU, then a convolution and
    # BatchNorm that take a shift of a channel almost wholly away, so their gradients are round-off that Adam
    # moves by whole steps; the last, whose gradient is not, is left out with them by the one name)
    "yolo_v1": ({"yolo_f64": ["--double"], "yolo": []}, 67, (), ("fcs.4.bias",),
                {"batchnorm.bias": slice(None)}),
}
# (lm_head.weight is wte.weight, tied: the start is wte's)
SMALL["hf_gpt2"] = ({"gpt2_f64": ["--double"], "gpt2_upcast": ["--upcast"], "gpt2_sdpa": ["--attn", "sdpa"]}, 71,
                    ("lm_head.",), ("transformer.ln_f.",))
# (the mask decoder's key biases are left out: softmax takes their gradient away, so AdamW moves them by
# round-off alone)
SMALL["sam"] = ({"sam": []}, 73, (), ("mask_decoder.iou_prediction_head.",), {"k_proj.bias": slice(None)})
RECORDED = {"mixup": ({"mixup_f64": ["--double"], "mixup": [], "cutmix_f64": ["--double", "--cutmix"],
                       "soft_f64": ["--double", "--soft"]}, ("mixup_f64", "cutmix_f64", "soft_f64"))}


def main(programs: list[str]) -> None:
    sys.path.insert(0, str(HERE))
    from ported_record import record
    from ported_small_torch import write_fixture

    for program in programs or [*SMALL, *RECORDED]:
        out = HERE / f"ported_{program}_reference.npz"
        if program in RECORDED:
            runs, final = RECORDED[program]
            record(program, runs, out, final_weights=final)
        else:
            runs, seed, keep, whole, *excused = SMALL[program]
            write_fixture(program, runs, out, seed=seed, keep=keep, whole=whole, excused=(excused or [None])[0])


if __name__ == "__main__":
    main(sys.argv[1:])
