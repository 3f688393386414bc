"""PyTorch's ``nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as
parametrizations (:mod:`.parametrize`) -- the forms PyTorch now recommends over the hook-based
ones of :mod:`.weight_norm` and :mod:`.spectral_norm`. State dict keys are PyTorch's:
``parametrizations.weight.original0``/``original1`` (g, v) and ``parametrizations.weight.original``
with the buffers ``parametrizations.weight.0._u``/``_v``.
"""

from __future__ import annotations

from ...grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from .parametrize import register_parametrization
from .spectral_norm import _default_dim, random_unit
from .weight_norm import norm_except_dim

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    """``(g, v) -> g * v / ||v||``; its right inverse splits a weight into its norm and itself."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """``module.<name> = g * v / ||v||`` with ``g`` (``original0``) and ``v`` (``original1``)
    trained; ``dim`` as in the hook-based :func:`minigrad_ckpt.nn.utils.weight_norm`."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


class _SpectralNorm(Module):
    """``W -> W / sigma(W)``, ``sigma`` by power iteration on the buffers ``_u``, ``_v`` (refined
    in place in training mode; 15 steps at creation), PyTorch's parametrization. A 1-D weight is
    just normalized (its spectral norm is its 2-norm)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            h, w = self._reshape_weight_to_matrix(weight).shape
            self.register_buffer("_u", random_unit(h, weight, eps))
            self.register_buffer("_v", random_unit(w, weight, eps))
            self._power_method(self._reshape_weight_to_matrix(weight), 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():  # u first, then v: this form's order (the hook-based one does v first)
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies, so a later forward's in-place refinement leaves this one's backward alone
        u, v = self._u.clone(), self._v.clone()
        return weight / u.dot(weight_mat.mv(v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """``module.<name> = W / sigma(W)`` as a parametrization (``original`` is ``W``); arguments as the
    hook-based :func:`minigrad_ckpt.nn.utils.spectral_norm`."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = _default_dim(module) if dim is None else dim
    return register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
