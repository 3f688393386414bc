"""What the ported tutorials that print as they go share (``extending_autograd.py``, ``forward_ad.py``): their
prints kept as lines (``log``), the numbers they show or compute (``history``), and a fixed stand-in for the
``torch.randn(...)`` their snippets draw, the same under both engines."""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad_ckpt as mg


class Notes:
    """One program's ``log`` and ``history`` (module-level lists its test reads) and its float ``dtype``."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.history: list[float] = []
        self.dtype: Any = mg.float64

    def clear(self, dtype: Any) -> None:
        self.log.clear()
        self.history.clear()
        self.dtype = dtype

    def show(self, *args: Any) -> None:
        self.log.append(" ".join(str(a) for a in args))

    def record(self, *values: Any) -> None:
        for v in values:
            v = v.detach().numpy() if isinstance(v, mg.Tensor) else v
            self.history.extend(np.asarray(v, dtype=np.float64).ravel().tolist())

    def inputs(self, *shape: int, requires_grad: bool = False, dtype: Any = None, scale: float = 1.0) -> mg.Tensor:
        """The tutorial's ``torch.randn(*shape)``: fixed values of about unit size (``dtype``, else ``self.dtype``),
        which move on with the history."""
        n = int(np.prod(shape))
        x = (mg.arange(1, n + 1, dtype=dtype or self.dtype) * 0.7548776662 + len(self.history)).sin() * scale
        return x.reshape(*shape).requires_grad_(requires_grad)
