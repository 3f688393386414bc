"""Where PyTorch takes an ``int`` (``linspace``'s and ``logspace``'s ``steps``, ``one_hot``'s
``num_classes``), a zero-dim integer tensor of any device is that int, and a float is refused.

These arguments went to the array library as they came: a device tensor there is converted
implicitly, which a GPU tensor refuses (the strict stand-in device raised), and a float was taken
(``linspace(0, 1, 4.0)``, ``one_hot(t, 3.0)``) where PyTorch raises its TypeError.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")
from minigrad_ckpt.nn import functional as F

DEVICES = ["cpu", "strict", "strict-f32"]


@pytest.mark.parametrize("device", DEVICES)
def test_a_zero_d_integer_tensor_of_any_device_is_the_int(device):
    four = mg.tensor(4, device=device)
    for made, want in [(mg.linspace(0, 1, four, device=device), mg.linspace(0, 1, 4)),
                       (mg.linspace(0, 1, steps=four, device=device), mg.linspace(0, 1, 4)),
                       (mg.logspace(0, 1, four, device=device), mg.logspace(0, 1, 4)),
                       (F.one_hot(mg.tensor([1, 0], device=device), four), F.one_hot(mg.tensor([1, 0]), 4))]:
        assert str(made.device).split(":")[0] == device and made.dtype == want.dtype
        np.testing.assert_array_equal(made.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("value", [4.0, True, "float tensor", "1-d tensor", "bool tensor"])
def test_what_is_not_an_int_is_refused_as_pytorch_refuses_it(device, value):
    value = {"float tensor": mg.tensor(4.0, device=device), "1-d tensor": mg.tensor([4], device=device),
             "bool tensor": mg.tensor(True, device=device)}.get(value, value)
    for call, words in [(lambda: mg.linspace(0, 1, value, device=device), "linspace(): argument 'steps'"),
                        (lambda: mg.logspace(0, 1, value, device=device), "logspace(): argument 'steps'"),
                        (lambda: F.one_hot(mg.tensor([1], device=device), value), "one_hot(): argument 'num_classes'")]:
        with pytest.raises(TypeError, match=re.escape(words)):
            call()


def test_negative_linspace_steps_are_pytorchs_runtime_error():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mg.linspace(0, 1, -1)
