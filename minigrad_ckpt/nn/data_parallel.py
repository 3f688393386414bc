"""``DataParallel``: PyTorch's single-process data parallelism, for the one device a process
drives here.

PyTorch's ``nn.DataParallel`` splits each batch over the GPUs of one process and gathers the
outputs.  Here a process drives one device, so the wrapper runs its module on that device: without
a GPU it is a pass-through (as PyTorch's is without CUDA, whatever ``device_ids`` says), with one
GPU it moves the inputs there, and a split over several GPUs is refused -- run one process per GPU
with :class:`~minigrad_ckpt.nn.parallel.DistributedDataParallel` instead (``docs/distributed.md``).
The wrapped model is ``wrapper.module``, so the state_dict's keys start with ``module.``, as
PyTorch's.
"""

from __future__ import annotations

from typing import Any

from ..backend import cuda_device_count, get_device
from ..func.pytree import flatten, unflatten
from ..tensor import Tensor
from .module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: ``module`` run on the
    one device of this process (see the module's docstring)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel wraps a Module, got {type(module).__name__}")
        self.module = module
        self.dim = dim
        if cuda_device_count() == 0:  # PyTorch's rule: without CUDA, the module is run as it is
            self.device_ids: list[int] = []
            self.output_device = None
            return
        ids = list(range(cuda_device_count())) if device_ids is None else [_index(d) for d in device_ids]
        if len(ids) > 1:
            raise NotImplementedError(
                f"DataParallel over {len(ids)} GPUs in one process is not offered: run one process per GPU "
                f"with nn.parallel.DistributedDataParallel (mpiexec -n {len(ids)} python train.py), or pass "
                f"device_ids=[i] for one")
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else _index(output_device)
        self._check_module_is_on(f"cuda:{ids[0]}")

    def _check_module_is_on(self, where: str) -> None:
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if str(t.device) != where:
                raise RuntimeError(f"module must have its parameters and buffers on device {where} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        here = get_device(f"cuda:{self.device_ids[0]}")
        out = self.module(*_moved(inputs, here), **_moved(kwargs, here))
        there = get_device(f"cuda:{self.output_device}")
        return out if there is here else _moved(out, there)


def _index(device: Any) -> int:
    return device if isinstance(device, int) else get_device(device).index


def _moved(value: Any, device: Any) -> Any:
    """``value`` with every tensor in it (through tuples, named tuples, lists and dicts) on ``device``."""
    leaves, tree = flatten(value)
    return unflatten(tree, [x.to(device) if isinstance(x, Tensor) else x for x in leaves])
