"""``mg.autograd.Variable``: PyTorch's deprecated wrapper, which old tutorials still write
(``Variable(lineToTensor(line))``, ``Variable(torch.zeros(1, n_hidden))``).

Since PyTorch 0.4 a Variable *is* a Tensor: ``Variable(t)`` returns a tensor that shares ``t``'s
memory, without its history, requiring grad as ``requires_grad=`` says (a new leaf), and
``isinstance(x, Variable)`` is True for every tensor.  ``volatile=`` is taken with PyTorch's warning
that it no longer does anything.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..creation import empty
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["Variable"]


class _VariableMeta(type):
    """``isinstance(x, Variable)`` is ``isinstance(x, Tensor)``, as PyTorch's ``VariableMeta``."""

    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: ``data`` detached, as a new leaf
    (``Variable()`` is an empty float tensor); anything but a tensor is PyTorch's TypeError."""

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Tensor:  # type: ignore[misc]
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=stacklevel_outside_the_engine())
        if data is None:
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
