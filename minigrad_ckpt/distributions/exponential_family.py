"""PyTorch's ``ExponentialFamily``: the base class of a program's own exponential-family distribution,
``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))``. A subclass states its natural parameters
``theta`` (``_natural_params``), its log-normalizer ``F`` (``_log_normalizer``) and ``E[k(x)]``
(``_mean_carrier_measure``); ``entropy`` and the KL between two of the same class (``kl_families``) follow
from ``F`` by its gradient (the Bregman divergence), as PyTorch's. The built-in families here keep their
closed forms and do not derive from it (``isinstance(Normal(...), ExponentialFamily)`` is False)."""

from __future__ import annotations

from typing import Any

from ..backward import grad
from ..tensor import Tensor
from .distributions import Distribution, _sum_rightmost

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """``entropy = F(theta) - <theta, grad F(theta)> - E[k(x)]``."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        gradients = grad(log_normalizer.sum(), params, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for param, gradient in zip(params, gradients):
            result = result - (param * gradient).reshape(*self.batch_shape, -1).sum(-1)
        return result


def kl_exponential_families(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """``F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>`` for two of one family."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    log_normalizer = p._log_normalizer(*p_params)
    gradients = grad(log_normalizer.sum(), p_params)
    result = q._log_normalizer(*q_params) - log_normalizer
    for p_param, q_param, gradient in zip(p_params, q_params, gradients):
        result = result - _sum_rightmost((q_param - p_param) * gradient, len(q.event_shape))
    return result
