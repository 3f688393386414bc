"""``F.interpolate``'s refusals are PyTorch's types, in PyTorch's order (torch 2.13): an output size below 1
(``size=0``, a ``scale_factor`` of 0 or below, or one that rounds an axis down to nothing, ``scale_factor=0.3``
of 3 pixels) and an empty input axis are its kernels' RuntimeError ("Input and output sizes should be
greater than 0"), where the engine raised ValueError; and ``antialias=True`` with a 3-D input is
PyTorch's ValueError, checked before the mode's rank (the engine raised NotImplementedError first)."""

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 5, 7), dict(size=0)),
    ((2, 3, 9), dict(size=0, mode="linear")),
    ((2, 3, 5, 7), dict(scale_factor=0.0)),
    ((2, 3, 5, 7), dict(scale_factor=-1.0, mode="bilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=0.3)),
    ((1, 2, 3, 4, 5), dict(scale_factor=0.3, mode="trilinear", align_corners=True)),
    ((2, 3, 2, 2), dict(scale_factor=0.3, mode="bicubic")),
    ((2, 3, 0, 4), dict(size=3)),
])
def test_an_empty_size_is_pytorchs_runtime_error(shape, kwargs):
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        F.interpolate(mg.ones(*shape), **kwargs)
    with pytest.raises(RuntimeError, match="greater than 0"):  # the module too
        nn.Upsample(**kwargs)(mg.ones(*shape))


def test_the_argument_checks_keep_pytorchs_value_errors_in_its_order():
    with pytest.raises(ValueError, match="antialias"):  # before "bilinear needs a 4-D input"
        F.interpolate(mg.ones(2, 3, 9), size=4, mode="bilinear", antialias=True)
    with pytest.raises(ValueError, match="align_corners"):  # before the sizes
        F.interpolate(mg.ones(2, 3, 9), size=0, mode="nearest", align_corners=True)
    with pytest.raises(ValueError, match="exactly one"):
        F.interpolate(mg.ones(2, 3, 9), size=0, scale_factor=2.0)
    with pytest.raises(ValueError, match="2 int"):
        F.interpolate(mg.ones(2, 3, 4, 4), size=(3,))
    with pytest.raises(NotImplementedError):
        F.interpolate(mg.ones(2, 3, 9), size=4, mode="bilinear")
    assert F.interpolate(mg.ones(2, 3, 4, 4), scale_factor=0.5, mode="area").shape == (2, 3, 2, 2)
