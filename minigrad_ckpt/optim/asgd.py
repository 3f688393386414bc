"""ASGD: averaged stochastic gradient descent (Polyak-Ruppert averaging), PyTorch's rule and defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import check_hyper, kernel_flags, scalar_state, zeros_state
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD, as PyTorch computes it (``eta`` starts at ``lr``, ``mu`` at 1)::

        g = grad (+ weight_decay * p)
        p = p * (1 - lambd * eta);  p = p - eta * g
        ax = p  if mu == 1  else  ax + mu * (p - ax)       (the average the method is named for)
        eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

    ``state["ax"]`` holds the averaged parameters; ``eta`` and ``mu`` are rounded to float32 unless
    the default dtype is float64, as PyTorch's 0-d state tensors are.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_hyper("ASGD", lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      **kernel_flags("ASGD", foreach=foreach, maximize=maximize,
                                                     differentiable=differentiable, capturable=capturable)))

    scalar_state_keys = ("step", "eta", "mu")

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "eta": scalar_state(group["lr"]), "mu": 1.0, "ax": zeros_state(p)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, lambd, eta, t = group["lr"], group["lambd"], state["eta"], state["step"]
        p.mul_(1 - lambd * eta)  # in place under no_grad: each update restamps the version
        p.add_(-eta * g)
        if state["mu"] != 1:
            ax = state["ax"]
            ax.add_((p._data - ax._data) * state["mu"])
        else:
            state["ax"].copy_(p._data)
        state["eta"] = scalar_state(lr / ((1 + lambd * lr * t) ** group["alpha"]))
        state["mu"] = scalar_state(1 / max(1, t - group["t0"]))
