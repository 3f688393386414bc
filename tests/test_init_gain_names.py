"""``nn.init.calculate_gain`` knows every name PyTorch's table has: ``conv_transpose1d``/``2d``/``3d`` (gain 1,
as torch 2.13 gives) raised ``ValueError: unsupported nonlinearity``, and with them
``kaiming_uniform_(w, nonlinearity="conv_transpose2d")``.  The other values are torch 2.13's too."""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg

TORCH = {"linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0, "conv_transpose1d": 1.0,
         "conv_transpose2d": 1.0, "conv_transpose3d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3,
         "relu": math.sqrt(2.0), "leaky_relu": math.sqrt(2.0 / (1 + 0.01 ** 2)), "selu": 0.75}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_gain(name):
    assert mg.nn.init.calculate_gain(name) == pytest.approx(TORCH[name], rel=1e-15)


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"])
def test_kaiming_takes_the_transposed_convolutions(name):
    w = mg.empty(64, 32, 3, 3)
    mg.nn.init.kaiming_uniform_(w, nonlinearity=name)
    bound = math.sqrt(3.0 / (32 * 9))  # gain 1, fan_in = 32 * 3 * 3
    assert 0.9 * bound < float(w.abs().max()) <= bound * (1 + 1e-6)  # (the bound rounded to float32)


def test_the_linear_gains_are_pytorchs_int_one():
    # torch 2.13: calculate_gain("conv2d") is the int 1 (repr "1"), "tanh" the float 5/3
    assert all(type(mg.nn.init.calculate_gain(name)) is int for name, gain in TORCH.items() if gain == 1.0)


@pytest.mark.parametrize("slope", [True, False, "0.2", None, 0, 3, 0.2])
def test_a_leaky_slope_is_an_int_or_a_float_never_a_bool(slope):
    # torch 2.13: calculate_gain("leaky_relu", True) -> ValueError "negative_slope True not a valid number"
    # (it answered sqrt(2 / (1 + 1)) = 1.0 here); "0.2" the same error (float()'s message here)
    if isinstance(slope, (bool, str)):
        with pytest.raises(ValueError, match=f"negative_slope {slope} not a valid number"):
            mg.nn.init.calculate_gain("leaky_relu", slope)
    else:
        want = math.sqrt(2.0 / (1 + (0.01 if slope is None else slope) ** 2))
        assert mg.nn.init.calculate_gain("leaky_relu", slope) == pytest.approx(want, rel=1e-15)


def test_an_unknown_name_is_pytorchs_value_error():
    with pytest.raises(ValueError, match="^Unsupported nonlinearity gelu$"):
        mg.nn.init.calculate_gain("gelu")
