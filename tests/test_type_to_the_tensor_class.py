"""``x.type(mg.Tensor)`` and ``x.type('torch.Tensor')`` cast to the default dtype, as PyTorch's
(``torch.Tensor`` names the default tensor type, a CPU type like the legacy classes): programs write
``Tensor = torch.cuda.FloatTensor if cuda else torch.Tensor`` and then ``batch.type(Tensor)``. The
class was read as a legacy type and its ``dtype`` property object given to the cast, a TypeError
(found porting eriklindernoren/PyTorch-GAN's bicyclegan)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("spelling", [mg.Tensor, "torch.Tensor", "minigrad_ckpt.Tensor"])
def test_the_tensor_class_names_the_default_dtype(spelling):
    x = mg.arange(3)
    assert x.type(spelling).dtype == mg.float32
    np.testing.assert_array_equal(x.type(spelling).numpy(), [0.0, 1.0, 2.0])
    try:
        mg.set_default_dtype(mg.float64)
        assert x.type(spelling).dtype == mg.float64
    finally:
        mg.set_default_dtype(mg.float32)


def test_a_module_cast_to_the_tensor_class():
    layer = mg.nn.Linear(2, 2).double()
    assert layer.type(mg.Tensor).weight.dtype == mg.float32


def test_a_subclass_is_still_refused():
    with pytest.raises((TypeError, ValueError)):
        mg.ones(2).type(mg.nn.Parameter)


def test_a_tensor_subclass_is_no_type():
    """``x.type(nn.Parameter)``: a subclass of Tensor names no tensor type; PyTorch 2.13 says
    "invalid type: 'Parameter'" (its dtype attribute is a property, which the cast was handed)."""
    with pytest.raises(ValueError, match="^invalid type: 'Parameter'$"):
        mg.ones(2).type(mg.nn.Parameter)
