"""``mg.autograd.graph.increment_version``, PyTorch's: a write the engine did not see (here straight
into the array) restamps the tensor, and a backward that reads a value saved before it raises, as
PyTorch's; a list restamps each tensor.  (Stamps are the engine clock's values, not counts.)
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_a_restamped_saved_value_refuses_backward(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = x.clone()
    z = (y * y).sum()
    before = y.version()
    mg.autograd.graph.increment_version(y)
    assert y.version() > before
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.backward()


def test_a_write_without_the_restamp_goes_unseen_and_a_list_restamps_each():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    z = (y * y).sum()
    z.backward(retain_graph=True)  # nothing written: the saved value is as it was
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    a, b = mg.zeros(2), mg.zeros(3)
    stamps = a.version(), b.version()
    mg.autograd.graph.increment_version([a, b])
    assert a.version() > stamps[0] and b.version() > stamps[1]


def test_inside_a_checkpoint_segment_the_restamp_of_an_input_refuses_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    out = mg.checkpoint.checkpoint(lambda t: (t * t).sum(), h, use_reentrant=False)
    mg.autograd.graph.increment_version(h)
    with pytest.raises(RuntimeError, match="modified in place"):  # PyTorch's checkpoint raises too
        out.backward()
