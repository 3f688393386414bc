"""A warning that an ``nn.functional`` function gives points at the user's line also when a layer's
``forward`` called the function (``nn.Softmax()(x)``, ``nn.MSELoss()(out, target)``): the engine's
own frames between are skipped, as ``user_frame.stacklevel_outside_the_engine`` counts them.  A fixed
``stacklevel`` pointed into ``nn/function_layer.py`` or ``nn/functional/loss.py``; found porting
eriklindernoren's PyTorch-GAN (acgan and infogan: ``nn.Softmax()`` in the auxiliary head).
The messages are PyTorch 2.13's."""

import warnings

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

X2 = mg.ones(2, 3)
CASES = {
    "nn.Softmax()": (lambda: mg.nn.Softmax()(X2), "Implicit dimension choice for softmax has been deprecated"),
    "nn.LogSoftmax()": (lambda: mg.nn.LogSoftmax()(X2), "Implicit dimension choice for log_softmax"),
    "nn.Softmin()": (lambda: mg.nn.Softmin()(X2), "Implicit dimension choice for softmin"),
    "F.softmax": (lambda: F.softmax(X2), "Implicit dimension choice for softmax"),
    "nn.Dropout2d on 2-D": (lambda: mg.nn.Dropout2d(0.5)(X2), "dropout2d: Received a 2-D input to dropout2d"),
    "nn.MSELoss shapes": (lambda: mg.nn.MSELoss()(mg.ones(2, 1), mg.ones(2)),
                          "Using a target size (2,) that is different to the input size (2, 1)"),
    "F.mse_loss shapes": (lambda: F.mse_loss(mg.ones(2, 1), mg.ones(2)), "Using a target size (2,)"),
    "nn.L1Loss shapes": (lambda: mg.nn.L1Loss()(mg.ones(2, 1), mg.ones(2)), "Using a target size (2,)"),
    "F.upsample": (lambda: F.upsample(mg.ones(1, 1, 2, 2), scale_factor=2), "`nn.functional.upsample` is deprecated"),
    "nn.InstanceNorm2d channels": (lambda: mg.nn.InstanceNorm2d(4)(mg.ones(2, 3, 2, 2)),
                                   "input's size at dim=1 does not match num_features"),
    "nn.InstanceNorm1d in a Sequential": (lambda: mg.nn.Sequential(mg.nn.InstanceNorm1d(4))(mg.ones(2, 3, 5)),
                                          "input's size at dim=1 does not match num_features"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_warning_points_at_the_users_line(name):
    call, message = CASES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert [w for w in caught if message in str(w.message)], [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in caught), [f"{w.filename}:{w.lineno}" for w in caught]
