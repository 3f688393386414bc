"""A small ResNet trained the modern way, ported (``examples/ported/resnet_amp.py``: BasicBlocks with
BatchNorm2d, the model and each batch in ``channels_last``, ``autocast`` and ``amp.GradScaler("cpu")`` with
``unscale_`` before ``clip_grad_norm_``, SGD with Nesterov momentum and weight decay under OneCycleLR, and
model, optimizer, scheduler and scaler saved by ``save`` into a ``BytesIO`` mid-run, loaded into fresh
objects and continued), gives torch 2.13's numbers -- each step's loss, lr, momentum, loss scale, gradient
norm and gradient sums, of the unbroken and the resumed run, and the final weights of both -- and the
resumed run is the unbroken one bitwise (``tests/data/make_ported_modern.py``; the ``--amp`` run, where
PyTorch computes in bfloat16, is not compared: autocast cannot lower precision here, see
docs/from-pytorch.md)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_modern import SMALL  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_resnet_amp_matches_pytorch = small_program_test("resnet_amp", *SMALL["resnet_amp"])


def test_resnet_amp_under_autocast_is_the_float32_run_with_a_warning(monkeypatch):
    import warnings

    import pytest
    from ported_replay import load_program

    import minigrad_ckpt as mg

    monkeypatch.setattr(mg.autocast, "_warned", False)  # (the warning comes once a process)
    program = load_program("resnet_amp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain, _ = program.main(["--steps", "2", "--resume-at", "1"])
    with pytest.warns(UserWarning, match="autocast"):
        under_autocast, _ = program.main(["--steps", "2", "--resume-at", "1", "--amp"])
    assert under_autocast == plain and plain[-3:] == [1.0, 1.0, 1.0]
