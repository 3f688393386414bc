"""``LinearCrossEntropyOptions``: how ``F.linear_cross_entropy`` chunks its rows (PyTorch 2.13's
``torch.nn.LinearCrossEntropyOptions``, the same fields, defaults, checks and resolution).

Passing an instance as ``options=`` opts into the chunked path: the ``(N, C)`` logits are formed
``batch_chunk_size`` rows at a time (:class:`~minigrad_ckpt.ops.linear_cross_entropy.LinearLogSumExp`).
``acc_policy`` is PyTorch's memory/precision trade-off between its buffers; here every policy computes
the loss in ``acc_dtype`` (float32 for float16 inputs) and gives the same numbers (docs/from-pytorch.md).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, NamedTuple

from .. import backend
from ..backend import host_numpy as np

_FLOAT16, _FLOAT32, _FLOAT64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_BFLOAT16 = backend.BFLOAT16

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# PyTorch's picks for the "auto" sentinels, by (device type, input dtype); other pairs: the fallback.
_AUTO_DEFAULTS: dict[tuple[str, Any], _AutoDefault] = {
    ("cuda", _BFLOAT16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", _FLOAT16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", _BFLOAT16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", _FLOAT16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_DTYPES = (_FLOAT16, _BFLOAT16, _FLOAT32, _FLOAT64)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of :func:`~minigrad_ckpt.nn.functional.linear_cross_entropy`'s chunked path.

    ``batch_chunk_size``: rows per chunk (None: one chunk, unless ``chunking_method`` decides).
    ``chunking_method``: ``"auto"`` (per device and dtype), ``"aspect_ratio"`` (a chunk's
    ``(rows, C)`` logits about the size of the ``(N, in_features)`` input: ``next_pow2(ceil(N /
    ceil(C / in_features)))`` rows), ``"aspect_ratio:K"`` (that divided by ``K``) or None (use
    ``batch_chunk_size``).  ``acc_policy``: ``"auto"``, ``"accurate"``, ``"balanced"`` or
    ``"compact"``; ``acc_dtype``: the dtype of the chunk's logits (None: float32 for float16/bfloat16
    inputs under ``"auto"``, else the input's).  ``allow_retain_graph`` is accepted for PyTorch's
    code: this engine's backward recomputes each chunk, so a second backward always works.

    >>> opts = LinearCrossEntropyOptions(batch_chunk_size=1024)
    >>> loss = F.linear_cross_entropy(h, head.weight, tokens, options=opts)  # doctest: +SKIP
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and not (isinstance(self.acc_dtype, np.dtype) and self.acc_dtype in _ACC_DTYPES):
            raise ValueError(
                f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, torch.float64}}, "
                f"got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically.")

    @staticmethod
    def _compute_batch_chunk_size(num_batches: int, in_features: int, num_classes: int, method: str) -> int:
        """The rows per chunk ``aspect_ratio[:K]`` gives (PyTorch's formula, a power of two)."""
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        chunk_size = 1 << (target - 1).bit_length()  # the next power of 2 >= target
        return min(chunk_size // factor, num_batches)

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, dtype: Any,
                device: Any = None) -> LinearCrossEntropyOptions:
        """The options with ``"auto"`` and None resolved for one call (PyTorch's ``_adjust``)."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None  # an explicit size wins over the automatic one
        if acc_policy == "auto" or chunking_method == "auto":
            picks = _AUTO_FALLBACK if device is None else _AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK)
            acc_policy = picks.acc_policy if acc_policy == "auto" else acc_policy
            chunking_method = picks.chunking_method if chunking_method == "auto" else chunking_method
        batch_chunk_size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{chunking_method}') give "
                    f"different chunk sizes ({self.batch_chunk_size} vs {batch_chunk_size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:  # float32 for half inputs under "auto" (PyTorch: where the hardware mixes precisions)
            half = dtype == _FLOAT16 or dtype == _BFLOAT16
            acc_dtype = _FLOAT32 if self.acc_policy == "auto" and half and device is not None else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, batch_chunk_size), acc_dtype=acc_dtype)
