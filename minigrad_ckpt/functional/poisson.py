"""Poisson counts: ``mg.poisson`` (``torch.poisson``) and the draws that ``distributions.Poisson``
and ``NegativeBinomial`` sample with -- inversion below rate 10, Hormann's transformed rejection
(PTRS, NumPy's method) from 10 up -- from the engine's generator, or PyTorch's ``generator=``;
and Stirling's error term, which ``Binomial``'s BTRS shares.  Below the distributions (a later
layer), so that the top-level function draws exactly what ``Poisson(rate).sample()`` draws."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from .. import random as _random
from ..backend import scalar_type_name
from ..grad_mode import no_grad
from ..ops import elementwise as _elementwise
from ..tape import apply
from ..tensor import Tensor
from .elementwise import where
from .errors import DtypeNotImplemented


class InvalidPoissonRate(RuntimeError, ValueError):
    """A negative or NaN rate: PyTorch's ``RuntimeError``, and a ``ValueError`` (the value is wrong)."""


def poisson(input: Any, generator: _random.Generator | None = None) -> Tensor:  # noqa: A002
    """A Poisson count for each rate of ``input`` (``torch.poisson``): the same shape and floating dtype,
    from the engine's generator or ``generator``.  As PyTorch's, the result requires grad where
    ``input`` does, with a derivative of 0 (the draw is not reparameterized); an integer, bool or
    complex ``input`` is its ``NotImplementedError``, a negative or NaN rate its ``RuntimeError``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.dtype.kind != "f":
        raise DtypeNotImplemented(f"\"poisson_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    rate = input.detach()
    if rate.size and not bool((rate >= 0).all().item()):  # (NaN fails the test too)
        raise InvalidPoissonRate("invalid Poisson rate, expected rate to be non-negative")
    counts = poisson_draws(rate, tuple(rate.shape), generator)
    # PyTorch's PoissonBackward: recorded with a derivative of exactly 0 (Where's unselected
    # branch), so the result requires grad where the rate does, in backward and under the transforms
    everywhere = Tensor.constant(input.device.xp.ones(counts.shape, dtype=bool), input.device)
    return apply(_elementwise.Where(), everywhere, counts, input)


def poisson_draws(rate: Tensor, shape: tuple[int, ...], generator: _random.Generator | None = None) -> Tensor:
    """Poisson counts of ``rate`` (broadcast to ``shape``), without gradient: inversion below 10, PTRS
    above; an infinite rate counts inf (PTRS would never accept a draw of it)."""
    with no_grad():
        rate = rate.detach()
        infinite = rate == math.inf
        if bool(infinite.any().item()):
            return where(infinite, math.inf, poisson_draws(where(infinite, 0.0, rate), shape, generator))
        small = _poisson_small(rate.clamp(max=10.0), shape, generator)
        if not bool((rate >= 10).any().item()):
            return small
        return where(rate >= 10, _poisson_ptrs(rate.clamp(min=10.0), shape, generator), small)


def _poisson_small(rate: Tensor, shape: tuple[int, ...], generator: _random.Generator | None) -> Tensor:
    """Inversion: the first ``k`` whose cdf passes a uniform draw (rates below 10: a few steps)."""
    u = creation.rand(*shape, dtype=rate.dtype, device=rate.device, generator=generator)
    rate = rate.expand(*shape)
    term = (-rate).exp()
    cdf, k = term, creation.zeros(shape, dtype=rate.dtype, device=rate.device)
    for _ in range(200):  # P(k > 200 | rate < 10) is far below every dtype's resolution
        below = u > cdf
        if not bool(below.any().item()):
            break
        k = k + below.to(k.dtype)
        term = term * rate / k.clamp(min=1)
        cdf = where(below, cdf + term, cdf)
    return k


def _poisson_ptrs(rate: Tensor, shape: tuple[int, ...], generator: _random.Generator | None) -> Tensor:
    """Hormann's PTRS (NumPy's sampler for rates of 10 and more): uniform pairs until accepted."""
    rate = rate.expand(*shape)
    slam = rate.sqrt()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha, vr = 1.1239 + 1.1328 / (b - 3.4), 0.9277 - 3.6224 / (b - 2)
    result, pending = rate * 0, rate == rate  # every element still to draw
    while bool(pending.any().item()):
        uu = creation.rand(*shape, dtype=rate.dtype, device=rate.device, generator=generator) - 0.5
        v = creation.rand(*shape, dtype=rate.dtype, device=rate.device, generator=generator)
        us = 0.5 - uu.abs()
        k = ((2 * a / us + b) * uu + rate + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        kk = k.clamp(min=0)
        # k log(rate) - rate - log k!, rearranged so no two large terms cancel (float32 at large rates)
        log_target = (kk * ((rate - kk - 1) / (kk + 1)).log1p() - 0.5 * (kk + 1).log() + (kk + 1 - rate)
                      - 0.5 * math.log(2 * math.pi) - stirling_tail(kk))
        slow = v.log() + invalpha.log() - (a / (us * us) + b).log() <= log_target
        accepted = pending & (quick | (possible & slow))
        result, pending = where(accepted, k, result), pending & ~accepted
    return result


def stirling_tail(k: Tensor) -> Tensor:
    """``log k! - ((k + 1/2) log(k + 1) - (k + 1) + log sqrt(2 pi))``, Stirling's formula's error: by
    its series from 10 up (PyTorch's), where the difference of two numbers near ``k log k`` would lose
    float32's digits, and from ``lgamma`` below."""
    small = k.clamp(max=10.0)
    exact = (small + 1).lgamma() - ((small + 0.5) * (small + 1).log() - (small + 1) + 0.5 * math.log(2 * math.pi))
    kp1sq = (k + 1).pow(2)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return where(k < 10, exact, series)
