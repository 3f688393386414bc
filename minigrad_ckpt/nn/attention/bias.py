"""``mg.nn.attention.bias``: PyTorch's causal biases (``torch.nn.attention.bias``), made in
``nn/functional/attention_bias.py`` so that ``scaled_dot_product_attention`` can read them."""

from __future__ import annotations

from ..functional.attention_bias import CausalBias, CausalVariant, causal_lower_right, causal_upper_left

__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]
