"""PyTorch's ``torch.autograd.grad_mode`` address (``torch.autograd.grad_mode.no_grad``): the
engine's grad-mode switches, which live in :mod:`minigrad_ckpt.grad_mode`."""

from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]
