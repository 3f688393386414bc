"""Losses of a float32 (or float16) input beside a wider target, weight or ``pos_weight``, written
once for both engines: each case takes the functional namespace ``F`` and ``T(values, dtype_name)``,
a tensor maker, and returns the loss (``K``: class indices).  PyTorch's kernels for these losses
write into a tensor made like the input, or apply the weight in place, so the loss keeps the input's
dtype (``make_torch_loss_input_dtype.py`` records PyTorch's answers); ``binary_cross_entropy``
refuses a target of another dtype, and the class-index losses a weight of another dtype."""

from __future__ import annotations

X = [[0.3, -1.2, 2.5, 0.0], [1.7, -0.4, -2.2, 0.9]]
P = [[0.2, 0.7, 0.5, 0.95], [0.05, 0.4, 0.6, 0.3]]
Y = [[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, -1.0]]
Y01 = [[1.0, 0.0, 0.25, 1.0], [0.0, 1.0, 0.5, 0.0]]
W = [0.5, 2.0, 1.5, 0.25]
K = [2, 0]

CASES = {  # name: (input dtype, function of (F, T, x))
    "soft_margin_target64": ("float32", lambda F, T, x: F.soft_margin_loss(x, T(Y, "float64"))),
    "soft_margin_target64_none": ("float32", lambda F, T, x: F.soft_margin_loss(x, T(Y, "float64"), reduction="none")),
    "soft_margin_half_target32": ("float16", lambda F, T, x: F.soft_margin_loss(x, T(Y, "float32"))),
    "huber_target64": ("float32", lambda F, T, x: F.huber_loss(x, T(Y, "float64"), delta=0.5)),
    "huber_target64_none": ("float32", lambda F, T, x: F.huber_loss(x, T(Y, "float64"), reduction="none")),
    "huber_weight64": ("float32", lambda F, T, x: F.huber_loss(x, T(Y, "float32"), weight=T([W, W], "float64"))),
    "bce_weight64": ("float32", lambda F, T, x: F.binary_cross_entropy(x, T(Y01, "float32"), weight=T(W, "float64"))),
    "bce_weight64_sum": ("float32", lambda F, T, x: F.binary_cross_entropy(
        x, T(Y01, "float32"), T(W, "float64"), reduction="sum")),
    "bce_logits_weight64": ("float32", lambda F, T, x: F.binary_cross_entropy_with_logits(
        x, T(Y01, "float32"), weight=T(W, "float64"))),
    "bce_logits_pos_weight64": ("float32", lambda F, T, x: F.binary_cross_entropy_with_logits(
        x, T(Y01, "float32"), pos_weight=T(W, "float64"), reduction="none")),
    "bce_logits_half_weight32": ("float16", lambda F, T, x: F.binary_cross_entropy_with_logits(
        x, T(Y01, "float16"), weight=T(W, "float32"), pos_weight=T(W, "float32"))),
    "bce_target64": ("float32", lambda F, T, x: F.binary_cross_entropy(x, T(Y01, "float64"))),
    "bce64_target32": ("float64", lambda F, T, x: F.binary_cross_entropy(x, T(Y01, "float32"))),
    # the class-index losses take a per-class weight in the input's dtype only
    "nll_weight64": ("float32", lambda F, T, x: F.nll_loss(x, T(K, "int64"), weight=T(W, "float64"))),
    "nll64_weight32": ("float64", lambda F, T, x: F.nll_loss(x, T(K, "int64"), weight=T(W, "float32"))),
    "cross_entropy_weight64": ("float32", lambda F, T, x: F.cross_entropy(x, T(K, "int64"), weight=T(W, "float64"))),
    "cross_entropy_smoothing_weight64": ("float32", lambda F, T, x: F.cross_entropy(
        x, T(K, "int64"), weight=T(W, "float64"), label_smoothing=0.2)),
    "multi_margin_weight64": ("float32", lambda F, T, x: F.multi_margin_loss(x, T(K, "int64"), weight=T(W, "float64"))),
    "cross_entropy_weight32": ("float32", lambda F, T, x: F.cross_entropy(x, T(K, "int64"), weight=T(W, "float32"))),
    # probabilities as the target: weight and target promote the loss
    "cross_entropy_probabilities_weight64": ("float32", lambda F, T, x: F.cross_entropy(
        x, T(Y01, "float32"), weight=T(W, "float64"))),
}

#: the cases whose input is probabilities (the binary cross entropy's, not of logits)
PROBABILITY_INPUT = {"bce_weight64", "bce_weight64_sum", "bce_target64", "bce64_target32"}
