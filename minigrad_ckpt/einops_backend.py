"""einops on engine tensors: the backend einops looks for, and its layers as ``mg.nn`` modules.

einops finds the library of a tensor by walking the subclasses of its ``AbstractBackend`` and asking each
whose ``framework_name`` is an imported module whether the tensor is its own; an engine tensor matched
none ("Tensor type unknown to einops"), so ``rearrange``, ``reduce``, ``repeat``, ``einsum``, ``pack`` and
``unpack`` stopped at once. Defining :class:`MinigradBackend` is the whole registration: einops finds the
subclass by itself. Its operations are the engine's recorded ops (``reshape``, ``permute``, reductions,
``unsqueeze``/``expand``, ``einsum``), so gradients, ``mg.func`` transforms and checkpointing go through
einops as through any other code -- the same operations einops' own torch backend calls.

``import minigrad_ckpt`` imports this module only when einops is installed (``find_spec``, which imports
nothing); einops is no dependency of the engine. einops' ``einops.layers.torch`` is written against
``torch.nn``: :class:`Rearrange`, :class:`Reduce` and :class:`EinMix` here are the same layers on
``mg.nn.Module`` (einops' own mixins, as its layers for other libraries are), with parameters of the engine.
"""

from __future__ import annotations

import sys
from typing import Any

from einops._backends import AbstractBackend
from einops.layers import RearrangeMixin, ReduceMixin
from einops.layers._einmix import _EinmixMixin

from . import functional as F
from .backend import cpu
from .creation import arange, zeros
from .nn import Module, Parameter
from .tensor import Tensor

__all__ = ["EinMix", "MinigradBackend", "Rearrange", "Reduce"]

_FLOATS = ("float16", "float32", "float64")


class MinigradBackend(AbstractBackend):
    """einops' backend for ``minigrad_ckpt.Tensor``: einops' torch backend, operation for operation."""

    framework_name = "minigrad_ckpt"

    def is_appropriate_type(self, tensor: Any) -> bool:
        return isinstance(tensor, Tensor)

    def from_numpy(self, x: Any) -> Tensor:
        t = Tensor.sharing(x, cpu)
        if self.is_float_type(t):  # as einops' torch backend: float inputs of its tests take gradients
            t.requires_grad_(True)
        return t

    def to_numpy(self, x: Tensor) -> Any:
        return x.detach().cpu().numpy()

    def arange(self, start: int, stop: int) -> Tensor:
        return arange(start, stop)

    def reduce(self, x: Tensor, operation: str, reduced_axes: Any) -> Tensor:
        if operation in ("min", "max"):
            return getattr(x, "a" + operation)(dim=tuple(reduced_axes))
        if operation in ("sum", "mean"):
            return getattr(x, operation)(dim=tuple(reduced_axes))
        if operation in ("any", "all", "prod"):  # PyTorch's take one dim: reduce from the last one down
            for i in sorted(reduced_axes)[::-1]:
                x = getattr(x, operation)(dim=i)
            return x
        raise NotImplementedError("Unknown reduction ", operation)

    def transpose(self, x: Tensor, axes: Any) -> Tensor:
        return x.permute(*axes)

    def stack_on_zeroth_dimension(self, tensors: list[Tensor]) -> Tensor:
        return F.stack(tensors)

    def add_axes(self, x: Tensor, n_axes: int, pos2len: dict[int, int]) -> Tensor:
        repeats = [-1] * n_axes
        for position, length in pos2len.items():
            x = x.unsqueeze(position)
            repeats[position] = length
        return x.expand(*repeats)  # a broadcast view, as torch's expand: no copy until written

    def add_axis(self, x: Tensor, new_position: int) -> Tensor:
        return x.unsqueeze(new_position)

    def tile(self, x: Tensor, repeats: Any) -> Tensor:
        return x.repeat(*repeats)

    def concat(self, tensors: list[Tensor], axis: int) -> Tensor:
        return F.cat(tensors, dim=axis)

    def is_float_type(self, x: Tensor) -> bool:
        return str(x.dtype).removeprefix("minigrad_ckpt.") in _FLOATS

    def layers(self) -> Any:
        return sys.modules[__name__]

    def einsum(self, pattern: str, *x: Tensor) -> Tensor:
        return F.einsum(pattern, *x)


class Rearrange(RearrangeMixin, Module):
    """einops' ``Rearrange(pattern, **axes_lengths)`` layer on engine tensors: ``rearrange`` as a module."""

    def forward(self, input: Tensor) -> Tensor:
        return self._apply_recipe(input)


class Reduce(ReduceMixin, Module):
    """einops' ``Reduce(pattern, reduction, **axes_lengths)`` layer on engine tensors."""

    def forward(self, input: Tensor) -> Tensor:
        return self._apply_recipe(input)


class EinMix(_EinmixMixin, Module):
    """einops' ``EinMix(pattern, weight_shape, bias_shape=None, **axes_lengths)``: a linear layer written as
    an einsum pattern, its weight and bias drawn uniformly in einops' bounds from the engine's generator."""

    def _create_parameters(self, weight_shape: Any, weight_bound: float, bias_shape: Any,
                           bias_bound: float) -> None:
        self.weight = Parameter(zeros(weight_shape).uniform_(-weight_bound, weight_bound))
        self.bias = None if bias_shape is None else Parameter(zeros(bias_shape).uniform_(-bias_bound, bias_bound))

    def _create_rearrange_layers(self, pre_reshape_pattern: str | None, pre_reshape_lengths: dict | None,
                                 post_reshape_pattern: str | None, post_reshape_lengths: dict | None) -> None:
        self.pre_rearrange = None
        if pre_reshape_pattern is not None:
            self.pre_rearrange = Rearrange(pre_reshape_pattern, **(pre_reshape_lengths or {}))
        self.post_rearrange = None
        if post_reshape_pattern is not None:
            self.post_rearrange = Rearrange(post_reshape_pattern, **(post_reshape_lengths or {}))

    def forward(self, input: Tensor) -> Tensor:
        if self.pre_rearrange is not None:
            input = self.pre_rearrange(input)
        result = F.einsum(self.einsum_pattern, input, self.weight)
        if self.bias is not None:
            result = result + self.bias
        if self.post_rearrange is not None:
            result = self.post_rearrange(result)
        return result
