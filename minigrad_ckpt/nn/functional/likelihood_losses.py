"""Negative log-likelihood losses of distributions: ``poisson_nll_loss`` and
``gaussian_nll_loss`` (PyTorch's formulas, compositions of the engine's ops)."""

from __future__ import annotations

import math
from typing import Any

from ... import functional as mf
from ...backend import cpp_type_name
from ...functional import _tensor
from ...functional.arguments import number
from ...tensor import Tensor
from .distance import clamped_keeping_gradient
from .loss import _check_reduction, _reduce, _reduction_of

__all__ = [
    "poisson_nll_loss", "gaussian_nll_loss",
]


def poisson_nll_loss(input: Any, target: Any, log_input: bool = True, full: bool = False, size_average: Any = None,
                     eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The Poisson negative log-likelihood of ``target`` counts: ``exp(input) - target * input``
    (``log_input=True``) or ``input - target * log(input + eps)``; ``full=True`` adds the Stirling
    term ``target log(target) - target + log(2 pi target) / 2`` where ``target > 1``."""
    eps = number("poisson_nll_loss", "eps", eps, "float")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    y = _tensor(target, x)
    loss = mf.exp(x) - y * x if log_input else x - y * mf.log(x + eps)
    if full:
        safe = mf.where(y > 1, y, 1.0)  # the log sees no target <= 1 (the term is 0 there)
        stirling = safe * mf.log(safe) - safe + 0.5 * mf.log(2 * math.pi * safe)
        loss = loss + mf.where(y > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Any, target: Any, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """The Gaussian negative log-likelihood ``(log(var) + (input - target)^2 / var) / 2`` (``+ log(2 pi)
    / 2`` with ``full``).  ``var`` is a Python float (one variance for all), or a tensor of ``input``'s
    shape, or of one fewer trailing axis, or with a 1 on the one axis where the shapes differ (a last
    axis of 1: one variance for the whole vector; (1, D): one per feature); it is clamped at ``eps``
    for the value only -- its gradient passes the clamp unchanged, as PyTorch's (which clamps in
    place under ``no_grad``)."""
    _check_reduction(reduction, "is not valid")
    x = _tensor(input)
    y, v = _tensor(target, x), _homoscedastic(var, x) if isinstance(var, float) else _tensor(var, x)
    if v.dtype.kind in "biu":  # PyTorch clamps var in place at eps: a float cannot land in an integer var
        raise RuntimeError(f"result type Float can't be cast to the desired output type {cpp_type_name(v.dtype)}")
    if v.shape != x.shape:
        if x.shape[:-1] == v.shape:
            v = mf.expand_dims(v, -1)
        elif not (v.ndim == x.ndim and sum(b for a, b in zip(x.shape, v.shape) if a != b) == 1):
            # (torch 2.13's rule: one axis of 1 where the shapes differ -- the last, as (N, 1), or
            # any other, as a (1, D) variance per feature or (N, 1, H, W) one per pixel)
            raise ValueError(f"gaussian_nll_loss: var of shape {v.shape} does not fit input of shape {x.shape}")
    if bool(mf.any(v < 0).item()):
        raise ValueError("gaussian_nll_loss: var has negative entries")
    v = clamped_keeping_gradient(v, eps)  # (an infinite var stays inf: the loss inf, its gradients 0)
    loss = 0.5 * (mf.log(v) + (x - y) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _homoscedastic(var: float, x: Tensor) -> Tensor:
    """A Python float ``var``, one variance for every element, as a constant of ``x``'s shape and dtype
    (PyTorch's ``var * ones_like(input)``; a negative one refused as PyTorch refuses it, first)."""
    if var < 0:
        raise ValueError("gaussian_nll_loss: var has negative entries")
    return mf.full_like(x.detach(), var)
