"""PyTorch's lazy layers: ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``.

Each is its eager layer built with 0 input features (``in_features``, ``in_channels``,
``num_features``) and :class:`~.uninitialized.UninitializedParameter` s for weights, with PyTorch's
constructor (the eager one's, less the input size).  Its first input gives that size
(``input.shape[-1]`` for a linear layer, the channel axis for the others): the weights are
materialized and the eager layer's ``reset_parameters`` initializes them (the same distribution, drawn
from the engine generator at that moment), and the module becomes the eager class
(:class:`~.lazy.LazyModuleMixin`).

PyTorch's defaults are kept where they differ from the eager layer's: a ``LazyInstanceNorm`` is
``affine`` and tracks running statistics unless told otherwise (``InstanceNorm``'s defaults are False).
"""

from __future__ import annotations

from typing import Any

from ..creation import tensor
from ..grad_mode import no_grad
from .blocks import Conv3d, ConvTranspose1d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .conv import Conv1d, Conv2d, ConvTranspose2d, ConvTranspose3d
from .lazy import LazyModuleMixin
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm
from .uninitialized import UninitializedBuffer, UninitializedParameter

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is the last axis of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Any) -> None:  # type: ignore[override]
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # (loaded from a state dict: the weight has its shape, the attribute not)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the input's channel axis."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Any, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            per_group = (self.out_channels if self.transposed else self.in_channels) // self.groups
            first = self.in_channels if self.transposed else self.out_channels
            self.weight.materialize((first, per_group, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Any) -> int:
        n = self._get_num_spatial_dims()
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == n + 2 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return len(self.kernel_size)


def _lazy_conv(eager: type, transposed: bool) -> type:
    """The lazy twin of the convolution class ``eager``, with PyTorch's constructor (the eager one's
    without ``in_channels``)."""

    def conv_init(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                  dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                  device: Any = None, dtype: Any = None) -> None:
        eager_args = (0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        _LazyConvXdMixin.__init__(self, *eager_args, device=device, dtype=dtype)
        _take_weights(self, out_channels, bias, device, dtype)

    def transpose_init(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                       output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                       padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        eager_args = (0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode)
        _LazyConvXdMixin.__init__(self, *eager_args, device=device, dtype=dtype)
        _take_weights(self, out_channels, bias, device, dtype)

    name = f"Lazy{eager.__name__}"
    doc = (f"A ``{eager.__name__}`` whose ``in_channels`` is the channel axis of its first input (axis 1, or 0 "
           "for an unbatched input).")
    return type(name, (_LazyConvXdMixin, eager), {"cls_to_become": eager, "__doc__": doc, "__module__": __name__,
                                                  "__init__": transpose_init if transposed else conv_init})


def _take_weights(conv: Any, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
    conv.weight = UninitializedParameter(device=device, dtype=dtype)
    conv.out_channels = out_channels
    if bias:
        conv.bias = UninitializedParameter(device=device, dtype=dtype)


LazyConv1d = _lazy_conv(Conv1d, False)
LazyConv2d = _lazy_conv(Conv2d, False)
LazyConv3d = _lazy_conv(Conv3d, False)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, True)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, True)


class _LazyNormBase(LazyModuleMixin):
    """What the lazy norms share: ``num_features`` from the input's axis 1."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype="int64", device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Any) -> None:  # type: ignore[override]
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]  # (PyTorch's axis 1, for an unbatched input too)
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None:
                    t.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(eager: type, base: type) -> type:
    doc = f"A ``{eager.__name__}`` whose ``num_features`` is axis 1 of its first input."
    return type(f"Lazy{eager.__name__}", (_LazyNormBase, base),
                {"cls_to_become": eager, "__doc__": doc, "__module__": __name__,
                 "_expected_ndim": getattr(eager, "_expected_ndim", ()), "_spatial": getattr(eager, "_spatial", 1)})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, _BatchNorm)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, _BatchNorm)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, _BatchNorm)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, _InstanceNorm)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, _InstanceNorm)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, _InstanceNorm)
