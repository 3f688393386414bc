"""Regenerate ``tests/data/ported_<program>_reference.npz`` for the generative-model ports of
``examples/ported/`` (``ddpm``, ``realnvp``, ``pixelcnn``, ``vqvae``, ``wgan_gp``, ``glow``,
``pixelcnn_pp``, ``ncsn``, ``munit``, ``stable_diffusion``): each program run as torch from its ported
source with the rename undone, as ``make_ported_reference.py`` runs its ``RUN_AS_TORCH`` programs, once a
command line below (``ported_record.py``), into the program's own fixture; ``tests/test_ported_<program>.py``
replays it.

    python tests/data/make_ported_generative.py [program ...]        # needs torch; the tests do not

Recorded besides the module functions' draws: ``Uniform``'s ``torch.rand`` (realnvp's logistic base),
``MultivariateNormal``'s standard normals (drawn by ``torch.randn`` for the recording), ``rand_like``
(glow's dequantization) and the ``Tensor.uniform_`` fills after the models are built (pixelcnn_pp's
sampling).  Two engines' dropout masks differ, so pixelcnn_pp runs with ``--dropout 0``.  Of the final
weights only those of the runs named in ``final_weights`` are kept (fixtures under ~200 KB).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ported_record import record  # noqa: E402

PROGRAMS = {  # program: ({run name: argv}, runs whose final weights are kept)
    "ddpm": ({"ddpm_f64": ["--double"],
              "ddpm_transposed_cosine_l2_f64": ["--double", "--transposed-up", "--schedule", "cosine",
                                                "--loss-type", "l2"],
              "ddpm_l1": ["--loss-type", "l1"]}, ("ddpm_f64",)),
    "realnvp": ({"realnvp_f64": ["--double"], "realnvp": [],
                 "affine_half_f64": ["--model", "affine-half", "--double"],
                 "affine_half": ["--model", "affine-half"]}, ("realnvp_f64", "affine_half_f64")),
    "pixelcnn": ({"pixelcnn_256": [], "pixelcnn_4": ["--levels", "4"]}, ("pixelcnn_256", "pixelcnn_4")),
    "vqvae": ({"vqvae_f64": ["--double"], "vqvae": [], "vqvae_ema_f64": ["--decay", "0.99", "--double"],
               "vqvae_ema": ["--decay", "0.99"]}, ("vqvae_f64", "vqvae_ema_f64")),
    "wgan_gp": ({"wgan_gp": [], "wgan_gp_conv": ["--conv"]}, ("wgan_gp", "wgan_gp_conv")),
    "glow": ({"glow": [], "glow_affine": ["--affine"], "glow_affine_no_lu": ["--affine", "--no_lu"]},
             ("glow_affine",)),
    "pixelcnn_pp": ({"pixelcnn_pp": ["--dropout", "0"]}, ("pixelcnn_pp",)),
    "munit": ({"munit_f64": ["--double"], "munit": ["--n_epochs", "1", "--decay_epoch", "0"]}, ()),
    "ncsn": ({"ncsn_anneal_dsm_f64": ["--double"], "ncsn_anneal_dsm": [], "ncsn_dsm_f64": ["--loss", "dsm", "--double"],
              "ncsn_ssm_f64": ["--loss", "ssm", "--double"], "ncsn_ssm_vr_f64": ["--loss", "ssm_vr", "--double"],
              "ncsn_ssm_vr": ["--loss", "ssm_vr"]},
             ("ncsn_anneal_dsm_f64", "ncsn_anneal_dsm", "ncsn_dsm_f64", "ncsn_ssm_f64", "ncsn_ssm_vr_f64",
              "ncsn_ssm_vr")),
    # inference only: the weights end as they start, so none are kept
    "stable_diffusion": ({"sd_k_lms_f64": ["--double"], "sd_k_lms": [],
                          "sd_k_euler_f64": ["--sampler", "k_euler", "--double"],
                          "sd_k_euler_ancestral_f64": ["--sampler", "k_euler_ancestral", "--double"],
                          "sd_img2img_k_lms_f64": ["--img2img", "--double"],
                          "sd_no_cfg_k_euler_f64": ["--no-cfg", "--sampler", "k_euler", "--double"]}, ()),
}

if __name__ == "__main__":
    for program in sys.argv[1:] or PROGRAMS:
        runs, final_weights = PROGRAMS[program]
        record(program, runs, HERE / f"ported_{program}_reference.npz", final_weights=final_weights)
