"""``mg.empty(..., memory_format=)`` as ``torch.empty``: ``channels_last`` (a 4-d shape) and
``channels_last_3d`` (5-d) lay the new tensor out with the channels innermost, PyTorch's strides;
another rank, and ``preserve_format`` (nothing to preserve), are PyTorch's RuntimeErrors.  The
keyword was a TypeError (``empty() got an unexpected keyword argument 'memory_format'``) though the
``*_like`` creators took it.  Strides: torch 2.13's.  Found running PyTorch's memory-format tests
against the engine."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the "strict" devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_empty_lays_out_channels_last_with_pytorchs_strides(device):
    x = mg.empty(2, 3, 4, 5, memory_format=mg.channels_last, device=device)
    assert x.stride() == (60, 1, 15, 3) and x.shape == (2, 3, 4, 5)
    assert x.is_contiguous(memory_format=mg.channels_last) and not x.is_contiguous()
    y = mg.empty((2, 3, 4, 5, 6), memory_format=mg.channels_last_3d, device=device, dtype=mg.float64)
    assert y.stride() == (360, 1, 90, 18, 3) and y.dtype == mg.float64


def test_empty_row_major_by_default_and_a_leaf_that_requires_grad():
    assert mg.empty(2, 3).stride() == (3, 1)
    assert mg.empty(2, 3, memory_format=mg.contiguous_format).stride() == (3, 1)
    x = mg.empty(2, 3, 4, 5, memory_format=mg.channels_last, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    (x * 2).sum().backward()
    assert x.grad.shape == (2, 3, 4, 5)


@pytest.mark.parametrize("memory_format, words", [
    (mg.channels_last, "required rank 4 tensor to use channels_last format"),
    (mg.channels_last_3d, "required rank 5 tensor to use channels_last_3d format"),
    (mg.preserve_format, "unsupported memory format Preserve"),
])
def test_empty_refuses_a_format_it_cannot_take_as_pytorch(memory_format, words):
    with pytest.raises(RuntimeError, match=words):
        mg.empty(2, 3, memory_format=memory_format)
