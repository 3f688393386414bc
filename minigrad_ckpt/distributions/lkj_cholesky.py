"""PyTorch's ``LKJCholesky(dim, concentration)``: the LKJ distribution over correlation matrices, on their
lower Cholesky factors (the prior Bayesian hierarchical models put on a correlation structure). Its
``log_prob`` is Stan's (the density of the factor, with the Jacobian of ``L -> L L^T``), its draws the onion
method vectorized as PyTorch's: a Beta radius per row times a uniform direction on the sphere."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.elementwise import where
from ..functional.special_extended import multigammaln
from ..functional.torch_idioms import cat
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _broadcast_all, _shape
from .gamma import Beta

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Cholesky factors of ``dim x dim`` correlation matrices with density proportional to
    ``det(L L^T)^(concentration - 1)``; ``concentration = 1`` is uniform over correlation matrices."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky
    _given = ("concentration",)

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: Any = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = _broadcast_all(concentration)
        # the onion method's radii (LKJ 2009, section 3.2): row i >= 1 joins an i x i correlation matrix with
        # squared off-diagonal norm ~ Beta(i/2, c + (dim - 2)/2 - (i - 1)/2) (row 0 has none). PyTorch 2.13 gives
        # row i >= 2 a first concentration of i - 1/2, not i/2: its draws' correlations past the second row are
        # wider than LKJ's (variance 0.185 against 1/7 at dim 4, c = 2) and disagree with its own log_prob.
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = creation.arange(dim - 1, dtype=marginal.dtype, device=marginal.device)
        offset = cat([offset[:1] * 0, offset], 0)  # 0, 0, 1, ..., dim - 2: row i's i - 1 (and 0 for row 0)
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        self.batch_shape, self.event_shape = tuple(self.concentration.shape), (dim, dim)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        shape = _shape(batch_shape)
        return self._expanded(LKJCholesky, _instance, shape, self.event_shape, dim=self.dim,
                              concentration=self.concentration.expand(*shape),
                              _beta=self._beta.expand(shape + (self.dim,)))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = creation.randn(*self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            norm = u.pow(2).sum(-1, keepdim=True).sqrt()
            first_row = creation.arange(self.dim, device=y.device).reshape(self.dim, 1) == 0
            direction = where(first_row, u * 0, u / where(first_row, norm * 0 + 1, norm))  # row 0 has none
            w = y.sqrt() * direction
            tiny = float(host_numpy.finfo(w.dtype).tiny)
            return w + (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt().diag_embed()

    def log_prob(self, value: Any) -> Tensor:
        """``sum_i (2 (c - 1) + dim - i) log L_ii`` (i from 2) less the normalizer (PyTorch's, from LKJ 2009)."""
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = creation.arange(2, self.dim + 1, dtype=diag.dtype, device=diag.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + multigammaln(alpha - 0.5, dm1) - alpha.lgamma() * dm1
        return (order * diag.log()).sum(-1) - normalizer
