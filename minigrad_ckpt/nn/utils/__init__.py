"""Training utilities: gradient clipping, parameters as one vector and back; ``rnn``: padding
variable-length sequences into one batch; the reparameterizations ``weight_norm`` and
``spectral_norm`` (PyTorch's hook-based forms); ``stateless``, the deprecated home of
``functional_call``; ``fusion``, a batch norm folded into the convolution or linear layer before it
for inference; ``prune``: masks on parameters."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ...grad_mode import no_grad
from ...tensor import Tensor
from . import fusion, parametrizations, parametrize, prune, rnn, stateless
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["rnn", "parametrize", "parametrizations", "prune", "stateless", "fusion", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "clip_grad_norm_", "clip_grad_norm",
           "skip_init",
           "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters", "weight_norm", "remove_weight_norm",
           "spectral_norm", "remove_spectral_norm"]


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale gradients in place so their joint norm is at most ``max_norm``.

    Returns the total norm before clipping (a 0-d tensor), as PyTorch does, and is PyTorch's
    two halves: :func:`get_total_norm` of the gradients (any order ``vector_norm`` takes:
    ``0``, ``-inf`` and fractional too; the norms of tensors of several dtypes joined in the
    promoted dtype), then :func:`clip_grads_with_norm_` (``max_norm / (total_norm + 1e-6)``,
    applied when below 1). PyTorch's ``foreach`` picks its kernels (one per tensor or grouped),
    not the result: accepted, and it changes nothing.
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """PyTorch's deprecated spelling of :func:`clip_grad_norm_`, with its FutureWarning."""
    import warnings

    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """PyTorch's ``skip_init(module_cls, *args, **kwargs)``: the module without running its
    initialisation -- which PyTorch does by building it on the ``meta`` device and allocating
    empty memory.  Here it is built as usual and its values are then as unspecified as PyTorch's
    (initialised, in fact); the class must take ``device=``, as PyTorch requires."""
    import inspect

    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)


def get_total_norm(tensors: Iterable[Tensor] | Tensor, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` taken as one vector (PyTorch 2.6's first half of
    :func:`clip_grad_norm_`): the norm of each, then the norm of those norms, outside the tape.

    Usually called on gradients, ``get_total_norm([p.grad for p in params])``, so a program can
    all-reduce or log the norm before :func:`clip_grads_with_norm_` scales by it. Any order
    ``torch.linalg.vector_norm`` takes (``inf``, ``-inf``, ``0``, fractional); no tensors give
    ``tensor(0.)``. ``foreach`` as in :func:`clip_grad_norm_`.
    """
    from ...functional.linalg_derived import vector_norm
    from ...functional.shape import stack

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        from ...creation import tensor

        return tensor(0.0)
    with no_grad():
        total = vector_norm(stack([vector_norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           f"so it cannot be clipped. To disable this error and scale the gradients by the "
                           f"non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Iterable[Tensor] | Tensor, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every gradient in place by ``min(max_norm / (total_norm + 1e-6), 1)`` (PyTorch 2.6's
    second half of :func:`clip_grad_norm_`, with a norm computed beforehand, e.g. by
    :func:`get_total_norm` and summed across workers). ``total_norm`` is a tensor, as PyTorch requires."""
    if not isinstance(total_norm, Tensor):
        raise TypeError(f"clip_grads_with_norm_: total_norm must be a Tensor, got {type(total_norm).__name__}")
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    with no_grad():
        # always multiplied (by 1 when not clipping), as PyTorch: no device-to-host read to decide
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place (real gradients:
    a complex one has no order to clamp in, and is refused as PyTorch does); ``foreach`` as in
    :func:`clip_grad_norm_`."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    clip_value = float(clip_value)  # PyTorch's first line: a 0-d tensor (any device) is read as its number
    complex_grads = [p.grad.dtype for p in params if p.grad is not None and p.grad.dtype.kind == "c"]
    if complex_grads:  # NumPy's clip would order complex numbers lexicographically: 3+4j -> 1+0j
        raise TypeError(f"clip_grad_value_: a {complex_grads[0]} gradient has no order to clamp in; "
                        f"clip its norm instead (clip_grad_norm_)")
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.copy_(p.grad.device.xp.clip(p.grad._data, -clip_value, clip_value))


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated into one 1-D tensor (differentiable, as in PyTorch)."""
    from ... import functional as mf

    params = list(parameters)
    if not params:
        raise ValueError("parameters_to_vector: no parameters")
    dev = params[0].device
    for p in params:
        if p.device != dev:
            raise ValueError(f"parameters_to_vector: parameters on {dev} and {p.device}; move them to one device")
    return mf.concatenate([mf.reshape(p, (-1,)) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the parameters (in place, outside the tape); each
    parameter takes the vector's dtype, as PyTorch's."""
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise TypeError(f"vector_to_parameters: expected a 1-D Tensor, got "
                        f"{tuple(vec.shape) if isinstance(vec, Tensor) else type(vec).__name__}")
    params = list(parameters)
    total = sum(p.size for p in params)
    if vec.shape[0] != total:
        raise ValueError(f"vector_to_parameters: the vector has {vec.shape[0]} values, the parameters {total}")
    with no_grad():
        start = 0
        for p in params:
            if vec.device != p.device:
                raise ValueError(f"vector_to_parameters: the vector is on {vec.device}, a parameter on {p.device}")
            n = p.size
            # a Tensor: the parameter takes the vector's dtype, as PyTorch's ``param.data = vec[...].view_as(param)``
            p.data = Tensor.constant(vec._data[start:start + n].reshape(p.shape), vec._device)
            start += n

# PyTorch's addresses of the functions above (torch.nn.utils.clip_grad.clip_grad_norm_, ...); they
# read this package's names, so they come after them.
from . import clip_grad, convert_parameters  # noqa: E402,F401
