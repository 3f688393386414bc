"""A float among the sizes of reshape/view/expand/repeat is PyTorch's TypeError.

The sizes went through ``int()``, which truncates, so ``x.reshape(3.5, 2)`` answered a (3, 2) tensor and
``x.expand(2.0, 6)`` a (2, 6) one where torch 2.13 refuses ("reshape(): argument 'shape' (position 1) must
be tuple of ints, but found element of type float at pos 0"). What stands for an int still does: a NumPy
integer, an integer tensor of one element (``__index__``)."""

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("call", [
    lambda x: x.reshape(3.5, 2), lambda x: x.reshape([3.0, 2]), lambda x: x.reshape(shape=(3.0, 2)),
    lambda x: x.view(3.0, 2), lambda x: x.view([2, 3.0]), lambda x: mg.reshape(x, (3.0, 2)),
    lambda x: x.expand(2.0, 6), lambda x: x.repeat(2.0), lambda x: x.reshape(np.float64(3), 2),
])
def test_a_float_size_is_refused(call):
    with pytest.raises(TypeError, match="tuple of ints|not iterable"):
        call(mg.ones(6))


def test_what_stands_for_an_int_is_taken():
    x = mg.ones(6)
    assert x.reshape(mg.tensor(3), 2).shape == (3, 2)
    assert x.view(np.int64(2), 3).shape == (2, 3)
    assert x.expand(np.int32(2), 6).shape == (2, 6)
    assert x.reshape((3, -1)).shape == (3, 2)
    with pytest.raises(TypeError):
        x.reshape(mg.tensor(3.0), 2)  # a float tensor is not an index (torch: TypeError too)
