"""Programs of ``optim``, against torch 2.13's answers recorded by
``tests/data/make_torch_optim_programs.py`` from ``tests/data/optim_torch_programs.py`` (the test
never imports torch): Adam's refusals of tensor hyper-parameters its foreach kernels cannot take
and of betas that are not both floats or both tensors; a MultiplicativeLR stepped after a
parameter group was added; L-BFGS with a tensor lr; how optimizers print; the fused optimizers'
refusals of complex parameters and of differentiable; schedulers' arguments as given; swa_utils' list
forms over integer tensors.  Values are compared to round-off (float64:
the engine's arithmetic is not PyTorch's kernels')."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from optim_torch_programs import CASES, WORDS_OF_THEIR_OWN, lbfgs_with_tensor_lr  # noqa: E402

TORCH = json.loads((DATA / "torch_optim_programs.json").read_text())["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_is_torchs(name):
    want = TORCH[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "error" not in want:
            got = CASES[name](mg)
            if isinstance(want["value"], (str, dict)):  # printed text, counts and names: PyTorch's exactly
                assert got == want["value"]
            else:
                np.testing.assert_allclose(got, want["value"], rtol=1e-13, atol=0)
            return
        with pytest.raises(Exception) as caught:
            CASES[name](mg)
    assert type(caught.value).__name__ == want["error"]
    if name not in WORDS_OF_THEIR_OWN:  # PyTorch's words, after mg's optimizer name if any
        assert str(caught.value).endswith(want["message"])


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_lbfgs_tensor_lr_on_the_strict_devices(device):
    """The tensor lr is read once per step, an explicit read the strict devices allow; the steps
    are the CPU's float32 steps."""
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    def run(dev):
        return lbfgs_with_tensor_lr(mg, "float32", dev, line_search_fn="strong_wolfe")

    assert run(device).tobytes() == run("cpu").tobytes()
