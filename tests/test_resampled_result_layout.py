"""interpolate and the index modes of pad lay out their result as PyTorch's, and never alias the input.

Found porting facebookresearch/dino: ``VisionTransformer.interpolate_pos_encoding`` resamples the
position embeddings of a smaller crop with ``nn.functional.interpolate(pos.reshape(1, s, s,
dim).permute(0, 3, 1, 2), scale_factor=..., mode='bicubic').permute(0, 2, 3, 1).view(1, -1, dim)``.
PyTorch's result keeps the input's channels-last layout, so the permute is contiguous and the view
works; the engine's result (two ``take``s, the width outermost in memory) refused the view. The
strides below are torch 2.13's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional


def nchw(shape, channels_last=False, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if channels_last:  # as DINO builds it: an (N, H, W, C) tensor permuted to (N, C, H, W)
        return mg.tensor(np.ascontiguousarray(a.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2), a
    return mg.tensor(a), a


def test_dino_interpolate_pos_encoding_views_the_permuted_result():
    dim, n = 16, 16
    pos = mg.tensor(np.random.default_rng(1).standard_normal((1, n + 1, dim)).astype(np.float32),
                    requires_grad=True)
    patch = pos[:, 1:]
    w0 = h0 = 8 // 4 + 0.1
    out = F.interpolate(patch.reshape(1, 4, 4, dim).permute(0, 3, 1, 2),
                        scale_factor=(w0 / math.sqrt(n), h0 / math.sqrt(n)), mode="bicubic")
    assert out.stride() == (64, 1, 32, 16)  # torch 2.13: channels-last, as its input
    flat = out.permute(0, 2, 3, 1).view(1, -1, dim)  # raised: "view size is not compatible ..."
    np.testing.assert_array_equal(flat.detach().numpy(), out.permute(0, 2, 3, 1).reshape(1, -1, dim).detach().numpy())
    flat.sum().backward()
    assert pos.grad.shape == (1, n + 1, dim) and float(pos.grad[0, 0].abs().sum()) == 0.0


@pytest.mark.parametrize("mode, kw, rm, cl", [
    ("nearest", dict(scale_factor=2), (360, 120, 10, 1), (360, 1, 30, 3)),
    ("bilinear", dict(size=(7, 8)), (168, 56, 8, 1), (168, 1, 24, 3)),
    ("bicubic", dict(size=(2, 3)), (18, 6, 3, 1), (18, 1, 9, 3)),
    ("nearest-exact", dict(size=(3, 3)), (27, 9, 3, 1), (27, 1, 9, 3)),
    ("area", dict(size=(2, 2)), (12, 4, 2, 1), (12, 1, 6, 3)),
])
def test_interpolate_result_is_row_major_or_the_inputs_channels_last(mode, kw, rm, cl):
    for channels_last, want in ((False, rm), (True, cl)):
        x, a = nchw((2, 3, 6, 5), channels_last)
        y = F.interpolate(x, mode=mode, **kw)
        assert y.stride() == want, (channels_last, y.stride())
        n, c = y.shape[:2]
        y.permute(0, 2, 3, 1).view(n, -1, c)  # as PyTorch: a view of the NHWC permute


def test_interpolate_5d_and_3d_layouts():
    x = mg.tensor(np.random.default_rng(2).standard_normal((1, 2, 3, 4, 5)).astype(np.float32))
    x = x.contiguous(memory_format=mg.channels_last_3d)
    assert F.interpolate(x, size=(4, 5, 6), mode="trilinear").stride() == (240, 1, 60, 12, 2)
    x3 = mg.tensor(np.random.default_rng(3).standard_normal((2, 5, 3)).astype(np.float32)).transpose(1, 2)
    assert F.interpolate(x3, size=7, mode="linear").stride() == (21, 7, 1)


@pytest.mark.parametrize("mode, cl", [
    ("reflect", (126, 1, 21, 3)), ("replicate", (126, 1, 21, 3)), ("circular", (126, 42, 7, 1)),
])
def test_pad_index_modes_result_layout(mode, cl):
    for channels_last, want in ((False, (126, 42, 7, 1)), (True, cl)):
        x, _ = nchw((2, 3, 4, 5), channels_last)
        y = F.pad(x, (1, 1, 1, 1), mode=mode)
        assert y.stride() == want, (channels_last, y.stride())
        y.permute(0, 2, 3, 1).view(2, -1, 3)


def test_pad_reflect_of_a_transposed_3d_input_is_row_major():
    x = mg.tensor(np.random.default_rng(4).standard_normal((2, 5, 3)).astype(np.float32)).transpose(1, 2)
    assert F.pad(x, (1, 1), mode="reflect").stride() == (21, 7, 1)


@pytest.mark.parametrize("op", [
    lambda x: F.interpolate(x, size=(4, 5), mode="bilinear"),
    lambda x: F.interpolate(x, scale_factor=1.0),
    lambda x: F.pad(x, (0, 0, 0, 0), mode="reflect"),
    lambda x: F.pad(x, (0, 0, 0, 0), mode="replicate"),
    lambda x: F.pad(x, (0, 0, 0, 0), mode="circular"),
])
def test_nothing_resampled_is_still_a_new_tensor(op):
    """PyTorch's kernels write a new tensor even where every size stays: the engine gave back the
    input itself, so a write into the result changed the input."""
    x, a = nchw((1, 2, 4, 5))
    w = mg.tensor(a.copy(), requires_grad=True)
    y = op(x)
    assert y is not x and y.data_ptr() != x.data_ptr()
    y.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), a)
    op(w).pow(2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * a, rtol=1e-6)
