"""PyTorch's ``torch.nn.modules.adaptive``: its layer at PyTorch's address (the table: :mod:`._paths`)."""

from ._paths import place

__all__ = place(globals(), "adaptive")
