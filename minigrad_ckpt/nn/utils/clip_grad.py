"""PyTorch's ``torch.nn.utils.clip_grad`` address (``from torch.nn.utils.clip_grad import
clip_grad_norm_``): the clipping functions of :mod:`minigrad_ckpt.nn.utils`."""

from . import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
