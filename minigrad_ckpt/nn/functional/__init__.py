"""Neural-network functions with PyTorch's semantics and defaults.

``import minigrad_ckpt.nn.functional as F`` -- the names and arguments are
PyTorch's (``F.cross_entropy(logits, target, label_smoothing=0.1)``), except
that an axis argument is called ``axis`` (``dim`` is accepted too).

Most functions are compositions of the engine's ops (so they are
differentiable to any order); convolution, pooling, normalization, dropout
and the activations are ops of their own (``minigrad_ckpt/ops``).  Each kind
lives in a module of its own:

=====================  ===================================================
``activation``         ``relu``, ``gelu``, ``softmax``, ``softplus``, ...
``activation_inplace`` ``relu_``, ``leaky_relu_``, ... (``inplace=True``)
``linear``             ``linear``
``conv``               ``conv1d``, ``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``
``conv3d``             ``conv3d`` (2-D convolutions over the depth), ``conv_transpose3d``, ``adaptive_avg_pool3d``
``pooling``            max, average and adaptive pooling
``pool3d``             ``max_pool3d``, ``avg_pool3d``, ``adaptive_max_pool3d``, ``max_unpool3d``
``lp_pool``            ``lp_pool1d``, ``lp_pool2d``, ``lp_pool3d`` (power-average pooling)
``fractional_pool``    ``fractional_max_pool2d``, ``fractional_max_pool3d`` (windows at random places)
``with_indices``       ``max_pool2d_with_indices`` and its kin: ``(values, indices)`` always
``normalization``      ``layer_norm``, ``batch_norm``, ``group_norm``, ``rms_norm``
``dropout``            ``dropout``, ``dropout1d``/``2d``/``3d``, ``alpha_dropout``
``embedding``          ``embedding``, ``one_hot``
``embedding_bag``      ``embedding_bag``
``distance``           ``normalize``, ``cosine_similarity``, ``cdist``, ...
``pixel_shuffle``      ``pixel_shuffle``, ``pixel_unshuffle``
``interpolation``      ``interpolate`` (nearest, linear, bicubic, area, ...)
``fold``               ``unfold`` (im2col), ``fold`` (col2im)
``grid_sample``        ``affine_grid``, ``grid_sample`` (spatial transformers)
``padding``            ``pad``
``attention``          ``scaled_dot_product_attention``
``loss``               ``cross_entropy``, ``mse_loss``, ``kl_div``, ...
``ctc``                ``ctc_loss`` (connectionist temporal classification)
``margin_losses``      ``margin_ranking_loss``, ``triplet_margin_loss``, ...
``likelihood_losses``  ``poisson_nll_loss``, ``gaussian_nll_loss``
``inputs``             the checks they share (``dim=``, the dtype discipline)
=====================  ===================================================
"""

# ruff: noqa: F405  (``__all__`` names what the star imports bring, in the order docs/api.md lists it)
from __future__ import annotations

from .activation import *  # noqa: F403
from .activation_inplace import *  # noqa: F403
from .attention import *  # noqa: F403
from .conv import *  # noqa: F403
from .conv3d import *  # noqa: F403
from .ctc import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .embedding import *  # noqa: F403
from .embedding_bag import *  # noqa: F403
from .fold import *  # noqa: F403
from .fractional_pool import *  # noqa: F403
from .grid_sample import *  # noqa: F403
from .inputs import _check_input_dtype  # noqa: F401  (the layers in nn/ check their inputs with it)
from .interpolation import *  # noqa: F403
from .likelihood_losses import *  # noqa: F403
from .linear import *  # noqa: F403
from .linear_cross_entropy import *  # noqa: F403
from .loss import *  # noqa: F403
from .lp_pool import *  # noqa: F403
from .margin_losses import *  # noqa: F403
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixel_shuffle import *  # noqa: F403
from .pool3d import *  # noqa: F403
from .pooling import *  # noqa: F403
from .with_indices import *  # noqa: F403

__all__ = [
    "relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "cross_entropy",
    "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear", "conv2d", "max_pool2d", "avg_pool2d",
    "layer_norm", "batch_norm", "dropout", "embedding", "scaled_dot_product_attention", "multi_head_attention_forward",
    "one_hot", "pad",
    "relu_", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "rrelu_", "threshold_",
    "softplus", "logsigmoid", "mish", "elu", "hardtanh", "prelu", "dropout2d", "conv1d", "max_pool1d",
    "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "conv_transpose2d", "group_norm", "rms_norm",
    "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div", "cosine_embedding_loss",
    "softmin", "selu", "celu", "glu", "hardswish", "hardsigmoid", "softsign", "tanhshrink", "threshold",
    "softshrink", "hardshrink", "rrelu", "dropout1d", "dropout3d", "alpha_dropout",
    "normalize", "cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    "poisson_nll_loss", "gaussian_nll_loss", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_unpool1d", "max_unpool2d", "unfold", "fold",
    "instance_norm", "local_response_norm", "conv_transpose1d", "embedding_bag", "affine_grid", "grid_sample",
    "conv3d", "adaptive_avg_pool3d", "max_pool3d", "avg_pool3d", "conv_transpose3d", "adaptive_max_pool3d",
    "max_unpool3d", "ctc_loss", "relu6", "bilinear", "lp_pool1d", "lp_pool2d", "lp_pool3d", "feature_alpha_dropout",
    "channel_shuffle", "gumbel_softmax", "fractional_max_pool2d", "fractional_max_pool3d",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices", "linear_cross_entropy",
]
