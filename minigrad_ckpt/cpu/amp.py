"""``mg.cpu.amp``: PyTorch's deprecated spellings ``torch.cpu.amp.autocast`` and
``torch.cpu.amp.GradScaler`` -- :mod:`minigrad_ckpt.amp`'s with the device ``"cpu"``, each with
PyTorch's FutureWarning naming the spelling to use."""

from __future__ import annotations

from ..amp import deprecated_device_spellings

__all__ = ["GradScaler", "autocast"]

autocast, GradScaler = deprecated_device_spellings("cpu", "bfloat16")
