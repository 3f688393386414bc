"""The everyday layers: Linear, Conv2d, pooling, normalization, dropout,
embedding, activations, Flatten, Identity.

Initialisation follows PyTorch (Kaiming-uniform with ``a = sqrt(5)`` for
Linear and Conv2d weights, ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` biases,
``N(0, 1)`` embeddings, ones/zeros for norms) and draws from the engine
generator, so ``mg.manual_seed`` reproduces a model.
"""

from __future__ import annotations

import math
from typing import Any

from .. import functional as mf
from ..creation import ones, zeros
from ..functional.arguments import as_tensor
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = [
    "Identity", "Linear", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "LayerNorm", "BatchNorm1d",
    "BatchNorm2d", "Dropout", "Embedding", "ReLU", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid",
    "Softmax", "LogSoftmax", "Dropout2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d", "AvgPool1d",
    "Conv1d", "ConvTranspose2d", "GroupNorm", "RMSNorm", "Unflatten", "Softplus", "Hardtanh", "ELU", "Mish",
    "LogSigmoid", "PReLU",
]


def _empty(*shape: int, dtype: Any = None, device: Any = None) -> Parameter:
    return Parameter(zeros(*shape, dtype=dtype, device=device))


class Identity(Module):
    """Returns its input unchanged (a placeholder, e.g. where a block has no projection)."""

    def forward(self, x: Any) -> Any:
        return x


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = _empty(out_features, in_features, dtype=dtype, device=device)
        self.bias = _empty(out_features, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise ValueError(
                f"{self!r}: input of shape {tuple(x.shape)} does not match weight of shape "
                f"{self.weight.shape}: the input's last dimension must be in_features={self.in_features}"
            )
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Flatten(Module):
    """Flatten axes ``start_dim..end_dim`` into one (default: all but the batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        s = self.start_dim % x.ndim if x.ndim else 0
        e = self.end_dim % x.ndim if x.ndim else 0
        n = 1
        for d in x.shape[s:e + 1]:
            n *= d
        return mf.reshape(x, x.shape[:s] + (n,) + x.shape[e + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _pair(v: Any) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


class Conv2d(Module):
    """2-D convolution over NCHW input; weight (out_channels, in_channels/groups, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2d: groups={groups} must divide in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size)
        self.stride, self.dilation = _pair(stride), _pair(dilation)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.groups = int(groups)
        self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype,
                             device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1]
            bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        channel_axis = x.ndim - 3
        if x.ndim not in (3, 4) or x.shape[channel_axis] != self.in_channels:
            raise ValueError(
                f"{self!r}: input of shape {tuple(x.shape)} does not match weight of shape "
                f"{self.weight.shape}: expected (N, {self.in_channels}, H, W) or ({self.in_channels}, H, W)"
            )
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class MaxPool2d(Module):
    """2-D max pooling over (N, C, H, W): the largest value of each window (``F.max_pool2d``)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}")


class AvgPool2d(Module):
    """2-D average pooling over (N, C, H, W): the mean of each window (``F.avg_pool2d``)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.count_include_pad = count_include_pad

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.count_include_pad)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, "
                f"padding={self.padding}")


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` axes, with learned scale and shift."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, float(eps)
        self.weight = Parameter(ones(*shape, dtype=dtype, device=device)) if elementwise_affine else None
        self.bias = (Parameter(zeros(*shape, dtype=dtype, device=device))
                     if elementwise_affine and bias else None)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        k = len(self.normalized_shape)
        if x.shape[x.ndim - k:] != self.normalized_shape:
            raise ValueError(f"{self!r}: input of shape {tuple(x.shape)} does not end with "
                             f"normalized_shape {self.normalized_shape}")
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.weight is not None}"


class _BatchNorm(Module):
    _expected_ndim: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(ones(num_features, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(num_features, dtype=dtype, device=device)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", zeros((), dtype="int64", device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        if x.ndim not in self._expected_ndim or x.shape[1] != self.num_features:
            raise ValueError(
                f"{self!r}: input of shape {tuple(x.shape)} does not match num_features="
                f"{self.num_features} (expected {' or '.join(f'{n}-D' for n in self._expected_ndim)} "
                f"input with {self.num_features} channels on axis 1)"
            )
        use_batch = self.training or not self.track_running_stats
        momentum = self.momentum
        if self.training and self.track_running_stats:
            # Side effect: happens once per forward, never in a checkpoint replay
            # (replay re-runs recorded array math, not this Python code).
            with no_grad():
                self.num_batches_tracked.add_(1)
            if momentum is None:  # cumulative moving average
                momentum = 1.0 / int(self.num_batches_tracked.item())
        return F.batch_norm(
            x,
            self.running_mean if (not self.training or self.track_running_stats) else None,
            self.running_var if (not self.training or self.track_running_stats) else None,
            self.weight, self.bias, use_batch, momentum if momentum is not None else 0.0, self.eps,
        )

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input."""

    _expected_ndim = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input."""

    _expected_ndim = (4,)


class Dropout(Module):
    """Zeroes each element with probability ``p`` in training, scaling the rest by ``1/(1-p)``; identity in eval."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Embedding(Module):
    """A lookup table: ``Embedding(num_embeddings, embedding_dim)(ids)``.

    ``padding_idx``: that row starts at zero and gets no gradient; ``max_norm``:
    rows looked up are first rescaled in place to at most that ``norm_type``-norm
    (PyTorch's arguments and behaviour).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if scale_grad_by_freq or sparse:
            raise ValueError("Embedding: scale_grad_by_freq and sparse gradients are not supported")
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ValueError(f"Embedding: padding_idx={padding_idx} is out of range for "
                                 f"{self.num_embeddings} embeddings")
            padding_idx %= self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, float(norm_type)
        self.weight = _empty(num_embeddings, embedding_dim, dtype=dtype, device=device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, ids: Tensor) -> Tensor:
        return F.embedding(ids, self.weight, self.padding_idx, self.max_norm, self.norm_type)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s


class _Activation(Module):
    fn: Any = None

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return type(self).fn(x)


class ReLU(_Activation):
    """``max(x, 0)`` elementwise."""

    fn = staticmethod(F.relu)


class SiLU(_Activation):
    """``x * sigmoid(x)`` elementwise (also called swish)."""

    fn = staticmethod(F.silu)


class Tanh(_Activation):
    """``tanh(x)`` elementwise."""

    fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    """``1 / (1 + exp(-x))`` elementwise."""

    fn = staticmethod(F.sigmoid)


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class GELU(Module):
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``axis`` (``dim`` is accepted as PyTorch's name)."""

    def __init__(self, axis: int = -1, *, dim: int | None = None) -> None:
        super().__init__()
        self.axis = dim if dim is not None else axis

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.softmax(x, axis=self.axis)


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``axis``, computed stably."""

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.log_softmax(x, axis=self.axis)


# ------------------------------------------------------------ issue 16 layers
class Dropout2d(Module):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input with probability ``p`` in training."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout2d: p must be in [0, 1], got {p}")
        if inplace:
            raise ValueError("Dropout2d: inplace=True is not supported (it would change a value the tape may need)")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.dropout2d(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size`` (int or pair; ``None`` keeps an axis), PyTorch's windows."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Module):
    """Max pooling to a fixed ``output_size`` (int or pair; ``None`` keeps an axis), PyTorch's windows."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        if return_indices:
            raise ValueError("AdaptiveMaxPool2d: return_indices=True is not supported")
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.adaptive_max_pool2d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


def _no_ceil(name: str, ceil_mode: bool) -> None:
    if ceil_mode:
        raise ValueError(f"{name}: ceil_mode=True is not supported")


class MaxPool1d(Module):
    """1-D max pooling over (N, C, L) or (C, L)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        _no_ceil("MaxPool1d", ceil_mode)
        if return_indices:
            raise ValueError("MaxPool1d: return_indices=True is not supported")
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding, self.dilation)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, padding={self.padding}"


class AvgPool1d(Module):
    """1-D average pooling over (N, C, L) or (C, L)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        _no_ceil("AvgPool1d", ceil_mode)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.count_include_pad = count_include_pad

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, padding={self.padding}"


def _single(v: Any) -> int:
    return int(v[0]) if isinstance(v, (tuple, list)) else int(v)


class Conv1d(Module):
    """1-D convolution over (N, C, L) input; weight (out_channels, in_channels/groups, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f"Conv1d: only padding_mode='zeros' is supported, got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv1d: groups={groups} must divide in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        self.kernel_size, self.stride, self.dilation = _single(kernel_size), _single(stride), _single(dilation)
        self.padding = padding if isinstance(padding, str) else _single(padding)
        self.weight = _empty(out_channels, in_channels // groups, self.kernel_size, dtype=dtype, device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size
            init.uniform_(self.bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        if x.ndim not in (2, 3) or x.shape[-2] != self.in_channels:
            raise ValueError(f"{self!r}: input of shape {tuple(x.shape)} does not match: expected "
                             f"(N, {self.in_channels}, L) or ({self.in_channels}, L)")
        return F.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size=({self.kernel_size},), "
                f"stride=({self.stride},), padding={self.padding}")


class ConvTranspose2d(Module):
    """The transpose of Conv2d (a "deconvolution"); weight (in_channels, out_channels/groups, kh, kw).

    Output size ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f"ConvTranspose2d: only padding_mode='zeros' is supported, got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"ConvTranspose2d: groups={groups} must divide in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        self.kernel_size = _pair(kernel_size)
        self.stride, self.padding = _pair(stride), _pair(padding)
        self.output_padding, self.dilation = _pair(output_padding), _pair(dilation)
        self.weight = _empty(in_channels, out_channels // groups, *self.kernel_size, dtype=dtype, device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch computes the fan-in from weight.shape[1] (out_channels / groups) here
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1]
            init.uniform_(self.bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        if x.ndim not in (3, 4) or x.shape[x.ndim - 3] != self.in_channels:
            raise ValueError(f"{self!r}: input of shape {tuple(x.shape)} does not match: expected "
                             f"(N, {self.in_channels}, H, W) or ({self.in_channels}, H, W)")
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class GroupNorm(Module):
    """Normalize groups of channels (and all spatial positions) of (N, C, ...) input, with a learned
    per-channel scale and shift."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} must be divisible by num_groups={num_groups}")
        self.num_groups, self.num_channels, self.eps, self.affine = int(num_groups), int(num_channels), eps, affine
        self.weight = Parameter(ones(num_channels, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(num_channels, dtype=dtype, device=device)) if affine else None

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"{self!r}: input of shape {tuple(x.shape)} needs {self.num_channels} channels on axis 1")
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` axes
    (``eps=None``: the dtype's machine epsilon, as in PyTorch)."""

    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = Parameter(ones(*shape, dtype=dtype, device=device)) if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.weight is not None}"


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = int(dim), tuple(int(s) for s in unflattened_size)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        d = self.dim % x.ndim if x.ndim else 0
        return mf.reshape(x, x.shape[:d] + self.unflattened_size + x.shape[d + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold`` (``F.softplus``)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """Clamp to ``[min_val, max_val]`` (``F.hardtanh``)."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val={min_val} is greater than max_val={max_val}")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.hardtanh(x, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (``F.elu``)."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class Mish(_Activation):
    """``x * tanh(softplus(x))`` elementwise."""

    fn = staticmethod(F.mish)


class LogSigmoid(_Activation):
    """``log(sigmoid(x))`` elementwise, computed stably."""

    fn = staticmethod(F.logsigmoid)


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learned slope: one (``num_parameters=1``)
    or one per channel (axis 1), initialised to ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = int(num_parameters)
        self.weight = Parameter(ones(num_parameters, dtype=dtype, device=device))
        with no_grad():
            self.weight.mul_(float(init))

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
