"""PyTorch's keyword names on ``nn.functional``, ``nn.init`` and ``nn.utils.clip_grad_*``: a ported call
that names an argument (``F.relu(input=x)``, ``F.conv2d(input=x, weight=w)``, ``init.constant_(tensor=w,
val=0)``) must find the name here.

``TORCH_KEYWORDS`` is torch 2.13's: for a Python function the parameters of
``inspect.signature(torch.nn.functional.<name>)`` that can be passed by keyword (for the max pools, of
``<name>_with_indices``, which their dispatcher calls); for one written in C (no Python signature) the
names of its schema, each checked offline by a call with every argument as a keyword
(``F.conv2d(input=x, weight=w)``, ``F.one_hot(input=t, num_classes=3)``). ``KNOWN_MISSING`` lists what
minigrad does not take yet: a name taken off it must be taken, a name missing and not listed fails.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

TORCH_KEYWORDS = {
    "adaptive_avg_pool1d": "input output_size",
    "adaptive_avg_pool2d": "input output_size",
    "adaptive_avg_pool3d": "input output_size",
    "affine_grid": "theta size align_corners",
    "alpha_dropout": "input p training inplace",
    "avg_pool1d": "input kernel_size stride padding ceil_mode count_include_pad",
    "avg_pool2d": "input kernel_size stride padding ceil_mode count_include_pad divisor_override",
    "avg_pool3d": "input kernel_size stride padding ceil_mode count_include_pad divisor_override",
    "batch_norm": "input running_mean running_var weight bias training momentum eps",
    "bilinear": "input1 input2 weight bias",
    "binary_cross_entropy": "input target weight size_average reduce reduction",
    "binary_cross_entropy_with_logits": "input target weight size_average reduce reduction pos_weight",
    "celu": "input alpha inplace",
    "channel_shuffle": "input groups",
    "conv1d": "input weight bias stride padding dilation groups",
    "conv2d": "input weight bias stride padding dilation groups",
    "conv3d": "input weight bias stride padding dilation groups",
    "conv_transpose1d": "input weight bias stride padding output_padding groups dilation",
    "conv_transpose2d": "input weight bias stride padding output_padding groups dilation",
    "conv_transpose3d": "input weight bias stride padding output_padding groups dilation",
    "cosine_embedding_loss": "input1 input2 target margin size_average reduce reduction",
    "cosine_similarity": "x1 x2 dim eps",
    "cross_entropy": "input target weight size_average ignore_index reduce reduction label_smoothing",
    "ctc_loss": "log_probs targets input_lengths target_lengths blank reduction zero_infinity",
    "dropout": "input p training inplace",
    "dropout1d": "input p training inplace",
    "dropout2d": "input p training inplace",
    "dropout3d": "input p training inplace",
    "elu": "input alpha inplace",
    "embedding": "input weight padding_idx max_norm norm_type scale_grad_by_freq sparse",
    "embedding_bag": ("input weight offsets max_norm norm_type "
                      "scale_grad_by_freq mode sparse per_sample_weights include_last_offset padding_idx"),
    "feature_alpha_dropout": "input p training inplace",
    "fold": "input output_size kernel_size dilation padding stride",
    "gaussian_nll_loss": "input target var full eps reduction",
    "gelu": "input approximate",
    "glu": "input dim",
    "grid_sample": "input grid mode padding_mode align_corners",
    "group_norm": "input num_groups weight bias eps",
    "gumbel_softmax": "logits tau hard eps dim",
    "hardshrink": "input lambd",
    "hardsigmoid": "input inplace",
    "hardswish": "input inplace",
    "hardtanh": "input min_val max_val inplace",
    "hinge_embedding_loss": "input target margin size_average reduce reduction",
    "huber_loss": "input target reduction delta weight",
    "instance_norm": "input running_mean running_var weight bias use_input_stats momentum eps",
    "interpolate": "input size scale_factor mode align_corners recompute_scale_factor antialias",
    "kl_div": "input target size_average reduce reduction log_target",
    "l1_loss": "input target size_average reduce reduction weight",
    "layer_norm": "input normalized_shape weight bias eps",
    "leaky_relu": "input negative_slope inplace",
    "linear": "input weight bias",
    "local_response_norm": "input size alpha beta k",
    "log_softmax": "input dim _stacklevel dtype",
    "logsigmoid": "input",
    "lp_pool1d": "input norm_type kernel_size stride ceil_mode",
    "lp_pool2d": "input norm_type kernel_size stride ceil_mode",
    "lp_pool3d": "input norm_type kernel_size stride ceil_mode",
    "fractional_max_pool2d": "input kernel_size output_size output_ratio return_indices _random_samples",
    "fractional_max_pool3d": "input kernel_size output_size output_ratio return_indices _random_samples",
    "margin_ranking_loss": "input1 input2 target margin size_average reduce reduction",
    "max_unpool1d": "input indices kernel_size stride padding output_size",
    "max_unpool2d": "input indices kernel_size stride padding output_size",
    "max_unpool3d": "input indices kernel_size stride padding output_size",
    "mish": "input inplace",
    "mse_loss": "input target size_average reduce reduction weight",
    "multi_margin_loss": "input target p margin weight size_average reduce reduction",
    "multilabel_margin_loss": "input target size_average reduce reduction",
    "multilabel_soft_margin_loss": "input target weight size_average reduce reduction",
    "nll_loss": "input target weight size_average ignore_index reduce reduction",
    "normalize": "input p dim eps out",
    "one_hot": "input num_classes",
    "pad": "input pad mode value",
    "pairwise_distance": "x1 x2 p eps keepdim",
    "pdist": "input p",
    "pixel_shuffle": "input upscale_factor",
    "pixel_unshuffle": "input downscale_factor",
    "poisson_nll_loss": "input target log_input full size_average eps reduce reduction",
    "prelu": "input weight",
    "relu": "input inplace",
    "relu6": "input inplace",
    "rms_norm": "input normalized_shape weight eps",
    "rrelu": "input lower upper training inplace",
    "scaled_dot_product_attention": "query key value attn_mask dropout_p is_causal scale enable_gqa",
    "selu": "input inplace",
    "sigmoid": "input",
    "silu": "input inplace",
    "smooth_l1_loss": "input target size_average reduce reduction beta",
    "soft_margin_loss": "input target size_average reduce reduction",
    "softmax": "input dim _stacklevel dtype",
    "softmin": "input dim _stacklevel dtype",
    "softplus": "input beta threshold",
    "softshrink": "input lambd",
    "softsign": "input",
    "tanh": "input",
    "tanhshrink": "input",
    "threshold": "input threshold value inplace",
    "triplet_margin_loss": "anchor positive negative margin p eps swap size_average reduce reduction",
    "triplet_margin_with_distance_loss": "anchor positive negative distance_function margin swap reduction",
    "unfold": "input kernel_size dilation padding stride",
    "upsample": "input size scale_factor mode align_corners",
    "upsample_bilinear": "input size scale_factor",
    "upsample_nearest": "input size scale_factor",
    "max_pool1d": "input kernel_size stride padding dilation ceil_mode return_indices",
    "max_pool2d": "input kernel_size stride padding dilation ceil_mode return_indices",
    "max_pool3d": "input kernel_size stride padding dilation ceil_mode return_indices",
    "adaptive_max_pool1d": "input output_size return_indices",
    "adaptive_max_pool2d": "input output_size return_indices",
    "adaptive_max_pool3d": "input output_size return_indices",
}

# torch 2.13's names minigrad does not take (yet): none (normalize's out= was the last)
KNOWN_MISSING: dict[str, set[str]] = {}


def _keywords(fn) -> tuple[set[str], bool]:
    params = inspect.signature(fn).parameters.values()
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind == p.VAR_KEYWORD for p in params)


def test_every_functional_takes_pytorchs_keyword_names():
    missing = {}
    for name, words in TORCH_KEYWORDS.items():
        names, any_keyword = _keywords(getattr(F, name))
        lacking = set() if any_keyword else set(words.split()) - names
        if lacking:
            missing[name] = lacking
    assert missing == KNOWN_MISSING


def test_the_first_positional_parameter_has_pytorchs_name():
    """A name only matters by keyword, but a positional call must still land in the same slot:
    torch's first keyword-able name is mg's first parameter (or one of two spellings after it)."""
    for name, words in TORCH_KEYWORDS.items():
        if name in KNOWN_MISSING and words.split()[0] in KNOWN_MISSING[name]:
            continue
        first = next(iter(inspect.signature(getattr(F, name)).parameters))
        assert first == words.split()[0], (name, first)


# torch 2.13's keyword-taking signatures of the other nn functions (inspect.signature, after the first
# parameter, which is `tensor` for nn.init and `parameters` for the clip functions)
OTHER_KEYWORDS = {
    (mg.nn.init, "uniform_"): "tensor a b generator", (mg.nn.init, "normal_"): "tensor mean std generator",
    (mg.nn.init, "constant_"): "tensor val", (mg.nn.init, "zeros_"): "tensor", (mg.nn.init, "ones_"): "tensor",
    (mg.nn.init, "eye_"): "tensor", (mg.nn.init, "dirac_"): "tensor groups",
    (mg.nn.init, "xavier_uniform_"): "tensor gain generator", (mg.nn.init, "xavier_normal_"): "tensor gain generator",
    (mg.nn.init, "kaiming_uniform_"): "tensor a mode nonlinearity generator",
    (mg.nn.init, "kaiming_normal_"): "tensor a mode nonlinearity generator",
    (mg.nn.init, "trunc_normal_"): "tensor mean std a b generator",
    (mg.nn.init, "orthogonal_"): "tensor gain generator", (mg.nn.init, "calculate_gain"): "nonlinearity param",
    (mg.nn.utils, "clip_grad_norm_"): "parameters max_norm norm_type error_if_nonfinite foreach",
    (mg.nn.utils, "clip_grad_value_"): "parameters clip_value foreach",
}


@pytest.mark.parametrize("module, name", sorted(OTHER_KEYWORDS, key=lambda k: k[1]))
def test_init_and_clip_take_pytorchs_keyword_names_in_its_order(module, name):
    params = [p for p in inspect.signature(getattr(module, name)).parameters]
    assert params == OTHER_KEYWORDS[(module, name)].split()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functions_called_with_input_by_keyword_give_the_positional_answer(dtype):
    """torch 2.13 takes input= on each (F.relu(input=x), F.conv2d(input=x, weight=w), ...)."""
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((1, 2, 4, 4)).astype(dtype))
    w = mg.tensor(rng.standard_normal((3, 2, 2, 2)).astype(dtype))
    calls = [
        (lambda: F.relu(input=x), lambda: F.relu(x)),
        (lambda: F.gelu(input=x, approximate="tanh"), lambda: F.gelu(x, "tanh")),
        (lambda: F.softmax(input=x, dim=1), lambda: F.softmax(x, dim=1)),
        (lambda: F.conv2d(input=x, weight=w, stride=2), lambda: F.conv2d(x, w, None, 2)),
        (lambda: F.max_pool2d(input=x, kernel_size=2), lambda: F.max_pool2d(x, 2)),
        (lambda: F.avg_pool2d(input=x, kernel_size=2), lambda: F.avg_pool2d(x, 2)),
        (lambda: F.layer_norm(input=x, normalized_shape=(4,)), lambda: F.layer_norm(x, (4,))),
        (lambda: F.pad(input=x, pad=(1, 1)), lambda: F.pad(x, (1, 1))),
        (lambda: F.dropout(input=x, p=0.5, training=False), lambda: F.dropout(x, 0.5, False)),
        (lambda: F.linear(input=x, weight=w.reshape(3, 8)[:, :4]), lambda: F.linear(x, w.reshape(3, 8)[:, :4])),
        (lambda: F.one_hot(input=mg.tensor([0, 2]), num_classes=3), lambda: F.one_hot(mg.tensor([0, 2]), 3)),
    ]
    for by_keyword, positional in calls:
        np.testing.assert_array_equal(by_keyword().numpy(), positional().numpy())


# torch 2.13, float32 and float64 alike: F.<name>(x, y, reduction=r, weight=w).backward() for
# x = [[0.5, -1, 2], [1.5, 0.25, -0.75]], y = [[0, 1, 0.5], [1, -1, 2]], w = [[1, 0.5, 2], [0, 3, 1.5]]
_WEIGHTED = {
    ("mse_loss", "mean"): (2.84765625, [[0.125, -0.25, 0.75], [0.0, 0.9375, -1.03125]]),
    ("mse_loss", "sum"): (22.78125, [[1.0, -2.0, 6.0], [0.0, 7.5, -8.25]]),
    ("l1_loss", "mean"): (1.546875, [[0.125, -0.0625, 0.25], [0.0, 0.375, -0.1875]]),
    ("l1_loss", "sum"): (12.375, [[1.0, -0.5, 2.0], [0.0, 3.0, -1.5]]),
    ("huber_loss", "mean"): (1.4166666666666667, [[1 / 12, -1 / 12, 1 / 3], [0.0, 0.5, -0.25]]),
    ("huber_loss", "sum"): (8.5, [[0.5, -0.5, 2.0], [0.0, 3.0, -1.5]]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, reduction", sorted(_WEIGHTED))
def test_regression_losses_take_pytorchs_weight(name, reduction, dtype):
    """mse and l1 average over the weights' sum, huber over the count (PyTorch's own difference)."""
    x = mg.tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype), requires_grad=True)
    y = mg.tensor(np.array([[0.0, 1.0, 0.5], [1.0, -1.0, 2.0]], dtype))
    w = mg.tensor(np.array([[1.0, 0.5, 2.0], [0.0, 3.0, 1.5]], dtype))
    loss = getattr(F, name)(x, y, reduction=reduction, weight=w)
    loss.backward()
    want, want_grad = _WEIGHTED[(name, reduction)]
    assert loss.dtype == np.dtype(dtype)
    np.testing.assert_allclose(loss.item(), want, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-6)
    per_element = getattr(F, name)(x, y, reduction="none", weight=w)
    np.testing.assert_allclose(per_element.numpy(), getattr(F, name)(x, y, reduction="none").numpy() * w.numpy())
    with pytest.raises(ValueError, match="same size"):
        getattr(F, name)(x, y, weight=mg.ones(3, dtype=dtype))


@pytest.mark.parametrize("call", [
    lambda a, b, y, **kw: F.margin_ranking_loss(a, b, y, **kw),
    lambda a, b, y, **kw: F.hinge_embedding_loss(a, y, **kw),
    lambda a, b, y, **kw: F.soft_margin_loss(a, y, **kw),
    lambda a, b, y, **kw: F.triplet_margin_loss(a[None], b[None], (a * 2)[None], **kw),
    lambda a, b, y, **kw: F.cosine_embedding_loss(a[None], b[None], y[:1], **kw),
    lambda a, b, y, **kw: F.poisson_nll_loss(a, b, **kw),
    lambda a, b, y, **kw: F.multilabel_soft_margin_loss(a[None], (y[None] > 0) * 1.0, **kw),
])
def test_margin_losses_take_pytorchs_legacy_size_average_and_reduce(call):
    """``size_average=False`` sums and ``reduce=False`` keeps each element, with PyTorch's warning."""
    a, b, y = mg.tensor([0.5, -1.0, 2.0]), mg.tensor([1.0, 0.25, 0.5]), mg.tensor([1.0, -1.0, 1.0])
    with pytest.warns(UserWarning, match="size_average and reduce"):
        summed = call(a, b, y, size_average=False)
    np.testing.assert_allclose(summed.numpy(), call(a, b, y, reduction="sum").numpy())
    with pytest.warns(UserWarning, match="size_average and reduce"):
        each = call(a, b, y, reduce=False)
    np.testing.assert_allclose(each.numpy(), call(a, b, y, reduction="none").numpy())


def test_softmax_takes_pytorchs_positions_and_warning_depth():
    """torch 2.13: F.softmax(input, dim=None, _stacklevel=3, dtype=None); F.softmax(x, 1, 3, torch.float64)
    is softmax over dim 1 in float64; the implicit-dim warning points at the caller (stacklevel 3)."""
    import warnings

    x = mg.tensor(np.array([[1.0, 2.0], [0.5, -1.0]], np.float32))
    for fn in (F.softmax, F.log_softmax, F.softmin):
        got = fn(x, 1, 3, "float64")
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got.numpy(), fn(x, dim=1, dtype="float64").numpy())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(x)
        assert caught and caught[0].filename == __file__
    np.testing.assert_array_equal(F.sigmoid(input=x).numpy(), mg.sigmoid(x).numpy())
    np.testing.assert_array_equal(F.tanh(input=x).numpy(), mg.tanh(x).numpy())
