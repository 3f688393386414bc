"""``mg.meshgrid([x, y])`` -- operands in one list, a spelling only PyTorch has -- takes PyTorch's
default ``indexing="ij"`` (with PyTorch's warning asking for the argument); operands spread out
keep NumPy's ``"xy"``.

Reproducer: Swin Transformer's relative position index is built from
``torch.stack(torch.meshgrid([coords_h, coords_w]))``; ported, ``mg.meshgrid([h, w])`` answered NumPy's
``"xy"`` grids -- shape (2, Ww, Wh), and for square windows the same shape with h and w swapped, so the
index gathered another bias for each pair of tokens, silently.  torch 2.13:
``torch.meshgrid([torch.arange(3), torch.arange(4)])`` -> two (3, 4) grids, rows varying along dim 0.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_operands_in_one_list_take_pytorchs_ij(device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    h, w = mg.arange(3, device=device), mg.arange(4, device=device)
    with pytest.warns(UserWarning, match="pass the indexing argument"):
        gh, gw = mg.meshgrid([h, w])
    np.testing.assert_array_equal(gh.numpy(), np.repeat(np.arange(3)[:, None], 4, axis=1))
    np.testing.assert_array_equal(gw.numpy(), np.repeat(np.arange(4)[None, :], 3, axis=0))
    with pytest.warns(UserWarning):
        assert [tuple(t.shape) for t in mg.meshgrid((h, w))] == [(3, 4), (3, 4)]


def test_swins_relative_position_index_is_pytorchs():
    coords = mg.stack(mg.meshgrid([mg.arange(2), mg.arange(2)], indexing="ij"))
    with pytest.warns(UserWarning):
        implicit = mg.stack(mg.meshgrid([mg.arange(2), mg.arange(2)]))
    assert np.array_equal(implicit.numpy(), coords.numpy())
    flat = mg.flatten(implicit, 1)
    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()
    rel[:, :, 0] += 1
    rel[:, :, 1] += 1
    rel[:, :, 0] *= 3
    # torch 2.13's relative_position_index for a 2x2 window
    assert rel.sum(-1).tolist() == [[4, 3, 1, 0], [5, 4, 2, 1], [7, 6, 4, 3], [8, 7, 5, 4]]


def test_an_explicit_indexing_and_operands_spread_out_are_as_before():
    h, w = mg.arange(3.0, requires_grad=True), mg.arange(4.0)
    assert [tuple(t.shape) for t in mg.meshgrid([h, w], indexing="xy")] == [(4, 3), (4, 3)]
    assert [tuple(t.shape) for t in mg.meshgrid(h, w)] == [(4, 3), (4, 3)]  # NumPy's default
    assert [tuple(t.shape) for t in mg.meshgrid(h, w, indexing="ij")] == [(3, 4), (3, 4)]
    with pytest.warns(UserWarning):
        gh, _ = mg.meshgrid([h, w])
    (gh * mg.arange(12.0).reshape(3, 4)).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [6.0, 22.0, 38.0])
