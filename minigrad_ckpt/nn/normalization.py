"""Normalization layers: ``LayerNorm``, ``BatchNorm1d``/``2d``, ``GroupNorm``, ``RMSNorm``
(weights start at ones, biases at zeros, as in PyTorch).
"""

from __future__ import annotations

from typing import Any

from ..creation import ones, zeros
from ..functional.arguments import as_tensor, number
from ..functional.errors import InputMismatch
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from .functional.norm_checks import group_norm_refusal, per_channel_refusal, trailing_shape_refusal
from .module import Module, Parameter

__all__ = [
    "LayerNorm", "BatchNorm1d", "BatchNorm2d", "GroupNorm", "RMSNorm", "BatchNorm3d",
]


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` axes, with learned scale and shift."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        # eps kept as given, as PyTorch keeps it (its repr shows eps=0)
        self.normalized_shape, self.eps = shape, number(type(self).__name__, "eps", eps, "float")
        self.elementwise_affine = elementwise_affine  # PyTorch's attribute
        self.weight = Parameter(ones(*shape, dtype=dtype, device=device)) if elementwise_affine else None
        self.bias = (Parameter(zeros(*shape, dtype=dtype, device=device))
                     if elementwise_affine and bias else None)
        self.reset_parameters()  # (as PyTorch's __init__: a subclass's own reset_parameters initializes it)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        x = as_tensor(input)  # a list or an array works as it does for the functions
        k = len(self.normalized_shape)
        if x.shape[x.ndim - k:] != self.normalized_shape:  # PyTorch's words (F.layer_norm's)
            raise trailing_shape_refusal(repr(self), tuple(x.shape), self.normalized_shape, ())
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0, as built (PyTorch's)."""
        if self.elementwise_affine:
            _reset_affine(self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.weight is not None}, "
                f"bias={self.bias is not None}")


def _reset_affine(weight: Tensor | None, bias: Tensor | None) -> None:
    """A norm layer's affine weight back to 1 and its bias to 0, each where it has one."""
    with no_grad():
        if weight is not None:
            weight.fill_(1)
        if bias is not None:
            bias.zero_()


class _NormBase(Module):
    """What BatchNorm and InstanceNorm share, as PyTorch's ``_NormBase``: resetting the running
    statistics and the affine parameters (``model.apply(lambda m: m.reset_parameters())``, or after
    ``to_empty``, must reach every norm layer)."""

    def __init__(self, num_features: int, eps: float, momentum: float | None, affine: bool,
                 track_running_stats: bool, device: Any, dtype: Any, bias: bool) -> None:
        """The affine weight and bias (``affine``; ``bias=False``: a scale without a shift) and the
        running statistics (``track_running_stats``; else None), then :meth:`reset_parameters`, as
        PyTorch's ``_NormBase``: a subclass that overrides it is initialized by its own."""
        super().__init__()
        self.num_features, self.momentum = int(num_features), momentum
        self.eps = number(type(self).__name__, "eps", eps, "float")  # kept as given, as PyTorch (its repr shows eps=0)
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(ones(num_features, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(num_features, dtype=dtype, device=device)) if affine and bias else None
        # (InstanceNorm has the counter too and never advances it, as PyTorch's: so that its state
        # dicts load here and ours load there)
        stats = track_running_stats
        self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device) if stats else None)
        self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device) if stats else None)
        self.register_buffer("num_batches_tracked", zeros((), dtype="int64", device=device) if stats else None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked (PyTorch's)."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """:meth:`reset_running_stats`, and the affine weight 1 and bias 0 (PyTorch's)."""
        self.reset_running_stats()
        if self.affine:
            _reset_affine(self.weight, self.bias)


class _BatchNorm(_NormBase):
    _expected_ndim: tuple[int, ...] = ()
    _version = 2  # PyTorch's: version 2 added num_batches_tracked

    def _older_format_defaults(self, prefix: str, version: int | None) -> dict[str, Any]:
        return _batches_tracked_default(self, prefix, version)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        x = as_tensor(input)  # a list or an array works as it does for the functions
        self._check_input_dim(x)
        weight = self.weight  # (read once: a parametrized weight is computed once per call)
        running_mean, running_var = self._statistics_given()
        self._check_channels(x, weight, running_mean, running_var)
        momentum = self._count_batch()
        return F.batch_norm(x, running_mean, running_var, weight, self.bias, self._uses_batch_statistics(),
                            momentum, self.eps)

    def _check_input_dim(self, x: Tensor) -> None:
        """PyTorch's per-class check of the input's number of dims, in its words."""
        if x.ndim not in self._expected_ndim:
            ranks = " or ".join(f"{n}D" for n in self._expected_ndim)
            raise InputMismatch(f"expected {ranks} input (got {x.ndim}D input): {self!r} was given input of "
                                f"shape {tuple(x.shape)}")

    def _statistics_given(self) -> tuple[Tensor | None, Tensor | None]:
        """The running statistics F.batch_norm is given: in eval mode, and in training mode only
        while track_running_stats is set (else they are not updated), as PyTorch's."""
        stats = not self.training or self.track_running_stats
        return (self.running_mean, self.running_var) if stats else (None, None)

    def _check_channels(self, x: Tensor, weight: Tensor | None, running_mean: Tensor | None,
                        running_var: Tensor | None) -> None:
        """The channels of the affine weight or the running statistics, which F.batch_norm checks (a
        pruned layer's may be resized through `.data`); with neither, any count, as PyTorch's."""
        channels = next((t.shape[0] for t in (weight, self.running_mean) if t is not None), None)
        if channels is not None and x.shape[1] != channels:  # PyTorch's words (F.batch_norm's), where it refuses
            raise per_channel_refusal(repr(self), tuple(x.shape), (("running_mean", running_mean), ("running_var",
                                      running_var), ("weight", weight), ("bias", self.bias))) or InputMismatch(
                f"{self!r}: input of shape {tuple(x.shape)} does not match num_features="
                f"{channels} (expected {' or '.join(f'{n}-D' for n in self._expected_ndim)} "
                f"input with {channels} channels on axis 1)"
            )

    def _uses_batch_statistics(self) -> bool:
        """PyTorch's rule, read from the module's state at each call (a program may change the flags or
        drop the buffers after construction): batch statistics in training mode, and in eval mode only
        when there are no running statistics."""
        return self.training or (self.running_mean is None and self.running_var is None)

    def _count_batch(self) -> float:
        """Count this batch in ``num_batches_tracked`` where the running statistics are updated (training,
        tracking), and the momentum of their update: ``momentum``, or with ``momentum=None`` the
        cumulative average's ``1 / num_batches_tracked`` (PyTorch's ``exponential_average_factor``)."""
        momentum = self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            # Side effect: happens once per forward, never in a checkpoint replay
            # (replay re-runs recorded array math, not this Python code).
            with no_grad():
                self.num_batches_tracked.add_(1)
            if momentum is None:  # cumulative moving average
                momentum = 1.0 / int(self.num_batches_tracked.item())
        return momentum if momentum is not None else 0.0

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input."""

    _expected_ndim = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input."""

    _expected_ndim = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input."""

    _expected_ndim = (5,)


class GroupNorm(Module):
    """Normalize groups of channels (and all spatial positions) of (N, C, ...) input, with a learned
    per-channel scale and shift."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        num_groups = number("GroupNorm", "num_groups", num_groups, "int")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")  # (PyTorch's words; its tests match them)
        self.num_groups, self.num_channels, self.eps, self.affine = int(num_groups), int(num_channels), eps, affine
        self.weight = Parameter(ones(num_channels, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(num_channels, dtype=dtype, device=device)) if affine and bias else None
        self.reset_parameters()  # (as PyTorch's __init__: a subclass's own reset_parameters initializes it)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        x = as_tensor(input)  # a list or an array works as it does for the functions
        if x.ndim < 2 or x.shape[1] != self.num_channels:  # PyTorch's words (F.group_norm's), where it refuses
            raise group_norm_refusal(tuple(x.shape), self.num_groups, self.weight, self.bias, repr(self)) or (
                InputMismatch(f"{self!r}: input of shape {tuple(x.shape)} needs {self.num_channels} channels on "
                              f"axis 1"))
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0, as built (PyTorch's)."""
        if self.affine:
            _reset_affine(self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` axes
    (``eps=None``: the dtype's machine epsilon, as in PyTorch)."""

    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine  # PyTorch's attribute
        self.weight = Parameter(ones(*shape, dtype=dtype, device=device)) if elementwise_affine else None
        self.reset_parameters()  # (as PyTorch's __init__: a subclass's own reset_parameters initializes it)

    def forward(self, x: Tensor) -> Tensor:  # PyTorch's argument name (x, unlike the other norms)
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def reset_parameters(self) -> None:
        """Weight 1, as built (PyTorch's)."""
        if self.elementwise_affine:
            _reset_affine(self.weight, None)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.weight is not None}"


def _batches_tracked_default(norm: Module, prefix: str, version: int | None) -> dict[str, Any]:
    """PyTorch's ``_NormBase._load_from_state_dict``: a state dict from before version 2 (or of no
    known version) without ``num_batches_tracked`` loads, the counter keeping its value."""
    if (version is None or version < 2) and norm.track_running_stats:
        return {prefix + "num_batches_tracked": norm.num_batches_tracked}
    return {}
