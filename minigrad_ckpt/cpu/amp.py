"""``mg.cpu.amp``: PyTorch's deprecated spellings ``torch.cpu.amp.autocast`` and
``torch.cpu.amp.GradScaler`` -- :mod:`minigrad_ckpt.amp`'s with the device ``"cpu"``, each with
PyTorch's FutureWarning naming the spelling to use."""

from __future__ import annotations

import warnings
from typing import Any

from .. import amp as _amp

__all__ = ["GradScaler", "autocast"]


class autocast(_amp.autocast):  # noqa: N801  (PyTorch's name)
    """``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``."""

    def __init__(self, enabled: bool = True, dtype: Any = "bfloat16", cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype, enabled, cache_enabled)


class GradScaler(_amp.GradScaler):
    """``torch.cpu.amp.GradScaler(init_scale, growth_factor, backoff_factor, growth_interval, enabled)``."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
