"""``SyncBatchNorm``: batch norm whose statistics are those of the whole process group's batch.

Under data parallelism each rank sees a slice of the batch; a plain ``BatchNorm`` normalizes each
slice by its own mean and variance.  ``SyncBatchNorm`` (PyTorch's name and meaning) normalizes every
slice by the statistics of the concatenated batch, so that the values, the input gradients, the sum
over ranks of the weight and bias gradients, and the running statistics are those of one
``BatchNorm`` given the whole batch.  It costs two small collectives per layer and step:

* forward, one ``all_gather`` of each rank's ``(mean, M2, count)`` per channel (``M2``: the sum of
  squared deviations from the rank's own mean), combined by Chan, Golub and LeVeque's pairwise rule
  ``M2 = sum(M2_r) + sum(n_r (mean_r - mean)^2)``.  Why not an ``all_reduce`` of ``(count, sum,
  sum of squares)``: ``E[x^2] - E[x]^2`` cancels catastrophically when the mean is large beside the
  spread (float32 activations of mean 1000 and std 0.01 keep no digit of the variance).  Why not
  PyTorch's gather of ``(mean, invstd, count)``: ``var = 1/invstd^2 - eps`` throws away the
  variance's digits below ``eps``; the gather of ``M2`` is the same one collective without that loss.
  Ranks may hold different numbers of rows, none included (a count of 0 weighs nothing).
* backward, one ``all_reduce`` of the two per-channel sums PyTorch's backward reduces,
  ``sum(dy)`` and ``sum(dy * (x - mean))``, from which each rank computes its rows' input gradient.
  The weight and bias gradients stay this rank's own sums, as PyTorch's: ``DistributedDataParallel``
  reduces them with every other gradient.

Eval mode, or no process group (or a world of one): plain ``BatchNorm``, as PyTorch's.  Unlike
PyTorch's, which refuses CPU tensors when it would synchronize, CPU tensors synchronize over MPI.

Under ``mg.checkpoint`` the running statistics are updated once, in the forward (the engine's rule
for every batch norm; PyTorch's checkpoint re-runs the module and updates them twice), and the
replay runs no collective: the node keeps the group's mean and ``invstd`` (2C numbers) as inputs and
recomputes only this rank's elementwise math, bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

from .. import distributed as dist
from .. import functional as mf
from ..autograd.function import Function, once_differentiable
from ..functional.arguments import as_tensor
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from .functional.normalization import check_batch_norm_arguments
from .module import Module
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over ``(N, C, +)`` input whose training statistics are the process group's
    (``process_group=None``: the world), as PyTorch's ``nn.SyncBatchNorm``."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, device: Any = None, dtype: Any = None,
                 *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, x: Tensor) -> None:
        if x.ndim < 2:  # PyTorch's type and words
            raise ValueError(f"expected at least 2D input (got {x.ndim}D input)")

    def _check_non_zero_input_channels(self, x: Tensor) -> None:
        if x.shape[1] == 0:  # PyTorch's type and words
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        x = as_tensor(input)  # a list or an array works as it does for the functions
        self._check_input_dim(x)
        self._check_non_zero_input_channels(x)
        weight = self.weight  # (read once: a parametrized weight is computed once per call)
        running_mean, running_var = self._statistics_given()
        self._check_channels(x, weight, running_mean, running_var)
        use_batch = self._uses_batch_statistics()
        group = self._group_to_synchronize(use_batch)
        momentum = self._count_batch()
        if group is None:
            return F.batch_norm(x, running_mean, running_var, weight, self.bias, use_batch, momentum, self.eps)
        check_batch_norm_arguments(x, running_mean, running_var, weight, self.bias, True, self.eps)
        mean, var, count = group_statistics(x, group)
        invstd = 1 / mf.sqrt(var + self.eps)
        if running_mean is not None and running_var is not None:
            _update_running(running_mean, running_var, mean, unbiased(var, count), momentum)
        return _SyncBatchNormFunction.apply(x, weight, self.bias, mean.to(x.dtype), invstd.to(x.dtype), count, group)

    def _group_to_synchronize(self, use_batch: bool) -> Any:
        """The group whose statistics this call takes -- ``process_group``, else the world -- or None
        where PyTorch's falls back to plain batch norm: not training, no process group, or a world of one."""
        if not (use_batch and self.training and dist.is_available() and dist.is_initialized()):
            return None
        group = self.process_group if self.process_group else dist.group.WORLD
        return group if dist.get_world_size(group) > 1 else None

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """Every ``BatchNorm*d`` in ``module`` (itself included, recursively) replaced by a
        ``SyncBatchNorm`` holding the same parameters and buffers (the same tensors, not copies:
        ``requires_grad`` and the optimizer's references kept) and the same ``training`` flag, as
        PyTorch's.  The module itself is given back changed in place, or, if it is a batch norm, the
        new layer."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


def group_statistics(x: Tensor, group: Any) -> tuple[Tensor, Tensor, float]:
    """The mean and biased variance per channel (axis 1) of the batch every rank of ``group`` holds,
    in float64, and how many values per channel that batch has: one ``all_gather`` of each rank's
    ``(mean, M2, count)``, combined by the pairwise rule (the module's docstring says why)."""
    c = x.shape[1]
    axes = _reduced_axes(x)
    n = x.numel() // c
    with no_grad():
        if n:
            mean = mf.mean(x, axes)
            deviations = x - mf.reshape(mean, _channel_shape(x))
            m2 = mf.sum(deviations * deviations, axes)
            mine = mf.cat([mean.double(), m2.double(), mf.full((1,), float(n), dtype="float64", device=x.device)])
        else:  # an empty slice still takes part, so that the others' gather completes
            mine = mf.zeros(2 * c + 1, dtype="float64", device=x.device)
        every = [mf.zeros_like(mine) for _ in range(dist.get_world_size(group))]
        dist.all_gather(every, mine, group=group)
        table = mf.stack(every)  # (ranks, 2C + 1)
        means, m2s, counts = table[:, :c], table[:, c:2 * c], table[:, 2 * c:]
        total = float(counts.sum())
        mean = mf.sum(counts * means, 0) / total
        m2 = mf.sum(m2s, 0) + mf.sum(counts * (means - mean) ** 2, 0)
    return mean, m2 / total, total


def unbiased(var: Tensor, count: float) -> Tensor:
    """``var * count / (count - 1)``, the running variance's unbiased estimate; one value in the whole
    group (a rank of 1 row beside empty ones) is PyTorch's inf -- NaN where the variance is 0 --, not
    Python's ZeroDivisionError, silently as its kernel."""
    if count != 1:
        return var * (count / (count - 1))
    with mf.errstate(invalid="ignore"):
        return var * math.inf


def _update_running(running_mean: Tensor, running_var: Tensor, mean: Tensor, unbiased_var: Tensor,
                    momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch``, in place (F.batch_norm's update)."""
    with no_grad():
        for running, batch in ((running_mean, mean), (running_var, unbiased_var)):
            running.mul_(1 - momentum).add_(batch.to(running.dtype) * momentum)


class _SyncBatchNormFunction(Function):
    """``(x - mean) * invstd * weight + bias`` with the group's ``mean`` and ``invstd``, whose backward
    accounts for every rank's rows in them (PyTorch's ``torch.nn.modules._functions.SyncBatchNorm``).
    ``mean`` and ``invstd`` arrive computed, so a checkpoint replay of this node is this rank's
    elementwise math only."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor | None, bias: Tensor | None, mean: Tensor, invstd: Tensor,
                count: float, group: Any) -> Tensor:
        ctx.save_for_backward(x, weight, mean, invstd)
        ctx.count, ctx.group = count, group
        shape = _channel_shape(x)
        out = (x - mf.reshape(mean, shape)) * mf.reshape(invstd, shape)
        if weight is not None:
            out = out * mf.reshape(weight, shape)
        if bias is not None:
            out = out + mf.reshape(bias, shape)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        x, weight, mean, invstd = ctx.saved_tensors
        axes, shape, c = _reduced_axes(x), _channel_shape(x), x.shape[1]
        centered = x - mf.reshape(mean, shape)
        sum_dy = mf.sum(grad_output, axes)
        sum_dy_xmu = mf.sum(grad_output * centered, axes)
        # this rank's own sums (DDP reduces them with the other gradients), taken before the all_reduce
        grad_weight = sum_dy_xmu * invstd if weight is not None and ctx.needs_input_grad[1] else None
        grad_bias = sum_dy if ctx.needs_input_grad[2] else None
        grad_input = None
        if ctx.needs_input_grad[0]:
            both = mf.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.group)  # every rank's rows, as PyTorch's backward reduces them
            mean_dy = mf.reshape(both[:c] / ctx.count, shape)
            projection = mf.reshape(invstd * invstd * both[c:] / ctx.count, shape)
            scale = invstd if weight is None else invstd * weight
            grad_input = (grad_output - mean_dy - centered * projection) * mf.reshape(scale, shape)
        return grad_input, grad_weight, grad_bias, None, None, None, None


def _reduced_axes(x: Tensor) -> tuple[int, ...]:
    return (0, *range(2, x.ndim))


def _channel_shape(x: Tensor) -> tuple[int, ...]:
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)

