"""The activations, dropouts, distances, rearrangements and losses that complete PyTorch's
``nn.functional`` list: derivatives of every order in both modes against central
differences, float32 in and out, the strict stand-in device, checkpoint replay of the random
ones, and clear errors.  Their values are checked against PyTorch in ``test_nn_vs_torch.py``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)


def _const(x, values):
    return mg.tensor(np.asarray(values, dtype=x.dtype), device=x.device)


SIGNS = np.array([[1, -1, 1, 1, -1], [-1, -1, 1, -1, 1], [1, 1, -1, 1, -1], [-1, 1, 1, -1, 1]])
LABELS = np.array([[3, 0, -1, 1, 1], [1, 2, 3, -1, 0], [-1, 0, 0, 0, 0], [0, 1, 2, 3, 4]])

GRID_IMAGE = np.arange(20.0).reshape(1, 1, 4, 5) ** 1.5 / 10
GRID_POINTS = np.array([[[[0.13, -0.71], [1.31, 0.22]], [[-1.47, 0.93], [0.52, 1.77]]]])  # some outside [-1, 1]

# every call takes one (4, 5) tensor
CALLS = {
    "softmin": lambda x: F.softmin(x, dim=1),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, 0.7),
    "glu": lambda x: F.glu(x[:, :4]),
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "softsign": F.softsign,
    "tanhshrink": F.tanhshrink,
    "threshold": lambda x: F.threshold(x, 0.1, -2.0),
    "softshrink": F.softshrink,
    "hardshrink": F.hardshrink,
    "rrelu_eval": F.rrelu,
    "normalize": lambda x: F.normalize(x, p=3.0),
    "cosine_similarity": lambda x: F.cosine_similarity(x, x[::-1] * 2 + 1),
    "pairwise_distance": lambda x: F.pairwise_distance(x, x[::-1], p=1.5),
    "pdist": lambda x: F.pdist(x),
    "cdist": lambda x: mg.cdist(x, x[:2] * 0.5 + 1, p=3.0),
    "pixel_shuffle": lambda x: F.pixel_shuffle(mg.reshape(x, (1, 4, 5, 1)), 2),
    "pixel_unshuffle": lambda x: F.pixel_unshuffle(mg.reshape(x, (1, 1, 4, 5))[..., :4], 2),
    "margin_ranking_loss": lambda x: F.margin_ranking_loss(x, x[::-1], _const(x, SIGNS), 0.3),
    "hinge_embedding_loss": lambda x: F.hinge_embedding_loss(x, _const(x, SIGNS), 0.4),
    "soft_margin_loss": lambda x: F.soft_margin_loss(x, _const(x, SIGNS)),
    "multilabel_soft_margin_loss": lambda x: F.multilabel_soft_margin_loss(x, _const(x, SIGNS > 0)),
    "multi_margin_loss": lambda x: F.multi_margin_loss(x, mg.tensor([1, 0, 4, 2], device=x.device), p=2),
    "multilabel_margin_loss": lambda x: F.multilabel_margin_loss(x, mg.tensor(LABELS, device=x.device)),
    "triplet_margin_loss": lambda x: F.triplet_margin_loss(x, x[::-1], x * 0.5 + 1, swap=True),
    "poisson_nll_loss": lambda x: F.poisson_nll_loss(x, _const(x, np.abs(SIGNS) * 3), full=True),
    "gaussian_nll_loss": lambda x: F.gaussian_nll_loss(x, x[::-1], mg.exp(x[:, :1]), full=True),
    "interpolate_nearest": lambda x: F.interpolate(x[None], scale_factor=1.7),
    "interpolate_nearest_exact": lambda x: F.interpolate(x[None, None], size=(3, 7), mode="nearest-exact"),
    "interpolate_linear": lambda x: F.interpolate(x[None], size=8, mode="linear"),
    "interpolate_bilinear_corners": lambda x: F.interpolate(x[None, None], size=(5, 3), mode="bilinear",
                                                            align_corners=True),
    "interpolate_bicubic": lambda x: F.interpolate(x[None, None], scale_factor=1.5, mode="bicubic"),
    "interpolate_trilinear": lambda x: F.interpolate(mg.reshape(x, (1, 1, 2, 2, 5)), size=(3, 3, 3),
                                                     mode="trilinear"),
    "interpolate_area": lambda x: F.interpolate(x[None, None], size=(3, 2), mode="area"),
    "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x[None], 3),
    "adaptive_max_pool1d": lambda x: F.adaptive_max_pool1d(x[None], 3),
    "max_unpool2d": lambda x: F.max_unpool2d(*F.max_pool2d(x[None, None], 2, return_indices=True), 2,
                                             output_size=(4, 5)),
    "max_unpool1d": lambda x: F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2),
    "unfold": lambda x: F.unfold(x[None, None], 2, padding=1, stride=(1, 2)),
    "fold": lambda x: F.fold(mg.reshape(x, (1, 4, 5)), (2, 6), 2),
    "local_response_norm": lambda x: F.local_response_norm(x[None, :, :, None], 3, alpha=0.5),
    "instance_norm": lambda x: F.instance_norm(x[None], weight=_const(x, [1.0, 2.0, -1.0, 0.5]),
                                               bias=_const(x, [0.0, 1.0, 2.0, 3.0])),
    "embedding_bag_mean": lambda x: F.embedding_bag(mg.tensor([0, 3, 3, 1, 2], device=x.device), x,
                                                    mg.tensor([0, 2, 2], device=x.device)),
    "embedding_bag_weighted_sum": lambda x: F.embedding_bag(mg.tensor([[0, 3], [1, 2]], device=x.device), x,
                                                            mode="sum", per_sample_weights=x[:2, :2] * 0.5),
    "embedding_bag_max": lambda x: F.embedding_bag(mg.tensor([0, 3, 1, 2], device=x.device), x,
                                                   mg.tensor([0, 3], device=x.device), mode="max"),
    "affine_grid": lambda x: F.affine_grid(mg.reshape(x[:, :3][:2], (1, 2, 3)), (1, 1, 3, 4)),
    "grid_sample_bilinear_grid": lambda x: F.grid_sample(mg.reshape(x, (1, 1, 4, 5)) * 0 + _const(x, GRID_IMAGE),
                                                         mg.reshape(x[:, :4] * 0.37, (1, 2, 4, 2))),
    "grid_sample_reflection": lambda x: F.grid_sample(mg.reshape(x, (1, 1, 4, 5)), _const(x, GRID_POINTS),
                                                      padding_mode="reflection", align_corners=True),
    "conv3d": lambda x: F.conv3d(mg.reshape(x, (1, 2, 2, 5, 1)), mg.reshape(x[:2, :4], (2, 2, 2, 1, 1)) * 0.3,
                                 padding=(1, 0, 0), stride=(1, 2, 1)),
    "adaptive_avg_pool3d": lambda x: F.adaptive_avg_pool3d(mg.reshape(x, (1, 1, 2, 2, 5)), (1, 2, 3)),
    "max_pool3d": lambda x: F.max_pool3d(mg.reshape(x, (1, 1, 2, 2, 5)), 2, padding=1, ceil_mode=True),
    "avg_pool3d": lambda x: F.avg_pool3d(mg.reshape(x, (1, 1, 2, 2, 5)), 2, 1, 1, count_include_pad=False),
    "conv_transpose1d": lambda x: F.conv_transpose1d(x[None], mg.reshape(x[:, :4] * 0.5, (4, 2, 2)), stride=2),
    "conv_transpose3d": lambda x: F.conv_transpose3d(mg.reshape(x, (1, 2, 2, 5, 1)), mg.reshape(x[:2, :4] * 0.3,
                                                                                             (2, 1, 2, 2, 1)),
                                                     x[0, :2], stride=(2, 1, 2), padding=(1, 0, 0),
                                                     output_padding=(1, 0, 1), groups=2, dilation=(1, 2, 1)),
    "adaptive_max_pool3d": lambda x: F.adaptive_max_pool3d(mg.reshape(x, (1, 1, 2, 2, 5)), (1, 2, 3)),
    "max_unpool3d": lambda x: F.max_unpool3d(*F.max_pool3d(mg.reshape(x, (1, 1, 2, 2, 5)), (1, 2, 2),
                                                            return_indices=True), (1, 2, 2), output_size=(2, 2, 5)),
}


def _input(dtype="float64", device="cpu"):
    # values away from every kink these functions have (0, +-0.5, +-3, 0.1 and the hinges' margins)
    rng = np.random.default_rng(11)
    x = rng.uniform(0.6, 2.5, (4, 5)) * np.where(rng.random((4, 5)) < 0.5, -1, 1)
    return mg.tensor(x.astype(dtype), device=device, requires_grad=True)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_derivatives_both_modes_and_second_order(name):
    x = _input()
    assert gradcheck(CALLS[name], x, modes=("rev", "fwd"))
    assert gradgradcheck(CALLS[name], x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_stays_float32(name):
    x = _input("float32")
    out = CALLS[name](x)
    assert out.dtype == np.float32, out.dtype
    (g,) = mg.grad(out.sum(), [x])
    assert g.dtype == np.float32 and np.isfinite(g.numpy()).all()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strict_device_matches_the_cpu(name):
    x, xs = _input(), _input(device="strict")
    out, outs = CALLS[name](x), CALLS[name](xs)
    assert str(outs.device) == "strict:0"
    np.testing.assert_allclose(outs.numpy(), out.numpy(), rtol=1e-14, atol=1e-14)
    (g,), (gs,) = mg.grad(out.sum(), [x]), mg.grad(outs.sum(), [xs])
    np.testing.assert_allclose(gs.numpy(), g.numpy(), rtol=1e-14, atol=1e-14)


def test_distances_at_coincident_points_have_a_finite_gradient():
    # PyTorch's subgradient 0 at a zero distance (p = 2), for pdist and cdist alike
    x = mg.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]], dtype="float64", requires_grad=True)
    for d in (F.pdist(x), mg.cdist(x, x)):
        (g,) = mg.grad(d.sum(), [x])
        assert np.isfinite(g.numpy()).all()


# torch 2.13: a = torch.tensor(ROWS, dtype=torch.float64, requires_grad=True), then
# (torch.pdist(a, p=inf) * torch.arange(1., 7)).sum().backward() and
# (torch.cdist(a, b, p=inf) * torch.arange(1., 9).reshape(4, 2)).sum().backward(), b = CENTRES
ROWS = [[1.0, 2.0, -1.0], [1.0, 2.0, -1.0], [0.0, 4.0, 1.0], [3.0, 0.0, -1.0]]
CENTRES = [[2.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]
PDIST_INF = [0.0, 2.0, 2.0, 2.0, 2.0, 4.0]
PDIST_INF_GRAD = [[-3.0, 1.0, -2.0], [-5.0, 1.0, -4.0], [0.0, 12.0, 6.0], [8.0, -14.0, 0.0]]
CDIST_INF = [[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [1.0, 4.0]]
CDIST_INF_GRADS = ([[1.0, 3.0, -3.0], [1.0, 7.0, -7.0], [0.0, 11.0, 0.0], [15.0, -7.0, -7.0]],
                   [[-3.0, -2.0, 11.0], [-14.0, -12.0, 6.0]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inf_distances_give_every_tied_coordinate_the_whole_gradient_as_pytorchs(dtype):
    # PyTorch's pdist and cdist kernels differentiate max |a_k - b_k| as sign(a_k - b_k) at every
    # coordinate that ties the maximum (rows 0 and 2 differ by 1, 2, 2), where its vector_norm and
    # amax share a tie evenly; the distances are those kernels', so their gradient is too
    a = mg.tensor(ROWS, dtype=dtype, requires_grad=True)
    d = F.pdist(a, p=float("inf"))
    np.testing.assert_array_equal(d.detach().numpy(), PDIST_INF)
    (d * mg.arange(1.0, 7.0, dtype=dtype)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), PDIST_INF_GRAD)
    a.grad = None
    b = mg.tensor(CENTRES, dtype=dtype, requires_grad=True)
    d = mg.cdist(a, b, p=float("inf"))
    np.testing.assert_array_equal(d.detach().numpy(), CDIST_INF)
    (d * mg.arange(1.0, 9.0, dtype=dtype).reshape(4, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), CDIST_INF_GRADS[0])
    np.testing.assert_array_equal(b.grad.numpy(), CDIST_INF_GRADS[1])
    # an infinite distance keeps its value (the tie construction would make it inf - inf)
    far = mg.tensor([[math.inf, 0.0], [0.0, 0.0]], dtype=dtype)
    assert F.pdist(far, p=float("inf")).item() == math.inf


def test_random_activations_replay_under_checkpointing():
    mg.manual_seed(3)
    x = mg.randn(6, 7, dtype="float64", requires_grad=True)
    for fn in (lambda t: F.rrelu(mg.tanh(t), training=True), lambda t: F.alpha_dropout(mg.tanh(t), 0.3, True),
               lambda t: F.dropout1d(mg.tanh(t), 0.5), lambda t: F.dropout3d(mg.tanh(t)[None, :, :, None, None])):
        mg.manual_seed(5)
        plain = fn(x)
        (g_plain,) = mg.grad(plain.sum(), [x])
        mg.manual_seed(5)
        replayed = ck.checkpoint(fn, x)
        (g_ck,) = mg.grad(replayed.sum(), [x])
        np.testing.assert_array_equal(replayed.numpy(), plain.numpy())
        np.testing.assert_array_equal(g_ck.numpy(), g_plain.numpy())


def test_rrelu_slopes_lie_between_lower_and_upper_and_eval_uses_their_mean():
    x = -mg.ones(1000, dtype="float64")
    slopes = -F.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and np.unique(slopes).size > 100
    np.testing.assert_allclose(F.rrelu(x, 0.1, 0.3).numpy(), -0.2)
    layer = nn.RReLU(0.1, 0.3)
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2)


def test_alpha_dropout_keeps_selu_statistics_and_channel_dropouts_drop_channels():
    mg.manual_seed(0)
    y = F.alpha_dropout(F.selu(mg.randn(400, 250, dtype="float64")), 0.2, training=True)
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
    per_channel = F.dropout1d(mg.ones(8, 16, 5), 0.5).numpy()
    assert set(np.unique(per_channel.std(axis=2))) == {0.0}
    per_channel = F.dropout3d(mg.ones(2, 16, 2, 2, 2), 0.5).numpy().reshape(2, 16, 8)
    assert set(np.unique(per_channel.std(axis=2))) == {0.0}
    for layer in (nn.Dropout1d(0.5), nn.Dropout3d(0.5), nn.AlphaDropout(0.5)):
        layer.eval()
        x = mg.randn(2, 3, 4, 4, 4) if isinstance(layer, nn.Dropout3d) else mg.randn(2, 3, 4)
        np.testing.assert_array_equal(layer(x).numpy(), x.numpy())


def test_block_layers():
    x = mg.randn(2, 3, 6, 6, dtype="float64")
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    np.testing.assert_array_equal(nn.MaxUnpool2d(2)(out, idx).numpy(), F.max_unpool2d(out, idx, 2).numpy())
    assert nn.Fold((6, 6), 3)(nn.Unfold(3)(x)).shape == x.shape
    norm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True, dtype="float64")
    norm(x)
    assert not np.allclose(norm.running_mean.numpy(), 0)
    norm.eval()
    np.testing.assert_allclose(norm(x).numpy(), F.instance_norm(x, norm.running_mean, norm.running_var,
                                                                norm.weight, norm.bias, False).numpy())
    assert nn.InstanceNorm1d(3)(mg.randn(3, 7)).shape == (3, 7)
    assert nn.LocalResponseNorm(2)(x).shape == x.shape
    assert nn.ConvTranspose1d(3, 4, 3, stride=2)(mg.randn(3, 5)).shape == (4, 11)
    out, idx = nn.AdaptiveMaxPool1d(2, return_indices=True)(mg.randn(2, 3, 5))
    assert out.shape == idx.shape == (2, 3, 2) and nn.AdaptiveAvgPool1d(4)(mg.randn(3, 9)).shape == (3, 4)
    assert nn.Conv3d(3, 4, 2, padding="same")(mg.randn(2, 3, 4, 4, 4)).shape == (2, 4, 4, 4, 4)
    assert nn.AdaptiveAvgPool3d((1, None, 2))(mg.randn(3, 4, 5, 6)).shape == (3, 1, 5, 2)
    bag = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0)
    assert bag(mg.tensor([0, 4, 5]), mg.tensor([0, 1])).shape == (2, 3)
    np.testing.assert_array_equal(bag(mg.tensor([0]), mg.tensor([0])).numpy(), 0.0)


def test_max_unpool_writes_a_repeated_index_once():
    # overlapping windows pick one element twice: it is written once (PyTorch's value); its gradient
    # is the derivative of that write (PyTorch's backward gives both copies the gradient)
    x = mg.tensor([[[0.0, 5.0, 1.0, 0.0]]], dtype="float64")
    out, idx = F.max_pool1d(x, 2, 1, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), [[[1, 1, 2]]])
    v = out.detach().requires_grad_()
    up = F.max_unpool1d(v, idx, 2, 1)
    np.testing.assert_array_equal(up.numpy(), [[[0.0, 5.0, 1.0, 0.0]]])
    assert gradcheck(lambda t: F.max_unpool1d(t, idx, 2, 1), v)


def test_layers_call_their_functions():
    x = _input()
    assert np.allclose(nn.Softmin(dim=0)(x).numpy(), F.softmin(x, dim=0).numpy())
    assert np.allclose(nn.GLU(dim=0)(x).numpy(), F.glu(x, dim=0).numpy())
    assert np.allclose(nn.CosineSimilarity(dim=1)(x, x * 2).numpy(), 1.0)
    assert nn.PairwiseDistance(p=1.0)(x, x).shape == (4,)
    assert nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(mg.randn(1, 8, 3, 3))).shape == (1, 8, 3, 3)
    y = mg.tensor(SIGNS, dtype="float64")
    assert np.isclose(nn.MarginRankingLoss(0.2)(x, x[::-1], y).item(), F.margin_ranking_loss(x, x[::-1], y, 0.2).item())
    assert nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: mg.abs(a - b).sum(-1))(
        x, x, x[::-1]).shape == ()
    assert nn.GaussianNLLLoss(reduction="none")(x, x, mg.ones(4, 5)).shape == (4, 5)
    assert repr(nn.Softshrink(1.0)) == "Softshrink(1.0)" and "threshold=0.5" in repr(nn.Threshold(0.5, 0.0))


@pytest.mark.parametrize("call, error, match", [
    (lambda: F.glu(mg.ones(3, 5)), ValueError, "even length"),
    (lambda: F.celu(mg.ones(3), alpha=0.0), ValueError, "alpha"),
    (lambda: F.softshrink(mg.ones(3), -1.0), ValueError, "lambd"),
    (lambda: F.rrelu(mg.ones(3), 0.5, 0.1), RuntimeError, "Lower bound should be less than or equal"),
    (lambda: F.dropout1d(mg.ones(2, 3, 4, 5)), RuntimeError, "dropout1d: Expected 2D or 3D input"),
    (lambda: F.alpha_dropout(mg.ones(3), 1.5, True), ValueError, "p must be"),
    (lambda: F.pdist(mg.ones(3)), ValueError, "2-D"),
    (lambda: mg.cdist(mg.ones(3, 2), mg.ones(3, 4)), ValueError, "cdist"),
    (lambda: F.pixel_shuffle(mg.ones(1, 3, 2, 2), 2), ValueError, "pixel_shuffle"),
    (lambda: F.pixel_unshuffle(mg.ones(1, 3, 3, 2), 2), ValueError, "pixel_unshuffle"),
    (lambda: F.multi_margin_loss(mg.ones(2, 3), mg.tensor([0, 3])), ValueError, "target out of range"),  # torch's
    (lambda: F.multi_margin_loss(mg.ones(2, 3), mg.tensor([0.0, 1.0])), TypeError, "expected scalar type Long"),
    (lambda: F.multi_margin_loss(mg.ones(2, 3), mg.tensor([0, 1]), p=3), ValueError, "p must be 1 or 2"),
    (lambda: F.multilabel_margin_loss(mg.ones(2, 3), mg.tensor([[0, 5, -1], [0, 1, 2]])), ValueError,
     "'target' is out of range"),  # (torch 2.13's words; a RuntimeError too)
    (lambda: F.gaussian_nll_loss(mg.ones(2, 3), mg.ones(2, 3), -mg.ones(2, 3)), ValueError, "negative"),
    (lambda: F.gaussian_nll_loss(mg.ones(2, 3), mg.ones(2, 3), mg.ones(3, 2)), ValueError, "does not fit"),
    (lambda: F.triplet_margin_loss(mg.ones(2), mg.ones(2), mg.ones(2), margin=0.0), ValueError, "margin"),
    (lambda: F.soft_margin_loss(mg.ones(2), mg.ones(2), reduction="avg"), ValueError, "reduction"),
    (lambda: F.interpolate(mg.ones(1, 1, 4), size=3, mode="bilinear"), ValueError, "2 spatial axes"),
    (lambda: F.max_unpool2d(mg.ones(1, 1, 2, 2), mg.tensor([[[[0, 1], [2, 99]]]]), 2), ValueError,
     "Found an invalid max index: 99"),  # (torch 2.13's words; a RuntimeError too)
    (lambda: F.max_unpool2d(mg.ones(1, 1, 2, 2), mg.ones(1, 1, 2, 2), 2), ValueError, "integers"),
    (lambda: F.fold(mg.ones(1, 4, 3), (3, 3), 2), ValueError, "blocks"),
    (lambda: F.unfold(mg.ones(1, 1, 2, 2), 3), ValueError, "does not fit"),
    (lambda: F.instance_norm(mg.ones(2, 3)), ValueError, "spatial"),
    (lambda: F.instance_norm(mg.ones(2, 3, 1)), ValueError, "more than 1 spatial"),
    (lambda: F.instance_norm(mg.ones(2, 3, 4), use_input_stats=False), ValueError,
     "instance_norm: Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda: F.local_response_norm(mg.ones(2, 3), 2), ValueError, "spatial"),
    (lambda: F.conv_transpose1d(mg.ones(1, 2, 3), mg.ones(2, 2)), ValueError, "3-D weight"),
    (lambda: F.embedding_bag(mg.tensor([0, 1]), mg.ones(3, 2)), ValueError, "offsets"),
    (lambda: F.grid_sample(mg.ones(1, 1, 2, 2, 2), mg.zeros(1, 2, 2, 2, 3), mode="bicubic"), RuntimeError, "4D"),
    (lambda: F.conv3d(mg.ones(1, 2, 3, 3, 3), mg.ones(1, 2, 2, 2)), ValueError, "5-D weight"),
    (lambda: F.max_pool3d(mg.ones(2, 3, 3), 2), ValueError, "4-D"),
    (lambda: F.avg_pool3d(mg.ones(1, 1, 3, 3, 3), 2, padding=2), ValueError, "padding"),
    (lambda: F.avg_pool3d(mg.ones(1, 1, 3, 3, 3), 2, divisor_override=0), ValueError, "divisor_override"),
    (lambda: F.conv3d(mg.ones(1, 2, 3, 3, 3), mg.ones(1, 3, 2, 2, 2)), ValueError,
     r"expected input\[1, 2, 3, 3, 3\] to have 3 channels"),
    (lambda: F.conv3d(mg.ones(1, 2, 1, 3, 3), mg.ones(1, 2, 2, 2, 2)), ValueError,
     r"Calculated padded input size per channel: \(1 x 3 x 3\)\. Kernel size: \(2 x 2 x 2\)"),
    (lambda: F.conv3d(mg.ones(1, 2, 3, 3, 3), mg.ones(1, 2, 2, 2, 2), stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.grid_sample(mg.ones(1, 1, 2, 2), mg.zeros(1, 2, 2, 2), padding_mode="wrap"), ValueError, "padding"),
    (lambda: F.grid_sample(mg.ones(1, 1, 2, 2, 2), mg.zeros(1, 2, 2, 2)), RuntimeError, "grid"),  # torch's type
    (lambda: F.affine_grid(mg.ones(1, 2, 3), (1, 1, 2, 2, 2)), ValueError, "Nx3x4"),
    (lambda: F.embedding_bag(mg.tensor([[0, 1]]), mg.ones(3, 2), mg.tensor([0])), ValueError, "offsets has to be None"),
    (lambda: F.embedding_bag(mg.tensor([0, 1]), mg.ones(3, 2), mg.tensor([1])), ValueError, "start at 0"),
    (lambda: F.embedding_bag(mg.tensor([0, 1]), mg.ones(3, 2), mg.tensor([0]), mode="min"), ValueError, "mode"),
    (lambda: F.embedding_bag(mg.tensor([0, 1]), mg.ones(3, 2), mg.tensor([0]), per_sample_weights=mg.ones(2)),
     ValueError, "mode='sum'"),
    (lambda: F.interpolate(mg.ones(1, 1, 4), size=3, mode="nearest", align_corners=True), ValueError, "align_corners"),
    (lambda: F.interpolate(mg.ones(1, 1, 4), size=3, scale_factor=2), ValueError, "exactly one"),
    (lambda: F.interpolate(mg.ones(1, 1, 4), mode="cubic", size=3), ValueError, "mode must be"),
    (lambda: F.interpolate(mg.ones(4), size=3), ValueError, "3-D, 4-D or 5-D"),
    (lambda: F.interpolate(mg.ones(1, 1, 4), scale_factor=0.1), RuntimeError, "greater than 0"),  # torch's type
    (lambda: F.interpolate(mg.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True), ValueError, "antialias"),
])

def test_bad_arguments_are_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_interpolate_reads_a_non_finite_input_only_where_its_taps_do():
    x = mg.tensor([[[1.0, np.inf, 3.0, 4.0, 5.0, 6.0]]], dtype="float64")
    out = F.interpolate(x, size=3, mode="linear").numpy()[0, 0]  # sources 0.5, 2.5, 4.5
    assert np.isinf(out[0]) and np.isfinite(out[1:]).all()
    up = nn.Upsample(scale_factor=2, mode="nearest")(x).numpy()[0, 0]
    assert np.isinf(up[2:4]).all() and np.isfinite(np.delete(up, [2, 3])).all()
