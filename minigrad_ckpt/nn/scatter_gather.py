"""``nn.parallel.scatter`` / ``gather`` / ``scatter_kwargs``: PyTorch's helpers that cut a batch
into one piece per device and put the outputs back together.

``scatter(inputs, devices, dim)`` chunks every tensor in ``inputs`` (through tuples, named tuples,
lists and dicts, as PyTorch's) along ``dim`` into ``len(devices)`` pieces, ``x.chunk``'s sizes,
and moves piece ``i`` to ``devices[i]``; anything else is repeated once per device.  ``gather``
concatenates the pieces on one device.  Both are the engine's ops (``chunk``, ``to``, ``cat``), so
gradients flow back through them.  As in PyTorch, the devices must not be the CPU: scattering to
the CPU is PyTorch's ``ValueError`` and gathering CPU tensors its ``AssertionError`` -- the
multi-GPU chapters of PyTorch books stop there on a machine without a GPU, and so do they here.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..backend import get_device
from ..functional.torch_idioms import cat
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["gather", "scatter", "scatter_kwargs"]


def _not_cpu(device: Any) -> Any:
    """The device ``device`` names (an int is a GPU index), refusing the CPU as PyTorch's
    ``_get_device_index(device, optional=True)`` does."""
    resolved = get_device(device)
    if resolved.type == "cpu":
        raise ValueError(f"Expected a non cpu device, but got: {resolved}")
    return resolved


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs: Any, target_gpus: Any, dim: int = 0) -> Any:
    """One piece of ``inputs`` per device of ``target_gpus`` (a list of per-device values)."""
    devices = [_not_cpu(d) for d in target_gpus]

    def scatter_map(obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return tuple(piece.to(device) for piece, device in zip(obj.chunk(len(devices), dim), devices))
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and obj:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    return scatter_map(inputs)


def scatter_kwargs(inputs: tuple, kwargs: dict | None, target_gpus: Any, dim: int = 0) -> tuple[tuple, tuple]:
    """``scatter`` of the positional and the keyword arguments, padded to the same count."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def _gather_tensors(target_device: Any, dim: int, pieces: list[Tensor]) -> Tensor:
    if any(p.device.type == "cpu" for p in pieces):
        raise AssertionError("Gather function not implemented for CPU tensors")
    device = get_device(target_device)
    if all(p.ndim == 0 for p in pieces):
        warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; "
                      "will instead unsqueeze and return a vector.", stacklevel=stacklevel_outside_the_engine())
        pieces, dim = [p.reshape(1) for p in pieces], 0
    return cat([p.to(device) for p in pieces], dim=dim)


def gather(outputs: Any, target_device: Any, dim: int = 0) -> Any:
    """The per-device ``outputs`` put back together on ``target_device`` (the CPU allowed)."""

    def gather_map(outs: Any) -> Any:
        out = outs[0]
        if isinstance(out, Tensor):
            return _gather_tensors(target_device, dim, list(outs))
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outs, strict=True)))
        return type(out)(map(gather_map, zip(*outs, strict=True)))

    return gather_map(outputs)
