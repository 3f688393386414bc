"""PyTorch's ``torch.optim.adamw`` address (``from torch.optim.adamw import AdamW``): the engine's
AdamW lives beside Adam, in :mod:`.adam`."""

from .adam import AdamW

__all__ = ["AdamW"]
