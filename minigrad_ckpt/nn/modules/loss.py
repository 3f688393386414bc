"""PyTorch's ``torch.nn.modules.loss``: its layers at PyTorch's address (the table: :mod:`._paths`)."""

from ._paths import place

__all__ = place(globals(), "loss")
