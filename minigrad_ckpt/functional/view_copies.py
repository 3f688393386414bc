"""PyTorch's ``*_copy`` functions: ``torch.t_copy(x)`` is ``x.t()`` in memory of its own.

PyTorch's functionalization writes every view as its copying twin (``diagonal_copy``,
``permute_copy``, ``view_copy``, ...), and exported programs and ``torch.compile`` graphs call
them by those names.  Each here is the view, then a differentiable row-major copy
(``clone(memory_format=mg.contiguous_format)``): PyTorch's copies are contiguous whatever the
view's strides were (``torch.t_copy(x).stride()`` is ``(3, 1)`` for a 3x4 ``x``), and writing into
one never reaches ``x``.  Gradients are the view's, so they flow back into ``x`` as the view's do.

``detach_copy`` is the one without a gradient: PyTorch marks its result as requiring grad and
then raises ``derivative for aten::detach_copy is not implemented`` at backward, so here it is
what its name says, a detached copy.
"""

from __future__ import annotations

from typing import Any

from ..backend import contiguous_format
from ..tensor import Tensor
from . import complex_numbers
from .arguments import as_tensor


def _own(view: Tensor) -> Tensor:
    """``view`` in row-major memory of its own, differentiably."""
    return view.clone(memory_format=contiguous_format)


def alias_copy(input: Any) -> Tensor:  # noqa: A002
    """``torch.alias_copy``: a copy of ``input``."""
    return _own(as_tensor(input))


def detach_copy(input: Any) -> Tensor:  # noqa: A002
    """``torch.detach_copy``: a copy of ``input`` cut from the graph (see the module's note)."""
    return _own(as_tensor(input).detach())


def diagonal_copy(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``torch.diagonal_copy``: a copy of ``input.diagonal(offset, dim1, dim2)``."""
    return _own(as_tensor(input).diagonal(offset, dim1, dim2))


def expand_copy(input: Any, size: Any, *, implicit: bool = False) -> Tensor:  # noqa: A002
    """``torch.expand_copy``: ``input.expand(size)`` with every repeated element written out."""
    return _own(as_tensor(input).expand(*size))


def narrow_copy(input: Any, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """``torch.narrow_copy``: a copy of ``input.narrow(dim, start, length)``."""
    return _own(as_tensor(input).narrow(dim, start, length))


def permute_copy(input: Any, dims: Any) -> Tensor:  # noqa: A002
    """``torch.permute_copy``: a copy of ``input.permute(dims)``, row-major in the new order."""
    return _own(as_tensor(input).permute(*dims))


def select_copy(input: Any, dim: int, index: int) -> Tensor:  # noqa: A002
    """``torch.select_copy``: a copy of ``input.select(dim, index)``."""
    return _own(as_tensor(input).select(dim, index))


def slice_copy(input: Any, dim: int = 0, start: int | None = None, end: int | None = None,  # noqa: A002
               step: int = 1) -> Tensor:
    """``torch.slice_copy``: a copy of ``input[..., start:end:step, ...]`` along ``dim``."""
    x = as_tensor(input)
    if step <= 0:
        raise RuntimeError("slice step must be positive")  # PyTorch's words (a slice never walks backwards)
    axis = dim + x.ndim if dim < 0 else dim
    return _own(x[(slice(None),) * axis + (slice(start, end, step),)])


def split_copy(input: Any, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``torch.split_copy``: copies of ``input.split(split_size, dim)``'s pieces."""
    return tuple(_own(piece) for piece in as_tensor(input).split(split_size, dim))


def split_with_sizes_copy(input: Any, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``torch.split_with_sizes_copy``: copies of ``input.split_with_sizes(split_sizes, dim)``'s pieces."""
    return tuple(_own(piece) for piece in as_tensor(input).split_with_sizes(split_sizes, dim))


def squeeze_copy(input: Any, dim: Any = None) -> Tensor:  # noqa: A002
    """``torch.squeeze_copy``: a copy of ``input.squeeze(dim)`` (every size-1 dim where ``dim`` is None)."""
    x = as_tensor(input)
    return _own(x.squeeze() if dim is None else x.squeeze(dim))


def t_copy(input: Any) -> Tensor:  # noqa: A002
    """``torch.t_copy``: a copy of ``input.t()``."""
    return _own(as_tensor(input).t())


def transpose_copy(input: Any, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """``torch.transpose_copy``: a copy of ``input.transpose(dim0, dim1)``."""
    return _own(as_tensor(input).transpose(dim0, dim1))


def unbind_copy(input: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``torch.unbind_copy``: copies of ``input.unbind(dim)``'s slices."""
    return tuple(_own(piece) for piece in as_tensor(input).unbind(dim))


def unfold_copy(input: Any, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    """``torch.unfold_copy``: a copy of ``input.unfold(dimension, size, step)``."""
    return _own(as_tensor(input).unfold(dimension, size, step))


def unsqueeze_copy(input: Any, dim: int) -> Tensor:  # noqa: A002
    """``torch.unsqueeze_copy``: a copy of ``input.unsqueeze(dim)``."""
    return _own(as_tensor(input).unsqueeze(dim))


def view_copy(input: Any, size: Any) -> Tensor:  # noqa: A002
    """``torch.view_copy``: ``input`` in the shape ``size`` (or reinterpreted as the dtype ``size``),
    copied.  A copy needs no shared memory, so, unlike ``x.view``, any ``input`` of the right
    number of elements reshapes (``torch.view_copy(x.t(), (12,))`` is ``x.t().reshape(12)``)."""
    x = as_tensor(input)
    if isinstance(size, (tuple, list)) or hasattr(size, "__index__"):
        return _own(x.reshape(size))
    return _own(x.view(size))


def view_as_real_copy(input: Any) -> Tensor:  # noqa: A002
    """``torch.view_as_real_copy``: a copy of ``mg.view_as_real(input)``."""
    return _own(complex_numbers.view_as_real(as_tensor(input)))


def view_as_complex_copy(input: Any) -> Tensor:  # noqa: A002
    """``torch.view_as_complex_copy``: a copy of ``mg.view_as_complex(input)``."""
    return _own(complex_numbers.view_as_complex(as_tensor(input)))
