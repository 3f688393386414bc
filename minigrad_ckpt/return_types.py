"""``mg.return_types``: PyTorch's ``torch.return_types``, the classes of the results of functions of
several results (``mg.return_types.max``, ``mg.return_types.linalg_svd``), by name.

They are made beside the functions (:mod:`minigrad_ckpt.functional.return_types`); importing
``minigrad_ckpt.functional`` made every one, and this module offers each under its name.
"""

from __future__ import annotations

from . import functional as _functional  # noqa: F401  (each function's module makes its class)
from .functional.return_types import BY_NAME as _BY_NAME

globals().update(_BY_NAME)
__all__ = sorted(_BY_NAME)
