"""PyTorch's ``torch.utils.dlpack``, the path libraries import DLPack's exchange by (kornia's
``from torch.utils.dlpack import from_dlpack, to_dlpack``): ``from_dlpack`` (also ``mg.from_dlpack``)
takes another library's array or a capsule, ``to_dlpack`` hands out the capsule that ``from_dlpack``
of this or another library reads back."""

from __future__ import annotations

import enum
from typing import Any

from .. import backend
from ..tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes, the first number of ``t.__dlpack_device__()``."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def from_dlpack(obj: Any) -> Tensor:
    """A Tensor sharing memory with any DLPack-capable array (NumPy, CuPy, PyTorch...) or with a
    DLPack capsule (``to_dlpack``'s, readable once), as ``torch.from_dlpack``."""
    array, dev = backend.from_dlpack(obj)
    return Tensor.sharing(array, dev)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule sharing ``tensor``'s memory, as ``torch.utils.dlpack.to_dlpack``: the
    unversioned ``"dltensor"`` capsule, readable once (``mg.from_dlpack``, ``torch.from_dlpack``).
    Prefer passing the tensor itself to a ``from_dlpack``: it asks for the versioned protocol,
    which keeps a CPU tensor's memory read-only to the consumer."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack expects a Tensor, got {type(tensor).__name__}")
    return tensor.__dlpack__()
