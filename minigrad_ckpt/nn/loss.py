"""Loss modules: thin Module wrappers around ``nn.functional`` losses.

The shared bases first (each loss is a :class:`FunctionLayer` of its inputs); then the losses
that only name their function, the two with a ``forward`` of their own, the losses with options,
and the margin losses."""

from __future__ import annotations

from typing import Any, ClassVar

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from . import functional as F
from .distance import PairwiseDistance
from .function_layer import FunctionLayer
from .functional.loss import _reduction_of

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "KLDivLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss"]


class _Loss(FunctionLayer):
    """A loss layer: ``forward(input, target) = fn(input, target, **options)``, the options being
    the layer's attributes of those names (passed by keyword, stored by :class:`FunctionLayer`; a
    loss's ``repr`` lists none).  Every loss has a ``reduction`` (``"mean"``, ``"sum"`` or ``"none"``).

    The constructor is PyTorch's ``_Loss(size_average=None, reduce=None, reduction="mean")``, so
    that a loss written for PyTorch as its subclass (``torch.nn.modules.loss._Loss``) with a
    ``forward`` of its own works here: ``self.reduction`` is set, the legacy arguments decide it."""

    shown = ()
    #: the options that are tensors of the loss, registered as buffers as PyTorch's are: in
    #: ``state_dict()`` (when not None), moved and cast by ``to()``/``double()``
    buffers: ClassVar[tuple[str, ...]] = ()

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 **options: Any) -> None:
        unknown = sorted(set(options) - set(self.options) - set(self.buffers))
        if unknown:  # a subclass's own options are its class's; anything else is PyTorch's TypeError
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}")
        held = {name: options.pop(name) for name in self.buffers if name in options}
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), **options)
        for name, value in held.items():
            self.register_buffer(name, value if value is None or isinstance(value, Tensor) else as_tensor(value))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return type(self).fn(input, target, **{name: getattr(self, name) for name in self.options})


class _ReductionLoss(_Loss):
    """A loss whose one option is ``reduction``: it needs no constructor of its own."""

    options = ("reduction",)

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction))


class _WeightedLoss(_Loss):
    """A loss whose options are a class ``weight`` and ``reduction`` (PyTorch's ``_WeightedLoss``,
    the base of the losses with a class ``weight``: cross entropy, NLL, BCE, multi-margin; those
    with more options call :class:`_Loss`'s constructor with them, PyTorch's signature staying this one)."""

    options = ("weight", "reduction")
    buffers = ("weight",)

    def __init__(self, weight: Any = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), weight=weight)


class _ThreeInputLoss(_Loss):
    """A loss of three tensors: ``forward(a, b, c) = fn(a, b, c, **options)``."""

    def forward(self, input1: Tensor, input2: Tensor, input3: Tensor) -> Tensor:
        return type(self).fn(input1, input2, input3, **{name: getattr(self, name) for name in self.options})


class MSELoss(_ReductionLoss):
    """Mean squared error ``(input - target) ** 2``, reduced by ``reduction`` (``F.mse_loss``)."""

    fn = staticmethod(F.mse_loss)


class L1Loss(_ReductionLoss):
    """Mean absolute error ``|input - target|`` (``F.l1_loss``)."""

    fn = staticmethod(F.l1_loss)


class SoftMarginLoss(_ReductionLoss):
    """``log(1 + exp(-target * input))`` (``F.soft_margin_loss``)."""

    fn = staticmethod(F.soft_margin_loss)


class MultiLabelMarginLoss(_ReductionLoss):
    """The multi-label hinge loss over target class lists ended by -1 (``F.multilabel_margin_loss``)."""

    fn = staticmethod(F.multilabel_margin_loss)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (``F.binary_cross_entropy``; logs clamped at -100)."""

    fn = staticmethod(F.binary_cross_entropy)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over the classes (``F.multilabel_soft_margin_loss``)."""

    fn = staticmethod(F.multilabel_soft_margin_loss)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for pairs labelled 1, ``max(0, cos - margin)`` for pairs labelled -1
    (``F.cosine_embedding_loss``)."""

    options = ("margin", "reduction")

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), margin=margin)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, self.margin, reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (``F.ctc_loss``); called as
    ``loss(log_probs, targets, input_lengths, target_lengths)``."""

    options = ("blank", "reduction", "zero_infinity")

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction, blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs: Tensor, targets: Any, input_lengths: Any, target_lengths: Any) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=self.blank,
                          reduction=self.reduction, zero_infinity=self.zero_infinity)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or probabilities (``F.cross_entropy``)."""

    fn = staticmethod(F.cross_entropy)
    options = ("weight", "reduction", "ignore_index", "label_smoothing")
    buffers = ("weight",)

    def __init__(self, weight: Any = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                 reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        _Loss.__init__(self, reduction=_reduction_of(size_average, reduce, reduction), weight=weight,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities at the target class indices (``F.nll_loss``)."""

    fn = staticmethod(F.nll_loss)
    options = ("weight", "ignore_index", "reduction")
    buffers = ("weight",)

    def __init__(self, weight: Any = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                 reduction: str = "mean") -> None:
        _Loss.__init__(self, reduction=_reduction_of(size_average, reduce, reduction), weight=weight,
                         ignore_index=ignore_index)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably from the logits (``F.binary_cross_entropy_with_logits``)."""

    fn = staticmethod(F.binary_cross_entropy_with_logits)
    options = ("weight", "reduction", "pos_weight")
    buffers = ("weight", "pos_weight")

    def __init__(self, weight: Any = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 pos_weight: Any = None) -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), weight=weight,
                         pos_weight=pos_weight)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above (``F.smooth_l1_loss``)."""

    fn = staticmethod(F.smooth_l1_loss)
    options = ("reduction", "beta")

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), beta=beta)


