"""PyTorch's ``torch.nn.modules.distance``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..distance import CosineSimilarity, PairwiseDistance

__all__ = ["PairwiseDistance", "CosineSimilarity"]
