"""A tensor's ``shape`` and ``size()`` are ``mg.Size``, PyTorch's ``torch.Size``: a tuple that the legacy
constructors take as a shape.  ``mg.FloatTensor(t.size() + (n,))`` -- PixelCNN++'s ``to_one_hot``,
and ``torch.Tensor(x.size())`` in much older code -- made a tensor OF the sizes (shape ``(4,)``, data
``[2., 8., 8., 2.]``) here, silently; torch 2.13 makes an uninitialised tensor OF THAT SHAPE.  A plain
tuple stays data, as in PyTorch (``Tensor((2, 3))`` is ``[2., 3.]``).  The expected values are torch
2.13's (shapes and dtypes, and the one-hot below, printed by torch)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_shape_and_size_are_sizes_equal_to_their_tuples(device):
    x = mg.zeros(2, 3, device=device)
    for s in (x.shape, x.size(), x.mT.shape, x[0].shape):
        assert isinstance(s, mg.Size) and isinstance(s, tuple)
    assert x.shape == (2, 3) and x.size() == (2, 3) and hash(x.shape) == hash((2, 3))
    assert repr(x.shape) == "(2, 3)" and x.size(1) == 3 and type(x.size(1)) is int
    assert not isinstance((2, 3), mg.Size)


def test_a_size_stays_a_size_as_torch_size_does():
    s = mg.Size([2, 3])
    for made in (s + (4,), (1,) + s, s[1:], s * 2, 2 * s, pickle.loads(pickle.dumps(s))):
        assert type(made) is mg.Size
    assert s + (4,) == (2, 3, 4) and (1,) + s == (1, 2, 3) and s[1:] == (3,) and s * 2 == (2, 3, 2, 3)
    assert type(s[0]) is int and s.numel() == 6 and mg.Size().numel() == 1
    with pytest.raises(TypeError):
        s + [4]  # noqa: B018  (torch: "can only concatenate tuple (not list) to torch.Size")


@pytest.mark.parametrize("make, dtype", [(mg.Tensor, mg.float32), (mg.FloatTensor, mg.float32),
                                         (mg.DoubleTensor, mg.float64), (mg.LongTensor, mg.int64),
                                         (mg.ByteTensor, mg.uint8)])
def test_legacy_constructors_take_a_size_as_the_shape(make, dtype):
    x = mg.ones(2, 8, 8)
    for size, shape in ((x.size() + (2,), (2, 8, 8, 2)), (x.shape, (2, 8, 8)), (x.size()[1:], (8, 8)),
                        (mg.Size([]), ()), (mg.Size([2, 0]), (2, 0))):
        t = make(size)
        assert t.shape == shape and t.dtype == dtype and t.device == "cpu"
    # a plain tuple (or list) is data, as torch's
    np.testing.assert_array_equal(make((2, 3)).numpy(), np.array([2, 3], dtype=dtype))
    np.testing.assert_array_equal(make([2, 3]).numpy(), np.array([2, 3], dtype=dtype))


@pytest.mark.parametrize("device, dtype", [("strict", mg.float64), ("strict-f32", mg.float32)])
def test_tensor_of_a_size_on_a_device(device, dtype):
    mg.set_default_dtype(dtype)
    try:
        x = mg.zeros(3, 4, device=device)
        t = mg.Tensor(x.size(), device=device)
    finally:
        mg.set_default_dtype(mg.float32)
    assert t.shape == (3, 4) and t.dtype == dtype and t.device == device


def test_pixelcnn_pp_one_hot_of_the_last_axis():
    """PixelCNN++'s ``to_one_hot``: ``FloatTensor(t.size() + (n,)).zero_()`` then ``scatter_`` on the new
    last axis (torch 2.13 gives the list below)."""
    t = mg.tensor([[1, 0], [2, 1]])
    one_hot = mg.FloatTensor(t.size() + (3,)).zero_()
    one_hot.scatter_(len(t.size()), t.unsqueeze(-1), 1.)
    assert one_hot.tolist() == [[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]


def test_inside_vmap_and_grad_shapes_are_sizes():
    def f(x):
        assert isinstance(x.shape, mg.Size) and x.shape == (3,)
        return (x * mg.Tensor(x.size()).fill_(2.0).to(x.dtype)).sum()

    x = mg.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(mg.func.vmap(mg.func.grad(f))(x).numpy(), np.full((2, 3), 2.0))
