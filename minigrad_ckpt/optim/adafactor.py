"""Adafactor: second moments kept as a row and a column factor per matrix (PyTorch's
``torch.optim.Adafactor``: its rule, defaults, errors and state dict)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from ._common import as_number, check_lr_elements, kernel_flags
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor, as PyTorch computes it (step ``t``, ``eps = (eps1, eps2)``)::

        w = t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, ||p|| / sqrt(numel)) * rho          (p before weight decay)
        p = p * (1 - lr * weight_decay)
        matrix: r += w (mean(g^2, -1) - r);  c += w (mean(g^2, -2) - c);  v = r @ c / max(mean(r, -2), eps1)
        vector: v += w (g^2 - v)
        u = g / sqrt(max(v, eps1^2));  p = p - alpha / max(1, ||u|| / (sqrt(numel) d)) * u

    The factors ``row_var`` (last dim 1) and ``col_var`` (second-last dim 1) of a parameter of two
    or more dims do not have its shape; a vector keeps ``variance``.
    """

    state_follows_parameter_shape = False  # row_var and col_var are the factors, not the parameter's shape
    decays_in_rule = True  # alpha reads the parameter's norm before the decay

    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0,
                 *, foreach: bool | None = None, maximize: bool = False) -> None:
        check_lr_elements(lr)  # PyTorch's checks, in its order and words
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      **kernel_flags("Adafactor", foreach=foreach, maximize=maximize)))

    def check_complex_parameter(self, p: Tensor, group: dict[str, Any]) -> None:
        raise RuntimeError("Adafactor does not support complex parameters")

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        xp = p.device.xp
        if p.ndim > 1:
            row_shape, col_shape = list(p.shape), list(p.shape)
            row_shape[-1], col_shape[-2] = 1, 1
            return {"step": 0.0, "row_var": Tensor.constant(xp.zeros(row_shape, p._data.dtype), p.device),
                    "col_var": Tensor.constant(xp.zeros(col_shape, p._data.dtype), p.device)}
        return {"step": 0.0, "variance": Tensor.constant(xp.zeros_like(p._data), p.device)}

    def update_one(self, p: Tensor, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        xp = p.device.xp
        lr, t = as_number(group["lr"]), state["step"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(xp.finfo(p._data.dtype).eps)
        weight = t ** group["beta2_decay"]
        rho = min(lr, 1 / t**0.5)
        alpha = max(eps2, _rms(xp, p._data)) * rho
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if p.ndim > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.add_(weight * (xp.mean(g * g, axis=-1, keepdims=True) - row_var._data))  # PyTorch's lerp_
            col_var.add_(weight * (xp.mean(g * g, axis=-2, keepdims=True) - col_var._data))
            r = row_var._data
            v = xp.matmul(r, col_var._data) / xp.maximum(xp.mean(r, axis=-2, keepdims=True), eps1)
        else:
            variance = state["variance"]
            variance.add_(weight * (g * g - variance._data))
            v = variance._data
        update = g / xp.sqrt(xp.maximum(v, eps1 * eps1))
        denom = max(1.0, _rms(xp, update) / group["d"])
        p.sub_((alpha / denom) * update)




def _rms(xp: Any, a: Any) -> float:
    """``||a|| / sqrt(numel)`` as a Python number (PyTorch's ``a.norm(2).item() / numel ** 0.5``)."""
    return float(xp.scalar(xp.sqrt(xp.sum(a * a)))) / a.size**0.5  # one explicit read of device memory
