"""``x.view(shape)`` shares ``x``'s memory, or refuses as PyTorch's does.

It was ``reshape``: where the strides could not give the shape without a copy (``x.t().view(-1)``),
it returned a copy, so a write through the "view" was silently lost, and code that PyTorch rejects
ran on.  torch 2.13: ``RuntimeError: view size is not compatible with input tensor's size and
stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.``
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict stand-in devices

DEVICES = ["cpu", "strict", "strict-f32"]
MESSAGE = "view size is not compatible with input tensor's size and stride"


def _grid(device: str) -> mg.Tensor:
    return mg.tensor(np.arange(24.0).reshape(2, 3, 4), device=device, dtype=mg.float32)


# (how to make the input from the (2, 3, 4) grid, the shape to view it as): each a RuntimeError in torch 2.13
REFUSED = [
    (lambda g: g[0].t(), (-1,)),
    (lambda g: g.permute(1, 0, 2), (6, 4)),
    (lambda g: g.transpose(1, 2), (2, 12)),
    (lambda g: g[:, ::2], (-1,)),
    (lambda g: g[:, :1, :1].expand(2, 3, 4), (24,)),
    (lambda g: g[:, 1], (8,)),
]

# each a view in torch 2.13 (the strides allow it), so here too: the write reaches the base
SHARED = [
    (lambda g: g, (6, 4)),
    (lambda g: g.permute(1, 0, 2), (3, 2, 2, 2)),   # only the last dim split
    (lambda g: g.transpose(0, 1), (3, 2, 4, 1)),    # a dim of size 1 added
    (lambda g: g[:, :, ::2], (-1,)),                # strides (12, 4, 2): every dim merges into one of stride 2
    (lambda g: g[:, 1], (2, 2, 2)),                 # rows of stride 12: only the last dim split
    (lambda g: g[0].t().contiguous(), (-1,)),
    (lambda g: g[:, :1, :1].expand(2, 3, 4), (2, 3, 4, 1)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_a_view_the_strides_cannot_give_is_pytorchs_error(device, case):
    make, shape = REFUSED[case]
    x = make(_grid(device))
    with pytest.raises(RuntimeError, match=MESSAGE):
        x.view(*shape)
    assert x.reshape(*shape).shape == tuple(x.reshape(-1).shape if shape == (-1,) else shape)  # reshape copies


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(SHARED)))
def test_a_view_the_strides_allow_shares_memory(device, case):
    make, shape = SHARED[case]
    x = make(_grid(device))
    v = x.view(*shape)
    assert v.numel() == x.numel()
    if x.stride() and 0 in x.stride():
        return  # an expanded tensor takes no writes (PyTorch's refusal); its view is checked by shape
    v[(0,) * v.ndim] = -1.0  # the first element of both
    assert x[(0,) * x.ndim].item() == -1.0


@pytest.mark.parametrize("device", DEVICES)
def test_a_write_through_a_view_reaches_the_base(device):
    g = _grid(device)
    rows = g[:, 1]  # (2, 4) with a row stride of 12: viewable as (2, 2, 2), not as (8,)
    v = rows.view(2, 2, 2)
    v[1, 0, 1] = -1.0
    assert g[1, 1, 1].item() == -1.0
    with pytest.raises(RuntimeError, match=MESSAGE):
        rows.view(8)


@pytest.mark.parametrize("device", DEVICES)
def test_a_view_with_gradient_and_in_place_through_it(device):
    w = mg.tensor(np.arange(6.0).reshape(2, 3), device=device, dtype=mg.float32, requires_grad=True)
    y = (w * 2).t()
    with pytest.raises(RuntimeError, match=MESSAGE):
        y.view(-1)
    h = (w * 2).view(3, 2)
    h.mul_(3.0)  # the in-place write reaches the view's base, and the gradient follows it
    h.sum().backward()
    assert w.grad.tolist() == [[6.0] * 3] * 2


def test_a_zero_size_and_a_one_element_tensor_view_anything_of_their_size():
    assert mg.zeros(0, 3).t().view(-1).shape == (0,)
    assert mg.ones(1, 3).t().view(-1).shape == (3,)
    assert mg.tensor(3.0).view(1, 1).shape == (1, 1)


def test_inside_a_checkpoint_the_error_is_the_same():
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    with pytest.raises(RuntimeError, match=MESSAGE):
        mg.checkpoint.checkpoint(lambda a: (a * 2).t().view(-1), x)
    out = mg.checkpoint.checkpoint(lambda a: (a * 2).t().reshape(-1), x)
    out.sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("device", DEVICES)
def test_under_the_function_transforms(device):
    x = mg.tensor(np.arange(6.0).reshape(2, 3), device=device, dtype=mg.float32)
    # grad and jvp through a view; the refusal is the same inside a transform
    assert mg.func.grad(lambda a: ((a * 2).view(3, 2) ** 2).sum())(x).tolist() == (8 * x).tolist()
    _, tangent = mg.func.jvp(lambda a: (a * 2).view(3, 2), (x,), (mg.ones(2, 3, device=device, dtype=mg.float32),))
    assert tangent.shape == (3, 2) and tangent.tolist() == [[2.0] * 2] * 3
    with pytest.raises(RuntimeError, match=MESSAGE):
        mg.func.grad(lambda a: (a * 2).t().view(-1).sum())(x)
    # vmap: each example is a row here (viewable); over dim 1 an example is a strided column, which
    # torch 2.13's vmap refuses to view as well (vmap(lambda r: r.view(-1), in_dims=1)(randn(3, 4, 5)))
    assert mg.func.vmap(lambda r: r.view(3, 1))(x).shape == (2, 3, 1)
    with pytest.raises(RuntimeError, match=MESSAGE):
        mg.func.vmap(lambda r: r.view(-1), in_dims=1)(mg.ones(3, 4, 5, device=device, dtype=mg.float32))
