"""PyTorch's ``torch.nn.modules.sparse``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..embedding import Embedding, EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
