"""Layers over blocks and neighbourhoods: ``AdaptiveAvgPool1d``, ``AdaptiveMaxPool1d``,
``MaxUnpool1d``/``2d``/``3d``, ``Fold``, ``Unfold``, ``LocalResponseNorm``, ``InstanceNorm1d``/``2d``,
``ConvTranspose1d``, ``Conv3d`` and ``AdaptiveAvgPool3d`` (each calls its function in
:mod:`minigrad_ckpt.nn.functional`)."""

from __future__ import annotations

import warnings
from typing import Any

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import functional as F
from .conv import _check_groups, _check_padding_mode, _checked_padding, _ConvTransposeNd, _PlainConvNd
from .function_layer import FunctionLayer
from .functional.conv import _ntuple
from .module import Module, _empty
from .normalization import _batches_tracked_default, _NormBase
from .pooling import _AdaptiveAvgPool, _AdaptiveMaxPool

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "MaxUnpool1d", "MaxUnpool2d", "Fold", "Unfold", "LocalResponseNorm",
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "ConvTranspose1d", "Conv3d", "AdaptiveAvgPool3d",
    "MaxUnpool3d",
]


class AdaptiveAvgPool1d(_AdaptiveAvgPool):
    """Average pooling of (N, C, L) to a fixed ``output_size`` (``F.adaptive_avg_pool1d``)."""

    fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling of (N, C, L) to a fixed ``output_size``; ``return_indices`` as ``F.adaptive_max_pool1d``."""

    fn = staticmethod(F.adaptive_max_pool1d)


class _MaxUnpool(Module):
    fn: Any = None
    spatial = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        # PyTorch keeps them as tuples of the layer's spatial rank: MaxUnpool2d(2).kernel_size == (2, 2)
        as_tuple = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * self.spatial  # noqa: E731
        self.kernel_size, self.padding = as_tuple(kernel_size), as_tuple(padding)
        self.stride = as_tuple(stride or kernel_size)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        x = input  # PyTorch's argument name
        return type(self).fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """The partial inverse of ``MaxPool1d``: ``layer(x, indices)`` (``F.max_unpool1d``)."""

    fn = staticmethod(F.max_unpool1d)
    spatial = 1


class MaxUnpool2d(_MaxUnpool):
    """The partial inverse of ``MaxPool2d``: ``layer(x, indices)`` (``F.max_unpool2d``)."""

    fn = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """The partial inverse of ``MaxPool3d``: ``layer(x, indices)`` (``F.max_unpool3d``)."""

    fn = staticmethod(F.max_unpool3d)
    spatial = 3


class Unfold(FunctionLayer):
    """The sliding blocks of (N, C, H, W) as columns (``F.unfold``)."""

    fn = staticmethod(F.unfold)
    options = ("kernel_size", "dilation", "padding", "stride")

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)


class Fold(FunctionLayer):
    """Columns summed back into their blocks of an ``output_size`` plane (``F.fold``)."""

    fn = staticmethod(F.fold)
    options = ("output_size", "kernel_size", "dilation", "padding", "stride")

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__(output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
                         stride=stride)


class LocalResponseNorm(FunctionLayer):
    """Normalization by the neighbouring channels' mean square (``F.local_response_norm``)."""

    fn = staticmethod(F.local_response_norm)
    options = ("size", "alpha", "beta", "k")

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__(size=size, alpha=alpha, beta=beta, k=k)

    def extra_repr(self) -> str:  # PyTorch's: the size first, unnamed
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _InstanceNorm(_NormBase):
    _spatial: int = 1
    _version = 2  # PyTorch's (_NormBase's)

    def _older_format_defaults(self, prefix: str, version: int | None) -> dict[str, Any]:
        return _batches_tracked_default(self, prefix, version)

    def _older_format_refused(self, state_dict: Any, prefix: str,
                              version: int | None) -> tuple[list[str], list[str]]:
        """PyTorch's: running stats in a state dict of no known version, for an InstanceNorm that does not
        track them (the default since PyTorch 0.4), are refused (an error even when not strict)."""
        keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
        if version is not None or self.track_running_stats or not keys:
            return [], []
        klass = type(self).__name__
        names = " and ".join(f'"{k}"' for k in keys)
        return keys, [f"Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. "
                      f"If state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} "
                      "does not track running stats by default since 0.4.0. Please remove these keys from "
                      "state_dict. If the running stats are actually needed, instead set "
                      f"track_running_stats=True in {klass} to enable them. See the documentation of {klass} "
                      "for details."]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        x = as_tensor(input)
        self._check_channels(x)
        unbatched = x.ndim == self._spatial + 1
        if unbatched:
            x = x[None]
        use_input_stats = self.training or not self.track_running_stats
        # momentum=None is BatchNorm's cumulative average; InstanceNorm counts no batches, and
        # PyTorch passes 0 for it: the running statistics keep their values
        momentum = 0.0 if self.momentum is None else self.momentum
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_input_stats, momentum, self.eps)
        return out[0] if unbatched else out

    def _check_channels(self, x: Tensor) -> None:
        """PyTorch's checks: the rank is an error; a channel count other than ``num_features`` is
        one only where it is used (``affine``: the weight's length; running statistics fail in
        ``F.instance_norm``), else PyTorch's warning, and the input is normalized all the same."""
        if x.ndim not in (self._spatial + 1, self._spatial + 2):
            raise ValueError(f"expected {self._spatial + 1}D or {self._spatial + 2}D input (got {x.ndim}D input)")
        feature_dim = x.ndim - self._spatial - 1
        if x.shape[feature_dim] == self.num_features:
            return
        if self.affine:
            raise ValueError(f"expected input's size at dim={feature_dim} to match num_features"
                             f" ({self.num_features}), but got: {x.shape[feature_dim]}.")
        warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                      "warning by not passing in num_features, which is not used because affine=False",
                      stacklevel=stacklevel_outside_the_engine())

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) input (``F.instance_norm``)."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) input (``F.instance_norm``)."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) input (``F.instance_norm``)."""

    _spatial = 3


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of Conv1d over (N, C, L); weight (in_channels, out_channels/groups, k);
    ``forward(x, output_size=...)`` as PyTorch's."""

    fn = staticmethod(F.conv_transpose1d)
    spatial = 1
    axes = "L"


def _triple(v: Any, param: str) -> tuple[int, int, int]:
    """A Conv3d size argument as three ints (a sequence of another length refused)."""
    return _ntuple(v, 3, param, "Conv3d")  # type: ignore[return-value]


class Conv3d(_PlainConvNd):
    """3-D convolution over NCDHW input; weight (out_channels, in_channels/groups, kd, kh, kw)."""

    _spatial_axes = "D, H, W"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        groups = _check_groups("Conv3d", in_channels, out_channels, groups)
        self.output_padding = (0, 0, 0)  # PyTorch's attribute of a plain convolution
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        self.kernel_size = _triple(kernel_size, "kernel_size")
        self.stride, self.dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
        self.padding = _checked_padding("Conv3d", padding, self.stride, _triple)
        self.padding_mode = _check_padding_mode("Conv3d", padding_mode)  # (PyTorch's order of the checks)
        self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype, device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()


class AdaptiveAvgPool3d(_AdaptiveAvgPool):
    """Average pooling of (N, C, D, H, W) to a fixed ``output_size`` (``F.adaptive_avg_pool3d``)."""

    fn = staticmethod(F.adaptive_avg_pool3d)
