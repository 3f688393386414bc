"""PyTorch's hook-based ``spectral_norm`` / ``remove_spectral_norm`` (``torch.nn.utils.spectral_norm``).

``spectral_norm(module)`` keeps the trained parameter as ``weight_orig`` and, before every call,
sets ``weight = weight_orig / sigma``, ``sigma`` the largest singular value of ``weight_orig`` seen
as a matrix (``dim`` first, the rest flattened), estimated by power iteration: the buffers
``weight_u`` and ``weight_v`` hold the current left and right singular-vector estimates and are
refined in place by ``n_power_iterations`` steps per forward in training mode (none in eval
mode), as PyTorch's -- so the state dict has PyTorch's keys ``weight_orig``, ``weight_u``,
``weight_v`` and a torch state dict loads. ``sigma = u . (W v)`` with ``u`` and ``v`` held
constant, so the gradient reaches ``weight_orig`` through both ``W`` and ``sigma``, as PyTorch's.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ... import creation
from ...grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module, Parameter
from .weight_norm import find_reparameterization, remove_reparameterization

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]

ModuleT = TypeVar("ModuleT", bound=Module)


def random_unit(n: int, like: Tensor, eps: float) -> Tensor:
    """A random unit vector of length ``n`` in ``like``'s dtype and device: a power iteration's
    start, from the engine's generator (so not PyTorch's numbers for a seed)."""
    with no_grad():
        return F.normalize(creation.randn(n, dtype=like.dtype, device=like.device), dim=0, eps=eps)


class SpectralNorm:
    """The forward pre-hook: ``module.<name> = <name>_orig / sigma`` (see the module docstring)."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix: ``dim`` becomes the rows, every other dim flattened into columns."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # in place, so the buffers the state dict holds are the refined ones
                    v.copy_(F.normalize(weight_mat.detach().t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat.detach().mv(v), dim=0, eps=self.eps))
                # copies: a later forward's in-place refinement must not change what this one used
                u, v = u.clone(), v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        if find_reparameterization(module, SpectralNorm, name) is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u, v = random_unit(h, weight, eps), random_unit(w, weight, eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        # a plain attribute, so code reading module.weight before the first forward finds it
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def _default_dim(module: Module) -> int:
    """1 for a transposed convolution (its weight is ``(in, out, ...)``), else 0: the output dim."""
    from ..conv import _ConvTransposeNd  # every ConvTranspose{1,2,3}d

    return 1 if isinstance(module, _ConvTransposeNd) else 0


def spectral_norm(module: ModuleT, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> ModuleT:
    """Divide ``module.<name>`` by its spectral norm before every call (Miyato et al.), PyTorch's
    hook-based form. ``dim`` is the output dim (default 0; 1 for ``ConvTranspose*``); ``eps``
    guards the normalizations. Returns the module."""
    SpectralNorm.apply(module, name, n_power_iterations, _default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module: ModuleT, name: str = "weight") -> ModuleT:
    """Undo :func:`spectral_norm`: ``<name>`` becomes one parameter again, holding the current
    ``weight_orig / sigma`` (no power iteration)."""
    return remove_reparameterization(module, SpectralNorm, name, "spectral_norm")
