"""``mg.cuda.amp``: PyTorch's older spelling, ``torch.cuda.amp.GradScaler`` and
``torch.cuda.amp.autocast`` -- :mod:`minigrad_ckpt.amp`'s with the device ``"cuda"`` (so without
a GPU the scaler is a pass-through and autocast is off, as PyTorch's), each deprecated with
PyTorch's FutureWarning naming the spelling to use."""

from __future__ import annotations

from ..amp import deprecated_device_spellings

__all__ = ["GradScaler", "autocast"]

autocast, GradScaler = deprecated_device_spellings("cuda", "float16")
