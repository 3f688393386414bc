"""The methods whose second operand PyTorch's signature types ``Tensor`` alone refuse a Python number,
a NumPy scalar, a list or a tuple there, as torch 2.13 does ("maximum(): argument 'other' (position 1)
must be Tensor, not int"): ``x.maximum(0)``, ``x.atan2(1.0)``, ``mask.logical_and(True)`` and their
in-place twins answered NumPy's broadcast of the number, so a port relying on it would not run under
PyTorch.  A 0-d tensor is the PyTorch spelling and still answers; ``mg.maximum(x, 0)``, NumPy's
function, is unchanged.  Found by the dtype-semantics red team (every binary method with Python
numbers as the second operand)."""
import numpy as np
import pytest

import minigrad_ckpt as mg

OTHER = ("maximum minimum fmax fmin atan2 arctan2 hypot nextafter ldexp logical_and logical_or logical_xor "
         "logaddexp logaddexp2 igamma igammac").split()
INTEGRAL = ("gcd", "lcm")


@pytest.mark.parametrize("number", [2, 1.5, True, np.float64(1.5)])
@pytest.mark.parametrize("name", OTHER)
def test_a_number_is_pytorchs_type_error(name, number):
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'other' \(position 1\) must be Tensor, not "):
        getattr(x, name)(number)


@pytest.mark.parametrize("name", INTEGRAL)
def test_a_number_beside_integers_is_refused_too(name):
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other' \\(position 1\\) must be Tensor, not int"):
        getattr(mg.tensor([4, 6]), name)(2)
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        getattr(mg.tensor([4, 6]), name + "_")(2)


def test_in_place_twins_heaviside_and_lerp():
    x = mg.tensor([-1.0, 0.0, 2.0])
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        x.clone().atan2_(1.0)
    with pytest.raises(TypeError, match=r"heaviside\(\): argument 'values' \(position 1\) must be Tensor, not float"):
        x.heaviside(0.5)
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        x.lerp(1.0, 0.5)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        x.maximum([1.0, 2.0, 3.0])


def test_tensors_and_numpys_functions_still_answer():
    x = mg.tensor([-1.0, 0.0, 2.0])
    assert x.maximum(mg.tensor(0.0)).tolist() == [0.0, 0.0, 2.0]
    assert x.heaviside(mg.tensor(0.5)).tolist() == [0.0, 0.5, 1.0]
    assert x.lerp(mg.tensor(1.0), 0.5).tolist() == [0.0, 0.5, 1.5]
    assert x.clone().clamp_min(0).tolist() == [0.0, 0.0, 2.0]  # clamp takes numbers, as PyTorch's
    assert mg.maximum(x, 0).tolist() == [0.0, 0.0, 2.0]
    assert mg.tensor([4, 6]).gcd(mg.tensor(4)).tolist() == [4, 2]
