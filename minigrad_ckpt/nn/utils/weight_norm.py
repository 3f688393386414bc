"""PyTorch's hook-based ``weight_norm`` / ``remove_weight_norm`` (``torch.nn.utils.weight_norm``).

``weight_norm(module)`` replaces the parameter ``weight`` by two, ``weight_g`` (a magnitude per
slice along ``dim``) and ``weight_v`` (a direction), and a forward pre-hook recomputes
``weight = weight_g * weight_v / ||weight_v||`` before every call -- so the optimizer trains ``g``
and ``v``, and the state dict has PyTorch's keys ``weight_g``/``weight_v`` (a torch state dict loads).
The recomputation is ordinary differentiable ops, so it is recorded on the tape, checkpointed
and transformed (``mg.func.functional_call`` swaps ``weight_g``/``weight_v``) like any layer code.
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from ...functional.arguments import one_axis
from ...functional.linalg_derived import vector_norm
from ...grad_mode import no_grad
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from ..module import Module, Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]

ModuleT = TypeVar("ModuleT", bound=Module)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002 (PyTorch's name)
    """The ``pow``-norm of each slice of ``v`` along ``dim``, shaped to broadcast against ``v``
    (1 everywhere but ``dim``); ``dim=-1`` means the norm of the whole tensor (0-d), PyTorch's
    convention (so the last dim cannot be chosen as ``-1``: write its index)."""
    if dim == -1:
        return vector_norm(v, pow)
    dim = one_axis(dim, v.ndim)  # PyTorch's IndexError for a dim out of range, not wrapped around
    others = tuple(d for d in range(v.ndim) if d != dim)
    if not others:  # a 1-D v (a bias): each slice is one element, its norm that element's magnitude, as
        # PyTorch's (it takes each row of v.view(n, -1)); vector_norm would read dim=() as "all dims"
        return vector_norm(v.unsqueeze(-1), pow, dim=-1)
    return vector_norm(v, pow, dim=others, keepdim=True)


def find_reparameterization(module: Module, kind: type, name: str) -> int | None:
    """The key of ``module``'s forward pre-hook of class ``kind`` for parameter ``name``, or None:
    how ``weight_norm`` and ``spectral_norm`` find their own hook to refuse a second or remove it."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key
    return None


def remove_reparameterization(module: ModuleT, kind: type, name: str, what: str) -> ModuleT:
    """Run the ``kind`` hook's ``remove`` (``<name>`` a parameter again) and drop the hook."""
    key = find_reparameterization(module, kind, name)
    if key is None:
        raise ValueError(f"{what} of '{name}' not found in {module}")
    module._forward_pre_hooks[key].remove(module)
    del module._forward_pre_hooks[key]
    return module


class WeightNorm:
    """The forward pre-hook: ``module.<name> = g * v / ||v||`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        if find_reparameterization(module, WeightNorm, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        with no_grad():
            g = norm_except_dim(weight, 2, fn.dim)
        module.register_parameter(name + "_g", Parameter(g.detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        # a plain attribute (not a parameter): the pre-hook refreshes it before every forward
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: ModuleT, name: str = "weight", dim: int | None = 0) -> ModuleT:
    """Reparameterize ``module.<name>`` as ``g * v / ||v||`` (Salimans & Kingma), PyTorch's
    deprecated hook-based form: ``dim`` is the dim that keeps one magnitude per slice (0: one per
    output unit of a Linear or Conv), ``None`` one magnitude for the whole tensor. Returns the
    module, which now has parameters ``<name>_g`` and ``<name>_v`` in place of ``<name>``.  Each call
    warns as PyTorch 2.13's does (a FutureWarning naming ``parametrizations.weight_norm``, whose state
    dict keys are ``parametrizations.<name>.original0``/``original1``)."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,  # (PyTorch's words)
                  stacklevel=stacklevel_outside_the_engine())
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: ModuleT, name: str = "weight") -> ModuleT:
    """Undo :func:`weight_norm`: ``<name>`` becomes one parameter again, holding the current
    ``g * v / ||v||``."""
    return remove_reparameterization(module, WeightNorm, name, "weight_norm")
