"""Layers and ``nn.functional`` against PyTorch 2.13 (CPU) at the edges a port meets: the values
below were printed by torch offline (each test says which expression); torch is not imported here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

DTYPES = ("float32", "float64")


# --- pooling: ceil_mode keeps one partial window even when the kernel is longer than the input ---

def _partial_max(x):
    return F.max_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True)


def _partial_avg(x):
    return F.avg_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ceil_mode_pools_a_kernel_longer_than_the_input(dtype):
    # x = torch.arange(6.).reshape(1, 1, 2, 3); F.max_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True,
    # return_indices=True) -> ([[[[4., 5.]]]], [[[[4, 5]]]]); its x.grad after .sum().backward() below
    x = mg.arange(6.0, dtype=dtype).reshape(1, 1, 2, 3).requires_grad_()
    out, idx = F.max_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), [[[[4.0, 5.0]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[4, 5]]]])
    assert out.dtype == dtype
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 0, 0], [0, 1, 1]]]])
    # F.avg_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True) -> [[[[2.0, 3.5]]]], x.grad (of .sum()):
    # [[0.25, 0.25, 0.5], [0.25, 0.25, 0.5]]; count_include_pad=False gives the same divisors here
    x.grad = None
    avg = _partial_avg(x)
    np.testing.assert_allclose(avg.numpy(), [[[[2.0, 3.5]]]])
    avg.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[[[0.25, 0.25, 0.5], [0.25, 0.25, 0.5]]]])
    np.testing.assert_allclose(F.avg_pool2d(x, (3, 2), stride=(3, 2), ceil_mode=True,
                                            count_include_pad=False).numpy(), [[[[2.0, 3.5]]]])
    # F.max_pool1d(torch.tensor([[[5.]]]), 2, ceil_mode=True) -> [[[5.]]];
    # F.lp_pool1d(torch.tensor([[[3.]]]), 2, 2, ceil_mode=True) -> [[[4.2426]]] (sqrt(2 * 9))
    np.testing.assert_array_equal(F.max_pool1d(mg.tensor([[[5.0]]], dtype=dtype), 2, ceil_mode=True).numpy(), [[[5.0]]])
    np.testing.assert_allclose(F.lp_pool1d(mg.tensor([[[3.0]]], dtype=dtype), 2, 2, ceil_mode=True).numpy(),
                               [[[np.sqrt(18.0)]]], rtol=1e-6)
    # F.max_pool3d(torch.arange(12.).reshape(1, 1, 2, 2, 3), (3, 1, 2), ceil_mode=True, return_indices=True)
    # -> values [[7, 8], [10, 11]] and the same indices
    out3, idx3 = F.max_pool3d(mg.arange(12.0, dtype=dtype).reshape(1, 1, 2, 2, 3), (3, 1, 2), ceil_mode=True,
                              return_indices=True)
    np.testing.assert_array_equal(out3.numpy(), [[[[[7.0, 8.0], [10.0, 11.0]]]]])
    np.testing.assert_array_equal(idx3.numpy(), [[[[[7, 8], [10, 11]]]]])


def test_pooling_still_refuses_an_empty_output():
    # torch: F.max_pool2d(torch.zeros(1, 1, 2, 3), (3, 2)) -> RuntimeError "Output size is too small";
    # F.avg_pool3d(torch.zeros(1, 1, 1, 4, 4), 2, padding=(1, 0, 0)) -> "input image (T: 1 H: 4 W: 4) smaller
    # than kernel size" (the 3-D average checks the unpadded input, the 2-D one and max_pool3d do not)
    with pytest.raises(ValueError, match="empty"):
        F.max_pool2d(mg.zeros(1, 1, 2, 3), (3, 2))
    with pytest.raises(ValueError, match="smaller than the kernel"):
        F.avg_pool3d(mg.zeros(1, 1, 1, 4, 4), 2, padding=(1, 0, 0))
    with pytest.raises(ValueError, match="smaller than the kernel"):
        F.avg_pool3d(mg.zeros(1, 1, 2, 2, 2), 3, padding=1, ceil_mode=True)


@pytest.mark.parametrize("fn", [_partial_max, _partial_avg])
def test_partial_window_pooling_seams(fn):
    x = mg.tensor(np.random.default_rng(0).permutation(6).reshape(1, 1, 2, 3) * 0.5, requires_grad=True)
    assert gradcheck(fn, x, modes=("rev", "fwd"))
    assert gradgradcheck(fn, x)
    out, tangent = mg.func.jvp(fn, (x.detach(),), (mg.ones_like(x),))
    np.testing.assert_allclose(out.numpy(), fn(x).numpy())
    # both pools commute with adding a constant: the tangent along ones is fn(x + 1) - fn(x)
    np.testing.assert_allclose(tangent.numpy(), (fn(x + 1.0) - fn(x)).numpy())
    direct = mg.func.grad(lambda t: fn(t).sum())(x.detach())
    x.grad = None
    checkpoint(fn, x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), direct.numpy())
    on_strict = fn(mg.tensor(x.numpy().astype("float32"), device="strict-f32"))
    np.testing.assert_allclose(on_strict.to("cpu").numpy(), fn(x).numpy(), rtol=1e-6)


# --- interpolate with a scale_factor that leaves an axis's length unchanged, or doubles it ---

def test_interpolate_copies_or_rescales_an_unchanged_axis_as_pytorchs_kernels():
    row = mg.arange(3.0).reshape(1, 1, 3)
    # F.interpolate(torch.arange(3.).reshape(1, 1, 3), scale_factor=1.3, mode='linear') -> [0., 1., 2.]
    # (the linear kernels copy an axis whose length does not change); mode='nearest' -> [0., 0., 1.]
    # (the 1-D and 3-D nearest kernels use 1 / 1.3 even then; the 2-D one copies the axis)
    np.testing.assert_array_equal(F.interpolate(row, scale_factor=1.3, mode="linear").numpy(), [[[0.0, 1.0, 2.0]]])
    np.testing.assert_array_equal(F.interpolate(row, scale_factor=1.3, mode="nearest").numpy(), [[[0.0, 0.0, 1.0]]])
    vol = row.reshape(1, 1, 1, 1, 3)
    # same input as (1, 1, 1, 1, 3): 'nearest' -> [0., 0., 1.], 'trilinear' -> [0., 1., 2.]
    np.testing.assert_array_equal(F.interpolate(vol, scale_factor=1.3, mode="nearest").numpy().ravel(), [0, 0, 1])
    np.testing.assert_array_equal(F.interpolate(vol, scale_factor=1.3, mode="trilinear").numpy().ravel(), [0, 1, 2])
    img = row.reshape(1, 1, 1, 3)
    # F.interpolate(torch.arange(3.).reshape(1, 1, 1, 3), scale_factor=2.1, mode='nearest') -> rows of
    # [0, 0, 1, 1, 2, 2] (the 2-D kernel takes j >> 1 when the length doubles; 1 / 2.1 gives [0, 0, 0, 1, 1, 2])
    np.testing.assert_array_equal(F.interpolate(img, scale_factor=2.1, mode="nearest").numpy(),
                                  [[[[0, 0, 1, 1, 2, 2]] * 2]])
    # scale_factor=(1.0, 1.3), mode='nearest-exact' -> [[[[0., 1., 1.]]]] (never a copy)
    np.testing.assert_array_equal(F.interpolate(img, scale_factor=(1.0, 1.3), mode="nearest-exact").numpy(),
                                  [[[[0.0, 1.0, 1.0]]]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_bilinear_copies_the_unchanged_axis_and_rescales_the_other(dtype):
    # F.interpolate(torch.arange(6.).reshape(1, 1, 2, 3), scale_factor=(1.3, 1.5), mode='bilinear')
    want = [[[[0.0, 0.5, 1.16666675, 1.83333337], [3.0, 3.5, 4.16666698, 4.83333349]]]]
    # ... recompute_scale_factor=True -> the sizes' ratio, 3 / 4, on the second axis
    want_recomputed = [[[[0.0, 0.625, 1.375, 2.0], [3.0, 3.625, 4.375, 5.0]]]]
    x = mg.arange(6.0, dtype=dtype).reshape(1, 1, 2, 3)
    resize = lambda t: F.interpolate(t, scale_factor=(1.3, 1.5), mode="bilinear")  # noqa: E731
    np.testing.assert_allclose(resize(x).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(F.interpolate(x, scale_factor=(1.3, 1.5), mode="bilinear",
                                             recompute_scale_factor=True).numpy(), want_recomputed, rtol=1e-6)
    assert resize(x).dtype == dtype
    if dtype == "float64":
        x.requires_grad_()
        assert gradcheck(resize, x, modes=("rev", "fwd"))
        # the first axis is copied: each input row's gradient is its own row's, never the other's
        grad = mg.func.grad(lambda t: (resize(t)[:, :, 0] * 1.0).sum())(x.detach())
        np.testing.assert_array_equal(grad.numpy()[0, 0, 1], [0.0, 0.0, 0.0])


# --- layers' reprs and stored options, as a port prints and reads them ---

def test_reprs_match_pytorchs():
    nn = mg.nn
    # repr(torch.nn.<the same constructor call>) for each
    want = {
        "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))": nn.MaxUnpool1d(2),
        "MaxUnpool2d(kernel_size=(2, 2), stride=(1, 1), padding=(0, 0))": nn.MaxUnpool2d(2, 1),
        "MaxUnpool3d(kernel_size=(1, 2, 3), stride=(1, 2, 3), padding=(0, 0, 0))": nn.MaxUnpool3d((1, 2, 3)),
        "Softshrink(0.5)": nn.Softshrink(),
        "PairwiseDistance()": nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
        "Embedding(5, 3, padding_idx=4, max_norm=2.0, norm_type=1.0)":
            nn.Embedding(5, 3, norm_type=1.0, max_norm=2.0, padding_idx=-1),
        "EmbeddingBag(5, 3, max_norm=1.0, norm_type=1.0, mode='max', padding_idx=2)":
            nn.EmbeddingBag(5, 3, max_norm=1.0, norm_type=1.0, mode="max", include_last_offset=True, padding_idx=2),
        "EmbeddingBag(5, 3, mode='sum', padding_idx=4)": nn.EmbeddingBag(5, 3, mode="sum", padding_idx=-1),
    }
    for text, layer in want.items():
        assert repr(layer) == text
    # torch.nn.MaxUnpool2d(2).kernel_size == (2, 2); torch.nn.EmbeddingBag(5, 3, padding_idx=-1).padding_idx == 4
    assert nn.MaxUnpool2d(2).kernel_size == (2, 2)
    assert nn.EmbeddingBag(5, 3, padding_idx=-1).padding_idx == 4
    # torch.nn.EmbeddingBag(5, 3, padding_idx=5) -> "padding_idx must be within num_embeddings"
    with pytest.raises(ValueError, match="padding_idx"):
        nn.EmbeddingBag(5, 3, padding_idx=5)


def test_unpool_layer_with_tuples_unpools_as_the_function():
    idx = mg.tensor(np.array([[[[0, 3], [8, 11]]]]))
    out = mg.nn.MaxUnpool2d(2)(mg.ones(1, 1, 2, 2), idx)
    np.testing.assert_array_equal(out.numpy(), F.max_unpool2d(mg.ones(1, 1, 2, 2), idx, 2).numpy())


def test_group_norm_refuses_one_value_per_group_as_pytorch():
    # F.group_norm(torch.randn(shape), groups): ValueError "Expected more than 1 value per channel when
    # training" for (1, 1) with 1 group, (1, 2) with 2, (1, 2, 1, 1) with 2; (2, 2) with 2 and (1, 2) with 1
    # answer (PyTorch counts batch * channels per group * spatial, not the values of one group)
    for shape, groups in [((1, 1), 1), ((1, 2), 2), ((1, 2, 1, 1), 2)]:
        with pytest.raises(ValueError, match="more than 1 value"):
            F.group_norm(mg.randn(*shape), groups)
        with pytest.raises(ValueError, match="more than 1 value"):
            mg.nn.GroupNorm(groups, shape[1])(mg.randn(*shape))
    np.testing.assert_array_equal(F.group_norm(mg.randn(2, 2), 2).numpy(), np.zeros((2, 2)))
    assert F.group_norm(mg.randn(1, 2), 1).shape == (1, 2)


def test_transposed_convolution_names_a_too_small_output():
    # F.conv_transpose2d(torch.randn(1, 1, 1, 1), torch.randn(1, 1, 2, 2), padding=1): RuntimeError "Calculated
    # output size per channel: (0 x 0). Output size is too small" (the old message blamed a conv2d kernel)
    with pytest.raises(ValueError, match=r"conv_transpose2d: Given input size per channel: \(1 x 1\)\. Calculated "
                                         r"output size per channel: \(0 x 0\)\. Output size is too small"):
        F.conv_transpose2d(mg.randn(1, 1, 1, 1), mg.randn(1, 1, 2, 2), padding=1)
    with pytest.raises(ValueError, match=r"conv_transpose3d: .*\(0 x 0 x 0\)\. Output size is too small"):
        F.conv_transpose3d(mg.randn(1, 1, 1, 1, 1), mg.randn(1, 1, 2, 2, 2), padding=1)


# --- interpolate(antialias=True): PyTorch's (PIL's) widened, renormalized filters ---

_GRID = mg.arange(12.0, dtype="float64").reshape(1, 1, 3, 4)
_SQUARES = mg.arange(20.0, dtype="float64").reshape(1, 1, 4, 5) ** 2 / 10
# torch.nn.functional.interpolate(<the same input as a float64 torch tensor>, <the same arguments>).tolist()
ANTIALIASED = [
    (_GRID, dict(size=(2, 3), mode="bilinear"), [[1.8, 3.0, 4.2], [6.8, 8.0, 9.2]]),
    (_GRID, dict(size=(2, 3), mode="bicubic"), [[1.4290966791673865, 2.7391653290529696, 4.049233978938553],
                                                [6.9507660210614475, 8.26083467094703, 9.570903320832613]]),
    (_SQUARES, dict(scale_factor=(0.5, 0.45), mode="bicubic", align_corners=True),
     [[8.784388378900417, 12.346962471490773], [25.64214248733404, 32.72467269926838]]),
    (_SQUARES, dict(scale_factor=(0.5, 0.45), mode="bilinear"),
     [[3.2051948051948047, 5.325974025974025], [16.276623376623377, 21.46883116883117]]),
]


@pytest.mark.parametrize("case", range(len(ANTIALIASED)))
def test_antialiased_interpolation_matches_pytorch(case):
    x, kwargs, want = ANTIALIASED[case]
    np.testing.assert_allclose(F.interpolate(x, antialias=True, **kwargs).numpy()[0, 0], want, rtol=1e-12)
    x32 = x.to("float32")
    out32 = F.interpolate(x32, antialias=True, **kwargs)
    assert out32.dtype == "float32"
    np.testing.assert_allclose(out32.numpy()[0, 0], want, rtol=1e-5)
    resize = lambda t: F.interpolate(t, antialias=True, **kwargs)  # noqa: E731
    leaf = x.detach().requires_grad_()
    assert gradcheck(resize, leaf, modes=("rev", "fwd"))
    out, tangent = mg.func.jvp(resize, (x,), (mg.ones_like(x),))
    np.testing.assert_allclose(tangent.numpy(), np.ones(out.shape), rtol=1e-12)  # the weights sum to 1
    checkpoint(resize, leaf).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), mg.func.grad(lambda t: resize(t).sum())(x).numpy())
    on_strict = F.interpolate(x32.to("strict-f32"), antialias=True, **kwargs)
    np.testing.assert_allclose(on_strict.to("cpu").numpy(), out32.numpy(), rtol=1e-6)


def test_antialias_copies_an_unchanged_axis_and_refuses_other_modes():
    # F.interpolate(torch.arange(12.).reshape(1, 1, 3, 4), scale_factor=1.3, mode='bicubic', antialias=True)[0, 0, :, 0]
    # -> [-0.0489, 3.9511, 7.9511]: the 3 rows are copied, only the columns resampled (antialias=False: not copied)
    out = F.interpolate(_GRID, scale_factor=1.3, mode="bicubic", antialias=True)
    np.testing.assert_allclose(out.numpy()[0, 0, :, 0], [-0.0489, 3.9511, 7.9511], atol=1e-4)
    # torch: ValueError "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D
    # tensor as input" for mode='nearest' and for a 3-D input with mode='linear'
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(_GRID, size=2, mode="nearest", antialias=True)
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(mg.zeros(1, 1, 5), size=2, mode="linear", antialias=True)


def test_antialias_to_one_column_is_the_transpose_of_one_row():
    # torch 2.13: F.interpolate(<_GRID>, size=(2, 1), mode='bilinear', antialias=True)[0, 0] -> [[3.0], [3.0]],
    # every output row the first one's value (whenever the output is one column wide, taller than one row, and
    # the height changes), while the transposed call, size=(1, 2) of the 4x3 transpose, gives [[3.0, 8.0]] --
    # the separable filter's answer. The engine gives that answer both ways (docs/from-pytorch.md).
    out = F.interpolate(_GRID, size=(2, 1), mode="bilinear", antialias=True)
    np.testing.assert_allclose(out.numpy()[0, 0], [[3.0], [8.0]], rtol=1e-12)
    transposed = F.interpolate(_GRID.transpose(-2, -1), size=(1, 2), mode="bilinear", antialias=True)
    np.testing.assert_allclose(transposed.numpy()[0, 0], [[3.0, 8.0]], rtol=1e-12)
    for mode in ("bilinear", "bicubic"):
        x = _SQUARES.detach().requires_grad_()
        tall = F.interpolate(x, size=(3, 1), mode=mode, antialias=True)
        wide = F.interpolate(x.transpose(-2, -1), size=(1, 3), mode=mode, antialias=True)
        np.testing.assert_allclose(tall.numpy()[0, 0, :, 0], wide.numpy()[0, 0, 0], rtol=1e-12)
        resize = lambda t, m=mode: F.interpolate(t, size=(3, 1), mode=m, antialias=True)  # noqa: E731
        assert gradcheck(resize, x, modes=("rev", "fwd"))


def test_circular_padding_wraps_at_most_once():
    # F.pad(torch.arange(3.).reshape(1, 1, 3), (3, 3), mode='circular') -> [0, 1, 2, 0, 1, 2, 0, 1, 2];
    # (4, 0) -> RuntimeError "Padding value causes wrapping around more than once.", and so does
    # nn.Conv1d(1, 1, 2, padding=2, padding_mode='circular')(torch.ones(2, 1, 1))
    row = mg.arange(3.0).reshape(1, 1, 3)
    np.testing.assert_array_equal(F.pad(row, (3, 3), mode="circular").numpy().ravel(), [0, 1, 2] * 3)
    with pytest.raises(ValueError, match="more than once"):
        F.pad(row, (4, 0), mode="circular")
    with pytest.raises(ValueError, match="more than once"):
        mg.nn.Conv1d(1, 1, 2, padding=2, padding_mode="circular")(mg.ones(2, 1, 1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_dilated_window_wholly_in_the_padding_gives_minus_infinity(dtype):
    # F.max_pool2d(torch.arange(4.).reshape(1, 1, 1, 4), 2, stride=1, padding=1, dilation=(2, 1)) -> five -inf
    # (the rows read are -1 and 1 of a height of 1); the old answer was 0, a padding value.  The input's gradient
    # is 0 (PyTorch's backward sends it to an arbitrary index instead)
    x = mg.arange(4.0, dtype=dtype).reshape(1, 1, 1, 4).requires_grad_()
    out = F.max_pool2d(x, 2, stride=1, padding=1, dilation=(2, 1))
    np.testing.assert_array_equal(out.numpy(), np.full((1, 1, 1, 5), -np.inf))
    assert out.dtype == dtype
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((1, 1, 1, 4)))
    # F.max_pool1d(torch.tensor([[[1., 2., 3.]]]), 2, padding=1, dilation=2) -> [[[-inf, -inf]]] ... in 2-D:
    # F.max_pool2d(torch.tensor([[[[1., 2., 3.]]]]), 2, padding=1, dilation=2) -> [[[[-inf, -inf]]]]
    got = F.max_pool2d(mg.tensor([[[[1.0, 2.0, 3.0]]]], dtype=dtype), 2, padding=1, dilation=2)
    np.testing.assert_array_equal(got.numpy(), [[[[-np.inf, -np.inf]]]])
    # F.max_pool1d(torch.arange(10.).reshape(1, 1, 10), 2, stride=3, padding=1, dilation=5, ceil_mode=True) -> [4, 7, 5]
    np.testing.assert_array_equal(F.max_pool1d(mg.arange(10.0, dtype=dtype).reshape(1, 1, 10), 2, stride=3, padding=1,
                                               dilation=5, ceil_mode=True).numpy(), [[[4.0, 7.0, 5.0]]])
    _, tangent = mg.func.jvp(lambda t: F.max_pool2d(t, 2, stride=1, padding=1, dilation=(2, 1)), (x.detach(),),
                             (mg.ones_like(x),))
    np.testing.assert_array_equal(tangent.numpy(), np.zeros((1, 1, 1, 5)))


def test_embedding_bag_last_offset_must_close_the_input():
    weight = mg.arange(8.0).reshape(4, 2)
    # F.embedding_bag(torch.tensor([2, 1, 1, 1]), w, torch.tensor([0, 1, 4]), mode='sum', include_last_offset=True)
    # -> [[4., 5.], [6., 9.]]
    got = F.embedding_bag(mg.tensor([2, 1, 1, 1]), weight, mg.tensor([0, 1, 4]), mode="sum", include_last_offset=True)
    np.testing.assert_array_equal(got.numpy(), [[4.0, 5.0], [6.0, 9.0]])
    # offsets [0, 1, 2] (last offset short of the length 4): torch answers [[4, 5], [2, 3]] in float32 and
    # [[4, 5], [6, 9]] in float64 (its two kernels disagree); the engine raised a bare NumPy boolean-index error
    with pytest.raises(ValueError, match="last offset must be the input's length 4"):
        F.embedding_bag(mg.tensor([2, 1, 1, 1]), weight, mg.tensor([0, 1, 2]), mode="mean", include_last_offset=True)


# --- fractional max pooling (windows at places fixed by _random_samples) ---

_PERM25 = [[1.0, 20.0, 7.0, 21.0, 17.0], [15.0, 23.0, 16.0, 24.0, 11.0], [2.0, 22.0, 12.0, 10.0, 3.0],
           [4.0, 5.0, 8.0, 0.0, 9.0], [14.0, 18.0, 13.0, 6.0, 19.0]]  # np.random.default_rng(1).permutation(25)


def _fractional2d(x):
    samples = mg.tensor([[[0.3, 0.7]]], dtype=x.dtype, device=x.device)
    return F.fractional_max_pool2d(x, 2, output_size=(3, 3), _random_samples=samples)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fractional_max_pool_matches_pytorch(dtype):
    x = mg.tensor([[_PERM25]], dtype=dtype)
    # F.fractional_max_pool2d(x, 2, output_size=(3, 3), return_indices=True,
    #                         _random_samples=torch.tensor([[[0.3, 0.7]]], dtype=torch.float64))
    out, idx = F.fractional_max_pool2d(x, 2, output_size=(3, 3), return_indices=True,
                                       _random_samples=mg.tensor([[[0.3, 0.7]]], dtype=dtype))
    np.testing.assert_array_equal(out.numpy(), [[[[23, 23, 24], [23, 23, 24], [18, 18, 19]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[6, 6, 8], [6, 6, 8], [21, 21, 24]]]])
    assert out.dtype == dtype and idx.dtype == np.int64
    # the float32 input, kernel (2, 3), output (4, 2), samples [[[0.9, 0.1]]] (the width's first)
    out, idx = F.fractional_max_pool2d(x, (2, 3), output_size=(4, 2), return_indices=True,
                                       _random_samples=mg.tensor([[[0.9, 0.1]]], dtype=dtype))
    np.testing.assert_array_equal(out.numpy(), [[[[23, 24], [23, 24], [22, 12], [18, 19]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[6, 8], [6, 8], [11, 12], [21, 24]]]])
    # x3 = np.random.default_rng(2).permutation(125).reshape(1, 1, 5, 5, 5); F.fractional_max_pool3d(x3, 2,
    # output_size=(2, 3, 2), return_indices=True, _random_samples=torch.tensor([[[0.2, 0.5, 0.9]]]))
    x3 = mg.tensor(np.random.default_rng(2).permutation(125).reshape(1, 1, 5, 5, 5), dtype=dtype)
    out, idx = F.fractional_max_pool3d(x3, 2, output_size=(2, 3, 2), return_indices=True,
                                       _random_samples=mg.tensor([[[0.2, 0.5, 0.9]]], dtype=dtype))
    np.testing.assert_array_equal(out.numpy(), [[[[[89, 124], [108, 110], [117, 111]],
                                                  [[112, 116], [119, 83], [105, 123]]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[[25, 9], [41, 14], [21, 23]], [[75, 78], [111, 114], [115, 98]]]]])
    # a window with two NaNs: PyTorch's kernel keeps the last -> index 2
    nan = float("nan")
    _, idx = F.fractional_max_pool2d(mg.tensor([[[[1.0, nan], [nan, 0.0]]]], dtype=dtype), 2, output_size=1,
                                     return_indices=True, _random_samples=mg.tensor([[[0.5, 0.5]]], dtype=dtype))
    assert idx.item() == 2


def test_fractional_max_pool_seams_and_layer():
    x = mg.tensor([[_PERM25]], dtype="float64", requires_grad=True)
    assert gradcheck(_fractional2d, x, modes=("rev", "fwd"))
    assert gradgradcheck(_fractional2d, x)
    checkpoint(_fractional2d, x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), mg.func.grad(lambda t: _fractional2d(t).sum())(x.detach()).numpy())
    on_strict = _fractional2d(x.detach().to("float32").to("strict-f32"))
    np.testing.assert_array_equal(on_strict.to("cpu").numpy(), _fractional2d(x).numpy())
    # torch.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=s): repr 'FractionalMaxPool2d()', the samples
    # a buffer in state_dict (none when not given); output_ratio outside (0, 1) is a ValueError
    layer = mg.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=mg.tensor([[[0.3, 0.7]]], dtype="float64"))
    assert repr(layer) == "FractionalMaxPool2d()" and list(layer.state_dict()) == ["_random_samples"]
    np.testing.assert_array_equal(layer(x).numpy(), _fractional2d(x).numpy())
    assert list(mg.nn.FractionalMaxPool3d(2, output_ratio=0.5).state_dict()) == []
    assert mg.nn.FractionalMaxPool3d(2, output_ratio=0.5)(mg.randn(2, 4, 4, 6)).shape == (2, 2, 2, 3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        mg.nn.FractionalMaxPool2d(2, output_ratio=1.5)
    # F.fractional_max_pool2d(torch.randn(1, 1, 5, 5), 3, output_size=4): "pool height 3 too large relative to
    # input height 5"; the 3-D one is one stricter: fractional_max_pool3d(randn(1, 1, 5, 5, 5), 3, output_size=3)
    with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 5"):
        F.fractional_max_pool2d(mg.randn(1, 1, 5, 5), 3, output_size=4)
    with pytest.raises(RuntimeError, match="pool time 3 too large relative to input time 5"):
        F.fractional_max_pool3d(mg.randn(1, 1, 5, 5, 5), 3, output_size=3)


def test_fractional_max_pools_refuse_complex():
    # torch: "fractional_max_pool2d_out_frame" not implemented for 'ComplexDouble'
    z = mg.ones((1, 1, 4, 4), dtype="complex128")
    with pytest.raises(TypeError, match="fractional_max_pool2d"):
        F.fractional_max_pool2d(z, 2, output_size=2)
    with pytest.raises(TypeError, match="fractional_max_pool3d"):
        F.fractional_max_pool3d(mg.ones((1, 1, 4, 4, 4), dtype="complex128"), 2, output_size=2)


def test_nearest_interpolation_of_uint8_images():
    x = mg.tensor(np.arange(6, dtype=np.uint8).reshape(1, 1, 2, 3) * 40)
    # F.interpolate(torch.arange(6, dtype=torch.uint8).reshape(1, 1, 2, 3) * 40, scale_factor=2.1, mode='nearest')
    out = F.interpolate(x, scale_factor=2.1, mode="nearest")
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out.numpy(), [[[[0, 0, 40, 40, 80, 80]] * 2 + [[120, 120, 160, 160, 200, 200]] * 2]])
    # ... size=(3, 2), mode='nearest-exact' -> [[0, 80], [120, 200], [120, 200]]
    np.testing.assert_array_equal(F.interpolate(x, size=(3, 2), mode="nearest-exact").numpy(),
                                  [[[[0, 80], [120, 200], [120, 200]]]])
    # torch: int64 input is refused ("not implemented for 'Long'"); uint8 bilinear is PyTorch's fixed-point
    # kernel, not offered here: both are clear errors
    with pytest.raises(TypeError, match="uint8 with the nearest modes"):
        F.interpolate(x.to("int64"), size=4)
    with pytest.raises(TypeError, match="uint8 with the nearest modes"):
        F.interpolate(x, size=4, mode="bilinear")


def test_one_hot_of_an_empty_tensor_needs_num_classes():
    empty = mg.tensor(np.zeros(0, dtype=np.int64))
    # F.one_hot(torch.zeros(0, dtype=torch.long)) -> RuntimeError "Can not infer total number of classes from
    # empty tensor." (the engine gave a (0, 0) tensor); with num_classes=3 -> shape (0, 3)
    with pytest.raises(ValueError, match="empty tensor"):
        F.one_hot(empty)
    assert F.one_hot(empty, 3).shape == (0, 3)


def test_conv_layers_check_padding_strings_and_groups_when_built():
    nn = mg.nn
    # torch.nn.Conv2d(4, 4, 3, stride=2, padding='same'): ValueError "padding='same' is not supported for strided
    # convolutions" (also Conv1d, Conv3d(stride=(1, 2, 1))); padding='full': "Invalid padding string 'full'";
    # groups=0: "groups must be a positive integer" (a ZeroDivisionError here before; the strings were accepted
    # until the first forward)
    for build in (lambda: nn.Conv2d(4, 4, 3, stride=2, padding="same"),
                  lambda: nn.Conv1d(4, 4, 3, stride=2, padding="same"),
                  lambda: nn.Conv3d(4, 4, 3, stride=(1, 2, 1), padding="same")):
        with pytest.raises(ValueError, match="not supported for strided"):
            build()
    with pytest.raises(ValueError, match="Invalid padding string 'full', should be one of"):
        nn.Conv2d(4, 4, 3, padding="full")
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv2d(4, 4, 3, groups=0)
    assert nn.Conv1d(4, 4, 3, padding="valid").padding == "valid"
    assert nn.Conv3d(4, 4, 3, padding="same")(mg.randn(1, 4, 3, 3, 3)).shape == (1, 4, 3, 3, 3)
