"""``GradBucket``: what a DDP communication hook is handed (PyTorch's ``dist.GradBucket``).

``DistributedDataParallel.register_comm_hook(state, hook)`` replaces the averaging of each
gradient bucket by ``hook(state, bucket)``, which returns a Future (``Work.get_future()``) of
the bucket's reduced gradients as one flat tensor; DDP writes that result into the
parameters' ``.grad`` as it is (the hook divides, as PyTorch's ``allreduce_hook`` does).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket's gradients, flattened into :meth:`buffer` in the order of :meth:`parameters`."""

    def __init__(self, index: int, buffer: Tensor, parameters: list[Any], offsets: list[int], last: bool) -> None:
        self._index, self._buffer, self._parameters = index, buffer, list(parameters)
        self._offsets, self._last = list(offsets), last

    def index(self) -> int:
        """Its position in launch order (0: the last layers' gradients, ready first)."""
        return self._index

    def buffer(self) -> Tensor:
        """The flat gradients (this rank's own): a hook may reduce it in place and return it."""
        return self._buffer

    def set_buffer(self, buffer: Tensor) -> None:
        """Replace the flat tensor :meth:`buffer` and :meth:`gradients` give (PyTorch's)."""
        self._buffer = buffer

    def parameters(self) -> list[Any]:
        return list(self._parameters)

    def gradients(self) -> list[Tensor]:
        """Each parameter's part of :meth:`buffer`, a view shaped as the parameter."""
        return [self._buffer[off:off + p.numel()].view(p.shape) for p, off in zip(self._parameters, self._offsets)]

    def is_last(self) -> bool:
        """Whether it is the last bucket of the backward (the first layers' gradients)."""
        return self._last

    def __repr__(self) -> str:
        return f"GradBucket(index={self._index}, parameters={len(self._parameters)}, numel={self._buffer.numel()})"
