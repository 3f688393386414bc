"""PyTorch's top-level losses (``torch.kl_div``, ``torch.margin_ranking_loss``, ...): ATen's signatures.

``torch.kl_div(input, target, reduction=1)`` is not ``F.kl_div(input, target, size_average,
reduce, reduction)``: ATen's losses take no legacy ``size_average``/``reduce``, so a third or fifth
positional argument lands elsewhere, and their ``reduction`` is an int -- 1 the mean, 2 the sum,
anything else (0 by name) no reduction, as ATen's ``apply_loss_reduction`` reads it; a string there
is PyTorch's ``TypeError``.  Each here is its ``nn.functional`` twin called with the reduction's
name, so values, gradients and refusals are the twin's.  ``torch.kl_div``'s mean is the plain mean
without ``F.kl_div``'s warning about ``"batchmean"`` (ATen's function has none).

Left out, ``reduction`` is no reduction in torch 2.13: the schemas' default is
``at::Reduction::Mean``, but torch's Python binding reads that default as the int 0, so
``torch.kl_div(x, y)`` (and every loss here called without ``reduction``) returns the
elementwise losses -- ``torch.kl_div(x, y).shape == x.shape`` -- where ``torch.kl_div(x, y, 1)``
is the mean.  The defaults here are that 0.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...tensor import Tensor, number
from . import ctc as _ctc
from . import likelihood_losses as _likelihood
from . import loss as _loss
from . import margin_losses as _margins

__all__ = ["binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss", "hinge_embedding_loss",
           "kl_div", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss"]


#: the ``reduction`` torch 2.13's bindings pass when it is left out (see the module's docstring)
_UNREDUCED = 0


def _reduction(name: str, reduction: Any, position: int) -> str:
    """ATen's int ``reduction`` as ``F``'s name: 1 ``"mean"``, 2 ``"sum"``, any other int ``"none"``."""
    reduction = number(name, "reduction", reduction, "int", position=position)
    if not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, not "
                        f"{type(reduction).__name__}")
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Any = None,  # noqa: A002
                                     pos_weight: Any = None, reduction: int = _UNREDUCED) -> Tensor:
    """``torch.binary_cross_entropy_with_logits``: ``pos_weight`` fourth, no legacy arguments."""
    how = _reduction("binary_cross_entropy_with_logits", reduction, 5)
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction=how, pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = _UNREDUCED) -> Tensor:
    """``torch.cosine_embedding_loss``: ``F.cosine_embedding_loss`` with ATen's int ``reduction`` fifth."""
    how = _reduction("cosine_embedding_loss", reduction, 5)
    return _loss.cosine_embedding_loss(input1, input2, target, margin, reduction=how)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = _UNREDUCED, zero_infinity: bool = False) -> Tensor:
    """``torch.ctc_loss``: ``F.ctc_loss`` with ATen's int ``reduction`` (the mean divides each
    sequence's loss by its target length, as ``F``'s does)."""
    how = _reduction("ctc_loss", reduction, 6)
    return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, how, zero_infinity)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         reduction: int = _UNREDUCED) -> Tensor:
    """``torch.hinge_embedding_loss``: ``F.hinge_embedding_loss`` with ATen's int ``reduction`` fourth."""
    how = _reduction("hinge_embedding_loss", reduction, 4)
    return _margins.hinge_embedding_loss(input, target, margin, reduction=how)


def kl_div(input: Tensor, target: Tensor, reduction: int = _UNREDUCED, *, log_target: bool = False) -> Tensor:  # noqa: A002
    """``torch.kl_div``: ``reduction`` third (1 is the mean over every element -- ATen has
    no ``"batchmean"``; left out, no reduction, as torch 2.13's binding reads it), ``log_target`` by keyword only."""
    how = _reduction("kl_div", reduction, 3)
    loss = _loss.kl_div(input, target, reduction="none", log_target=log_target)
    return mf.mean(loss) if how == "mean" else mf.sum(loss) if how == "sum" else loss


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = _UNREDUCED) -> Tensor:
    """``torch.margin_ranking_loss``: ``F.margin_ranking_loss`` with ATen's int ``reduction`` fifth."""
    how = _reduction("margin_ranking_loss", reduction, 5)
    return _margins.margin_ranking_loss(input1, input2, target, margin, reduction=how)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:
    """``torch.poisson_nll_loss``: every argument required, ``eps`` before ``reduction``."""
    how = _reduction("poisson_nll_loss", reduction, 6)
    return _likelihood.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=how)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = _UNREDUCED) -> Tensor:
    """``torch.triplet_margin_loss``: ``F.triplet_margin_loss`` with ATen's int ``reduction`` last."""
    how = _reduction("triplet_margin_loss", reduction, 8)
    return _margins.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=how)
