"""PyTorch's ``VonMises``: the circular normal ``exp(k cos(x - loc)) / (2 pi I0(k))`` on angles, its
Bessel functions by PyTorch's polynomial approximations (Abramowitz and Stegun 9.8.1-9.8.4, so its
``log_prob`` and ``variance`` are PyTorch's numbers, within their 1e-7 accuracy of the true values), its
draws by Best and Fisher's rejection sampler (as PyTorch's; not reparameterized: ``has_rsample`` False)."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.elementwise import where
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _CenteredAtLoc, _init_parameters, _shape

__all__ = ["VonMises"]

# (I0, I1) coefficients below 3.75 (in (x/3.75)^2) and above it (in 3.75/x, times e^x / sqrt(x))
_COEF_SMALL = ((1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
               (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3))
_COEF_LARGE = ((0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
                -0.1647633e-1, 0.392377e-2),
               (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
                0.1787654e-1, -0.420059e-2))


def _eval_poly(y: Tensor, coef: tuple[float, ...]) -> Tensor:
    result = y * 0 + coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """``log I_order(x)`` for ``x > 0`` and order 0 or 1, PyTorch's approximation."""
    y = x / 3.75
    small = _eval_poly(y * y, _COEF_SMALL[order])
    small = (x.abs() * small if order == 1 else small).log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return where(x < 3.75, small, large)


class VonMises(_CenteredAtLoc, Distribution):
    """Angles around ``loc`` with ``concentration`` (``k``); support written as the reals, as PyTorch's;
    ``loc`` its circular mean and mode."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    _given = ("loc", "concentration")

    def __init__(self, loc: Any, concentration: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (loc, concentration), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        shape = _shape(batch_shape)
        return self._expanded(VonMises, _instance, shape, loc=self.loc.expand(*shape),
                              concentration=self.concentration.expand(*shape))

    @property
    def variance(self) -> Tensor:
        """The circular variance, ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, order=1) - _log_modified_bessel_fn(k, order=0)).exp()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * (value - self.loc).cos() - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    def _proposal_r(self) -> Tensor:
        k = self.concentration
        tau = 1 + (1 + 4 * k.pow(2)).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        return where(k < 1e-5, 1 / k + k, (1 + rho.pow(2)) / (2 * rho))  # its Taylor form for tiny k

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Best and Fisher's rejection sampler, wrapped into ``[-pi, pi)`` around ``loc``. PyTorch draws in
        float64; the engine in the parameters' dtype (a float32-only device has no float64)."""
        shape = self._extended_shape(sample_shape)
        # the tiny-k branch of the proposal overflows where it is not taken: discarded, unwarned
        with no_grad(), host_numpy.errstate(over="ignore", invalid="ignore", divide="ignore"):
            loc, k = self.loc.detach().expand(*shape), self.concentration.detach().expand(*shape)
            r = self._proposal_r().detach().expand(*shape)
            x, done = loc * 0, loc != loc
            while not bool(done.all().item()):
                u1, u2, u3 = (creation.rand(*shape, dtype=loc.dtype, device=loc.device) for _ in range(3))
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return (x + math.pi + loc).remainder(2 * math.pi) - math.pi
