"""Parameters as one vector and back (PyTorch's ``torch.nn.utils.convert_parameters``);
:mod:`minigrad_ckpt.nn.utils` offers them too."""

from __future__ import annotations

from collections.abc import Iterable

from ...grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


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
