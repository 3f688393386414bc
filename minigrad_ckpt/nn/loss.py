"""Loss modules: thin Module wrappers around ``nn.functional`` losses."""

from __future__ import annotations

from typing import Any, ClassVar

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "KLDivLoss", "CosineEmbeddingLoss"]


class _Loss(Module):
    """A loss layer: ``forward(input, target) = fn(input, target, **options)``, the options being
    the layer's attributes of those names (passed by keyword)."""

    fn: ClassVar[Any] = None
    options: ClassVar[tuple[str, ...]] = ()

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return type(self).fn(input, target, **{name: getattr(self, name) for name in self.options})


class CrossEntropyLoss(_Loss):
    """Cross entropy of logits against class indices or probabilities (``F.cross_entropy``)."""

    fn = staticmethod(F.cross_entropy)
    options = ("weight", "reduction", "ignore_index", "label_smoothing")

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities at the target class indices (``F.nll_loss``)."""

    fn = staticmethod(F.nll_loss)
    options = ("weight", "ignore_index", "reduction")

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction


class MSELoss(_Loss):
    """Mean squared error ``(input - target) ** 2``, reduced by ``reduction`` (``F.mse_loss``)."""

    fn = staticmethod(F.mse_loss)
    options = ("reduction",)

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably from the logits (``F.binary_cross_entropy_with_logits``)."""

    fn = staticmethod(F.binary_cross_entropy_with_logits)
    options = ("weight", "reduction", "pos_weight")

    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None) -> None:
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight


class L1Loss(_Loss):
    """Mean absolute error ``|input - target|`` (``F.l1_loss``)."""

    fn = staticmethod(F.l1_loss)
    options = ("reduction",)

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above (``F.smooth_l1_loss``)."""

    fn = staticmethod(F.smooth_l1_loss)
    options = ("reduction", "beta")

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.beta = reduction, beta


class HuberLoss(_Loss):
    """Quadratic up to ``delta``, then linear with slope ``delta`` (``F.huber_loss``)."""

    fn = staticmethod(F.huber_loss)
    options = ("reduction", "delta")

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.delta = reduction, delta


class BCELoss(_Loss):
    """Binary cross entropy of probabilities (``F.binary_cross_entropy``; logs clamped at -100)."""

    fn = staticmethod(F.binary_cross_entropy)
    options = ("weight", "reduction")

    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.reduction = weight, reduction


class KLDivLoss(_Loss):
    """KL divergence of log-probability ``input`` from ``target`` (``F.kl_div``; prefer
    ``reduction="batchmean"``)."""

    fn = staticmethod(F.kl_div)
    options = ("reduction", "log_target")

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction, self.log_target = reduction, log_target


class CosineEmbeddingLoss(Module):
    """``1 - cos`` for pairs labelled 1, ``max(0, cos - margin)`` for pairs labelled -1
    (``F.cosine_embedding_loss``)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)
