"""Stochastic weight averaging, PyTorch's ``torch.optim.swa_utils``: ``AveragedModel`` (a running
average of a model's parameters, SWA's equal weights or an EMA), ``SWALR`` (anneal each group's lr
to a constant ``swa_lr``) and ``update_bn`` (recompute BatchNorm statistics for the averaged weights).

The averages are PyTorch's formulas, so an averaged model equals PyTorch's to round-off: SWA
``avg + (p - avg) / (n + 1)``, EMA ``decay * avg + (1 - decay) * p``; the list forms
(``get_swa_multi_avg_fn``, ``get_ema_multi_avg_fn``) are PyTorch's ``lerp``.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from ..backend import get_default_dtype, host_numpy
from ..creation import zeros
from ..grad_mode import no_grad
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _per_group, older_key_renamed
from .optimizer import Optimizer

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_swa_avg_fn", "get_ema_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_multi_avg_fn"]


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """SWA's equal-weight average: ``avg + (p - avg) / (n + 1)``."""
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (int(num_averaged) + 1)
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """An exponential moving average: ``decay * avg + (1 - decay) * p``."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def _lerp_(start: Tensor, end: Tensor, weight: float) -> None:
    """PyTorch's ``lerp_``: from the nearer end of the segment, as its kernel.  (Its CPU kernel fuses
    the multiply-add, rounding once, so a value here may be a unit in the last place off it.)"""
    a, b = start._data, end._data
    start.copy_(a + weight * (b - a) if weight < 0.5 else b - (b - a) * (1 - weight))


def _floating(t: Tensor) -> bool:
    return t.dtype.kind in "fc"


def get_swa_multi_avg_fn() -> Callable[[list, list, Any], None]:
    """SWA over lists of tensors of one dtype (AveragedModel groups them), in place: ``lerp(avg, p, 1 / (n + 1))``.
    A tensor ``n`` (AveragedModel's ``n_averaged``) makes the weight a tensor of the default dtype, as in
    PyTorch: float32-rounded then.  Integer tensors (a BatchNorm's count, with ``use_buffers``) are refused
    as PyTorch's foreach kernels refuse them."""
    def swa_update(averaged_params: list, current_params: list, num_averaged: Any) -> None:
        if averaged_params and not _floating(averaged_params[0]):
            raise RuntimeError("Integer division with addcdiv is no longer supported"
                               if isinstance(num_averaged, Tensor)  # PyTorch's addcdiv, else its add with alpha
                               else "For integral input tensors, argument alpha must not be a floating point number.")
        weight = 1 / (int(num_averaged) + 1)
        if isinstance(num_averaged, Tensor):
            weight = float(host_numpy.dtype(get_default_dtype()).type(weight))
        for avg, cur in zip(averaged_params, current_params):
            _lerp_(avg, cur, weight)
    return swa_update


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[list, list, Any], None]:
    """An EMA over lists of tensors, in place: ``lerp(avg, p, 1 - decay)``."""
    _check_decay(decay)

    def ema_update(ema_params: list, current_params: list, _: Any) -> None:
        for avg, cur in zip(ema_params, current_params):
            if _floating(avg):
                _lerp_(avg, cur, 1 - decay)
            else:  # PyTorch's formula for integer tensors (truncated as it truncates: not lerp's rounding)
                avg.copy_(avg * decay + cur * (1 - decay))
    return ema_update


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with ``use_buffers``) are the running average
    of ``model``'s at each :meth:`update_parameters` -- SWA's equal weights by default, or ``avg_fn``
    (``avg, p, n -> new avg``) or ``multi_avg_fn`` (lists, in place).  ``n_averaged`` is a buffer, so
    the average and its count are saved and snapshotted with the model."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("AveragedModel: give only one of avg_fn and multi_avg_fn")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", zeros((), dtype="int64", device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average (the first call copies them)."""
        def tensors(m: Module) -> Iterable[Tensor]:
            return itertools.chain(m.parameters(), m.buffers()) if self.use_buffers else m.parameters()

        n = int(self.n_averaged.item())
        count = self.n_averaged.clone()  # PyTorch hands the functions the count as a tensor
        with no_grad():
            pairs = [(a, p.detach().to(a.device)) for a, p in zip(tensors(self.module), tensors(model))]
            if n == 0:
                for a, p in pairs:
                    a.copy_(p)
            elif self.multi_avg_fn is not None:
                for group in _by_device_and_dtype(pairs):  # as PyTorch hands the function its tensors
                    self.multi_avg_fn([a for a, _ in group], [p for _, p in group], count)
            else:
                avg_fn = self.avg_fn or get_swa_avg_fn()
                for a, p in pairs:
                    a.copy_(avg_fn(a.detach(), p, count))
            if not self.use_buffers:  # the buffers follow the model (BatchNorm statistics: see update_bn)
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.copy_(b_model.detach().to(b_avg.device))
            self.n_averaged.add_(1)


def _by_device_and_dtype(pairs: list[tuple[Tensor, Tensor]]) -> list[list[tuple[Tensor, Tensor]]]:
    """``pairs`` (averaged, current) grouped by the averaged tensor's device and dtype, in order of first
    appearance: PyTorch calls a ``multi_avg_fn`` once per such group."""
    groups: dict[tuple[str, str], list[tuple[Tensor, Tensor]]] = {}
    for a, p in pairs:
        groups.setdefault((str(a.device), str(a.dtype)), []).append((a, p))
    return list(groups.values())


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute every BatchNorm's running statistics in one pass over ``loader`` (a batch's first
    element when it is a list or tuple), as a cumulative average, then restore the modes and momenta."""
    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    with no_grad():
        for batch in loader:
            x = batch[0] if isinstance(batch, (list, tuple)) else batch
            model(x.to(device) if device is not None else x)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` epochs (``"cos"`` or ``"linear"``),
    then hold it: PyTorch's recursive formula, so the values equal its scheduler's."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float], anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for lr, group in zip(_per_group("swa_lr", optimizer.param_groups, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        # PyTorch's attribute, so a state dict carries the strategy under PyTorch's key
        self._anneal_strategy, self.anneal_epochs = anneal_strategy, anneal_epochs
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(older_key_renamed(state, "anneal_strategy", "_anneal_strategy"))

    def _anneal(self, t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2 if self._anneal_strategy == "cos" else t

    def get_lr(self) -> list[float]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self._anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self._anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        groups = self.optimizer.param_groups
        prev_lrs = [g["swa_lr"] if prev_alpha == 1 else (g["lr"] - prev_alpha * g["swa_lr"]) / (1 - prev_alpha)
                    for g in groups]
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]
