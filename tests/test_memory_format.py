"""PyTorch's ``memory_format=``: ``mg.contiguous_format`` and ``mg.preserve_format`` (the default
of ``clone`` and the ``*_like`` creators) are accepted wherever PyTorch takes the keyword --
``torch.zeros_like(p, memory_format=torch.preserve_format)`` is how PyTorch's own optimizers make
their state -- and give a row-major tensor (``preserve_format``: laid out as the input); the channels-last
layouts are tests/test_channels_last.py's.  ``clone`` and the ``*_like`` creators refused the keyword, and the
names did not exist."""

import numpy as np
import pytest

import minigrad_ckpt as mg

CALLS = [
    lambda x, f: x.clone(memory_format=f),
    lambda x, f: mg.clone(x, memory_format=f),
    lambda x, f: x.contiguous(memory_format=f),
    lambda x, f: x.to(mg.float64, memory_format=f),
    lambda x, f: mg.zeros_like(x, memory_format=f),
    lambda x, f: mg.ones_like(x, memory_format=f),
    lambda x, f: mg.full_like(x, 2.0, memory_format=f),
    lambda x, f: mg.empty_like(x, memory_format=f),
    lambda x, f: mg.rand_like(x, memory_format=f),
    lambda x, f: mg.randn_like(x, memory_format=f),
    lambda x, f: mg.randint_like(x, 5, memory_format=f),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format"])
def test_the_row_major_formats_are_accepted(call, fmt):
    x = mg.arange(12.0).reshape(3, 4).t()
    y = call(x, getattr(mg, fmt))
    assert y.shape == (4, 3)
    assert y.is_contiguous(memory_format=mg.contiguous_format) or fmt == "preserve_format"


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("fmt, shape", [("channels_last", (1, 2, 3, 4)), ("channels_last_3d", (1, 2, 3, 4, 2))])
def test_the_channels_last_formats_are_offered(call, fmt, shape):
    x = mg.zeros(*shape)
    y = call(x, getattr(mg, fmt))
    assert y.shape == shape and y.is_contiguous(memory_format=getattr(mg, fmt))


def test_a_clone_keeps_its_gradient_and_an_optimizer_state_starts_at_zero():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    state = mg.zeros_like(p, memory_format=mg.preserve_format)
    assert not state.requires_grad and np.array_equal(state.numpy(), [0.0, 0.0])
    (p.clone(memory_format=mg.preserve_format) * 3).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0])
    assert repr(mg.preserve_format) == "mg.preserve_format"


@pytest.mark.parametrize("name", ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"])
def test_a_memory_format_pickles_and_copies_to_itself(name):
    """PyTorch's memory formats are compared by identity (``x.is_contiguous(memory_format=...)``,
    ``fmt is torch.channels_last``): one that came through pickle, copy or deepcopy -- a saved
    config, a DataLoader worker -- is the same object (it was a new, unequal one)."""
    import copy
    import pickle

    fmt = getattr(mg, name)
    assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert copy.copy(fmt) is fmt and copy.deepcopy({"f": fmt})["f"] is fmt
    x = mg.ones(1, 2, 3, 4) if name != "channels_last_3d" else mg.ones(1, 2, 3, 4, 5)
    assert mg.empty_like(x, memory_format=pickle.loads(pickle.dumps(fmt))).shape == x.shape
