"""Muon: momentum whose update is orthogonalized by a Newton-Schulz iteration, for the 2-D weights of
hidden layers (PyTorch's ``torch.optim.Muon``: its rule, defaults, errors and state dict).

One deliberate difference: PyTorch runs the Newton-Schulz iteration in bfloat16, a dtype NumPy does
not have; here it runs in the parameter's own dtype (docs/from-pytorch.md), so the update is the same
polynomial without bfloat16's round-off (about 3 significant digits)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, as_one_value, check_lr_elements, zeros_state
from .optimizer import Optimizer

__all__ = ["Muon"]

# Keller Jordan's coefficients and step count, as PyTorch's defaults
DEFAULT_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
DEFAULT_NS_STEPS = 5
ADJUST_LR_FNS = (None, "original", "match_rms_adamw")


class Muon(Optimizer):
    """Muon, as PyTorch computes it (``mu`` the momentum, ``NS`` the Newton-Schulz iteration)::

        B = B + (1 - mu) (g - B)                        (B: the momentum buffer, zeros at first)
        U = g + mu (B - g)   if nesterov  else  B
        O = NS(U)                                       (an orthogonalized U, below)
        p = p * (1 - lr * weight_decay)                 (decoupled weight decay)
        p = p - adjust(lr, p.shape) * O

    ``NS``: ``X = U / max(||U||, eps)`` (transposed if it has more rows than columns), then
    ``ns_steps`` times ``A = X X^T;  X = a X + (b A + c A A) X`` with ``(a, b, c) = ns_coefficients``.
    ``adjust`` scales lr by ``sqrt(max(1, rows / cols))`` (``None`` or ``"original"``: Keller
    Jordan's) or by ``0.2 sqrt(max(rows, cols))`` (``"match_rms_adamw"``: Moonshot's, which lets
    Muon reuse an AdamW learning rate).

    Only 2-D parameters: give biases, embeddings and norms' weights to another optimizer (AdamW)::

        muon = optim.Muon([p for p in model.parameters() if p.ndim == 2], lr=0.02)
        adamw = optim.AdamW([p for p in model.parameters() if p.ndim != 2], lr=3e-4)
    """

    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = DEFAULT_NS_COEFFICIENTS, eps: float = 1e-7,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        check_lr_elements(lr)  # PyTorch's checks, in its order and words
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:  # (PyTorch checks the constructor's groups only, not add_param_group's)
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"torch.Size({list(p.shape)})")

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        raise RuntimeError("Muon does not support complex parameters")

    # the decoupled decay is applied in update_one, after the 2-D check: a refused step leaves the parameter
    # as it was, as PyTorch's (which decays a parameter only once its gradient passed the check)
    decays_in_rule = True

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"momentum_buffer": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        if g.ndim != 2:  # a 1-D parameter of a group added after the constructor
            raise ValueError("Param gradient must be a 2D matrix")
        if group["weight_decay"]:
            p.mul_(as_one_value(1 - group["lr"] * group["weight_decay"]))  # decoupled weight decay
        grad, buf, mu = Tensor.constant(g, p.device), state["momentum_buffer"], group["momentum"]
        buf.lerp_(grad, 1 - mu)  # PyTorch's lerp (its two formulas either side of weight 0.5): its roundings
        update = grad.lerp(buf, mu) if group["nesterov"] else buf
        ortho = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        lr = as_number(as_one_value(group["lr"]) * adjust_ratio(group["adjust_lr_fn"], p.shape))
        p.add_(ortho, alpha=-lr)  # (a tensor lr: the product in its dtype, then its number, as PyTorch's alpha)


def orthogonalize(update: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float) -> Tensor:
    """``update`` with its singular values pushed towards 1 by ``ns_steps`` quintic Newton-Schulz steps
    (PyTorch's ``_zeropower_via_newtonschulz``, in ``update``'s dtype instead of bfloat16).  The
    coefficients maximize the slope at zero rather than converge: the singular values end roughly in
    (0.5, 1.5), which trains as well as the exact ``U V^T`` of the SVD and costs a few matmuls."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = update.shape[0] > update.shape[1]
    x = update.T if tall else update  # the Gram matrix of the short side: the smaller product
    x = x / x.norm().clamp(min=eps)  # spectral norm at most 1 (the Frobenius norm bounds it)
    for _ in range(ns_steps):
        gram = x @ x.T
        x = x.addmm(gram.addmm(gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def adjust_ratio(adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The factor on lr that gives rectangular matrices' updates a comparable RMS (PyTorch's ``_adjust_lr``)."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(rows, cols))
    return 1.0
