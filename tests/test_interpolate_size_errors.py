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


@pytest.mark.parametrize("shape, mode", [((2, 3, 9), "nearest"), ((2, 3, 5, 7), "bilinear"), ((1, 2, 3, 4, 5), "area")])
def test_recompute_scale_factor_with_a_size_is_pytorchs_value_error(shape, mode):
    # (torch 2.13: "recompute_scale_factor is not meaningful with an explicit size."; the engine ignored it)
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful with an explicit size"):
        F.interpolate(mg.ones(*shape), size=4, mode=mode, recompute_scale_factor=True)
    with pytest.raises(ValueError, match="not meaningful"):  # the module too
        nn.Upsample(size=4, mode=mode, recompute_scale_factor=True)(mg.ones(*shape))
    # False (or None) with a size is PyTorch's size alone; True with a factor recomputes it
    assert F.interpolate(mg.ones(*shape), size=4, mode=mode, recompute_scale_factor=False).shape[2:] == \
        (4,) * (len(shape) - 2)
    assert F.interpolate(mg.ones(*shape), scale_factor=1.5, mode=mode, recompute_scale_factor=True).shape[2:] == \
        tuple(int(n * 1.5) for n in shape[2:])


@pytest.mark.parametrize("size", [2.5, (2.5,), [3.0], (mg.tensor(3.0),)])
def test_a_size_that_is_not_an_integer_is_pytorchs_type_error(size):
    # (torch 2.13: "expected size to be one of int or Tuple[int] ..."; the engine's int() truncated
    # 2.5 to 2 and resampled to a size nobody asked for)
    with pytest.raises(TypeError, match="expected size to be one of int or"):
        F.interpolate(mg.ones(1, 1, 4), size=size)
    with pytest.raises(TypeError, match="expected size to be one of int or"):  # the module too
        nn.Upsample(size=size)(mg.ones(1, 1, 4))


@pytest.mark.parametrize("size", [3, (3,), [3], mg.tensor(3), (mg.tensor(3),)])
def test_integer_sizes_of_every_spelling_are_taken(size):
    assert F.interpolate(mg.ones(1, 1, 4), size=size).shape == (1, 1, 3)
