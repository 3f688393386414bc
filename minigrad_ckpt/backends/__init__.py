"""``mg.backends``: PyTorch's ``torch.backends`` switches, so that the lines training scripts
begin with (``torch.backends.cudnn.benchmark = True``, ``import torch.backends.cudnn as cudnn``)
run after the rename.

The engine has no cuDNN, MPS or TF32 kernels (a GPU runs through CuPy), so each switch keeps
what is written to it, as PyTorch's do, and changes nothing; the ``is_available()`` and
``is_built()`` questions answer False.
"""

from __future__ import annotations

from . import cuda, cudnn, mps

__all__ = ["cudnn", "cuda", "mps"]
