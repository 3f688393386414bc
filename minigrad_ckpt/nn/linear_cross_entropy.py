"""``LinearCrossEntropyLoss``: a classifier head and its cross entropy in one layer (PyTorch 2.13's
``torch.nn.LinearCrossEntropyLoss``), so that ``options`` can chunk the logits away.

The head is an :class:`~minigrad_ckpt.nn.Linear` of ``C * prod(out_features)`` outputs stored flat
(``self.linear.weight`` is ``(C * d_1 * ... * d_K, in_features)``, as PyTorch's: a ``state_dict``
moves between the two frameworks), reshaped to ``(C, *out_features, in_features)`` in ``forward``.
"""

from __future__ import annotations

import math
from typing import Any

from . import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """``F.linear_cross_entropy(input, self.linear.weight, target, ...)`` with the weight a parameter.

    ``in_features`` features in, ``num_classes`` classes (times ``out_features`` positions for a
    K-dimensional loss); ``bias`` adds a learnable ``(C, *out_features)`` bias; ``weight``,
    ``reduction``, ``ignore_index`` (None: ``-100`` for class indices), ``label_smoothing`` and
    ``options`` (:class:`LinearCrossEntropyOptions`: chunk the logits) as the function takes them.

    >>> head = nn.LinearCrossEntropyLoss(768, 50257, options=nn.LinearCrossEntropyOptions())
    >>> loss = head(hidden, tokens)  # doctest: +SKIP
    """

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple[int, ...] = (), bias: bool = False,
                 device: Any = None, dtype: Any = None, reduction: str = "mean", weight: Any = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)  # (PyTorch's base: the weight a buffer)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear's weight is 2-D: the K-dimensional one is stored flat, reshaped in forward
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Any, target: Any) -> Any:  # noqa: A002
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        bias = self.linear.bias
        linear_bias = bias.reshape((self.num_classes, *self.out_features)) if bias is not None else None
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes},"
                f" out_features={self.out_features}, bias={self.linear.bias is not None},"
                f" reduction={self.reduction}, ignore_index={self.ignore_index},"
                f" label_smoothing={self.label_smoothing}, options={self.options}")