class HuberLoss(_Loss):
    """Quadratic up to ``delta``, then linear with slope ``delta`` (``F.huber_loss``)."""

    fn = staticmethod(F.huber_loss)
    options = ("reduction", "delta")

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, (float, int)):  # PyTorch's check, at construction (a complex one was kept)
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction, delta=delta)


class KLDivLoss(_Loss):
    """KL divergence of log-probability ``input`` from ``target`` (``F.kl_div``; prefer
    ``reduction="batchmean"``)."""

    fn = staticmethod(F.kl_div)
    options = ("reduction", "log_target")

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), log_target=log_target)


class PoissonNLLLoss(_Loss):
    """The Poisson negative log-likelihood (``F.poisson_nll_loss``)."""

    fn = staticmethod(F.poisson_nll_loss)
    options = ("log_input", "full", "eps", "reduction")

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None, eps: float = 1e-8,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), log_input=log_input, full=full,
                         eps=eps)

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:  # PyTorch's argument names
        return super().forward(log_input, target)


class GaussianNLLLoss(_ThreeInputLoss):
    """The Gaussian negative log-likelihood of ``target`` given mean ``input`` and ``var``
    (``F.gaussian_nll_loss``); called as ``loss(input, target, var)``."""

    fn = staticmethod(F.gaussian_nll_loss)
    options = ("full", "eps", "reduction")

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(full=full, eps=eps, reduction=reduction)

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:  # PyTorch's argument names
        return super().forward(input, target, var)


class HingeEmbeddingLoss(_Loss):
    """``input`` for targets 1, ``max(0, margin - input)`` for targets -1 (``F.hinge_embedding_loss``)."""

    fn = staticmethod(F.hinge_embedding_loss)
    options = ("margin", "reduction")

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=_reduction_of(size_average, reduce, reduction), margin=margin)


class MarginRankingLoss(_ThreeInputLoss):
    """``max(0, -target * (input1 - input2) + margin)`` (``F.margin_ranking_loss``)."""

    fn = staticmethod(F.margin_ranking_loss)
    options = ("margin", "reduction")

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin=margin, reduction=_reduction_of(size_average, reduce, reduction))

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:  # PyTorch's argument names
        return super().forward(input1, input2, target)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss (``F.multi_margin_loss``)."""

    fn = staticmethod(F.multi_margin_loss)
    options = ("p", "margin", "weight", "reduction")
    buffers = ("weight",)

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Any = None, size_average: Any = None,
                 reduce: Any = None,
                 reduction: str = "mean") -> None:
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p}")
        _Loss.__init__(self, reduction=_reduction_of(size_average, reduce, reduction), p=p, margin=margin,
                       weight=weight)


class _TripletLoss(_ThreeInputLoss):
    """The triplet losses: ``forward(anchor, positive, negative)``, PyTorch's argument names."""

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return super().forward(anchor, positive, negative)


class TripletMarginLoss(_TripletLoss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the ``p``-norm distance (``F.triplet_margin_loss``)."""

    fn = staticmethod(F.triplet_margin_loss)
    options = ("margin", "p", "eps", "swap", "reduction")

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(margin=margin, p=p, eps=eps, swap=swap, reduction=_reduction_of(size_average, reduce,
                                                                                          reduction))


class TripletMarginWithDistanceLoss(_TripletLoss):
    """The triplet loss with any ``distance_function`` (``F.triplet_margin_with_distance_loss``)."""

    fn = staticmethod(F.triplet_margin_with_distance_loss)
    options = ("distance_function", "margin", "swap", "reduction")

    def __init__(self, *, distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:
        if margin <= 0:  # (PyTorch's constructor refuses it, before any call; the function refuses it too)
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        # PyTorch's default is a PairwiseDistance module, a submodule of the loss (it prints, and
        # named_modules() lists it)
        super().__init__(distance_function=distance_function if distance_function is not None
                         else PairwiseDistance(), margin=margin, swap=swap, reduction=reduction)
