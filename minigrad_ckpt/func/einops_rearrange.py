"""``mg.func.rearrange``: PyTorch's ``torch.func.rearrange``, einops' ``rearrange`` without einops -- a pattern
such as ``"b (h w) c -> b c h w"`` names each dimension's axes, and the tensor is reshaped into them, permuted
and reshaped into the right side's groups: three differentiable shape ops of the engine.

The sizes are found as PyTorch's first-class dimensions find them (``functorch.dim``: the axes are
``d0, d1, ...`` in the left side's order, its refusals name them so): the lengths given first, then each
left group in turn infers its one unknown axis.  Two of PyTorch's own ways are kept: a ``1`` (or ``()``) on
the left is an axis that is summed away (which changes no value, but widens an integer or bool dtype to
int64, as PyTorch's sum does), and a 0-d tensor comes back as it is, whatever the right side asks.

Three differences, each a PyTorch 2.13 bug (docs/from-pytorch.md): a left ``1`` over a dimension whose size
is not one is refused (PyTorch sums that dimension, silently; einops refuses it too); a left side of a single
group (``"(a b) -> b a"``) and a ``1`` on both sides (``"a 1 c -> c 1 a"``) are answered as einops answers
them (PyTorch fails inside its first-class dimensions: its index takes the lone group for several indices,
and an empty group beside a summed axis miscounts its levels)."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from ..functional.shape import stack
from ..tensor import Tensor
from .rearrange_pattern import ELLIPSIS, parse_rearrangement

__all__ = ["rearrange", "DimensionBindError"]

UNBOUND = -1  # an axis whose size is not known yet (functorch.dim's mark: a length of -1 binds nothing)


class DimensionBindError(Exception):
    """The tensor's sizes do not fit the pattern's groups (PyTorch's ``functorch.dim.DimensionBindError``)."""


def rearrange(tensor: Tensor | Sequence[Tensor], pattern: str, **axes_lengths: int) -> Tensor:
    """Reorder, group and split ``tensor``'s dimensions as ``pattern`` says (einops' ``rearrange``)::

        rearrange(images, "b h w c -> b c h w")                          # a permutation
        rearrange(images, "b h w c -> (b h) w c")                        # b and h merged
        rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2)  # space to depth
        rearrange([x, y], "n a b -> a (n b)")                            # a list is stacked first

    Names are Python identifiers; ``(...)`` groups axes into one dimension (its sizes multiply), ``...``
    stands for the dimensions not named, ``1`` or ``()`` is a dimension of size one.  ``axes_lengths``
    gives the sizes a split cannot infer (one unknown per group).  Differentiable: reshapes and a permute.
    """
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    plan = _plan(tensor.ndim, pattern, **axes_lengths)
    if plan is None:  # PyTorch's identity on a 0-d tensor
        return tensor
    sizes = plan.bind(tuple(tensor.shape), axes_lengths)
    out = tensor.reshape(sizes).permute(plan.order)
    out = out.reshape([math.prod(sizes[a] for a in group) for group in plan.right] + [sizes[a] for a in plan.summed])
    if plan.summed:
        out = out.sum(dim=tuple(range(len(plan.right), out.ndim)))
    return out


class _Plan:
    """A pattern for tensors of one ``ndim``: the axes of each left dimension (``left``: a list per dimension,
    a bare number for one ``...`` stands for), of each right dimension (``right``), which axes are summed
    away (the left side's ``1``s), the permutation, and the axis numbers of the given lengths."""

    def __init__(self, left: list[list[int] | int], right: list[list[int]], summed: list[int],
                 named: dict[str, int]) -> None:
        self.left, self.right, self.summed, self.named = left, right, summed, named
        self.n_axes = sum(1 if isinstance(d, int) else len(d) for d in left)
        self.order = [a for group in right for a in group] + summed

    def bind(self, shape: tuple[int, ...], axes_lengths: dict[str, int]) -> list[int]:
        """Every axis's size, as PyTorch binds them, or its refusal."""
        sizes = [UNBOUND] * self.n_axes
        for axis in self.summed:  # a left 1 means a dimension of size one: another size is refused by name
            sizes[axis] = 1
        for name, length in axes_lengths.items():
            sizes[self.named[name]] = length
        for size, dim in zip(shape, self.left):
            if isinstance(dim, int):
                sizes[dim] = size
            else:
                _bind_group(size, dim, sizes)
        for axis, size in enumerate(sizes):
            if size == UNBOUND:  # (an inferred -1, from a negative length)
                raise ValueError(f"dimension d{axis} is unbound")
        return sizes


@functools.lru_cache(256)
def _plan(ndim: int, pattern: str, **axes_lengths: int) -> _Plan | None:
    """The plan of ``pattern`` for a tensor of ``ndim`` dimensions, parsed once per pattern, as PyTorch caches
    its own (its warnings of odd names come once)."""
    left, right = parse_rearrangement(pattern, axes_lengths)
    n_summed = sum(not d for d in left.composition)
    if left.has_ellipsis:
        n_ellipsis = ndim - (len(left.composition) - 1)
        if (pattern_ndim := n_summed + len(left.names) - 1) > ndim:
            raise ValueError(f"Number of dimensions in pattern ({pattern_ndim}) must be less than or equal to the "
                             f"number of dimensions in the tensor ({ndim})")
    else:
        n_ellipsis = 0
        if (pattern_ndim := len(left.composition)) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({pattern_ndim}) must be equal to the number of "
                             f"dimensions in the tensor ({ndim})")
    if n_summed + n_ellipsis + len(left.names) - left.has_ellipsis == 0:
        return None
    axis: dict[str, list[int]] = {}
    plan_left: list[list[int] | int] = []
    summed: list[int] = []
    count = 0
    for dim in left.composition:
        if dim == ELLIPSIS:
            axis[ELLIPSIS] = list(range(count, count + n_ellipsis))
            plan_left += axis[ELLIPSIS]
            count += n_ellipsis
        elif not dim:  # a 1: an axis of its own, summed away at the end
            plan_left.append([count])
            summed.append(count)
            count += 1
        else:
            for name in dim:
                axis[name] = [count]
                count += 1
            plan_left.append([a for name in dim for a in axis[name]])
    plan_right: list[list[int]] = []
    for dim in right.composition:
        if dim == ELLIPSIS:
            plan_right += [[a] for a in axis[ELLIPSIS]]
        else:
            plan_right.append([a for name in dim for a in axis[name]])
    return _Plan(plan_left, plan_right, summed, {name: axis[name][0] for name in axes_lengths})


def _bind_group(size: int, group: list[int], sizes: list[int]) -> None:
    """Bind the axes of one left dimension of length ``size``: at most one unknown, inferred from the others
    (functorch.dim's ``_bind_dims_to_size``, its words)."""
    product = 1
    for i, axis in enumerate(group):
        if sizes[axis] != UNBOUND:
            product *= sizes[axis]
            continue
        for other in group[i + 1:]:
            if sizes[other] == UNBOUND:
                raise DimensionBindError(f"cannot infer the sizes of two dimensions at once d{axis} and d{other}")
            product *= sizes[other]
        if size % product != 0:
            known = tuple(sizes[a] if sizes[a] != UNBOUND else "?" for a in group)
            raise DimensionBindError(f"inferred dimension does not evenly fit into larger dimension: {size} vs {known}")
        sizes[axis] = size // product
        product = size
        break
    if product != size:
        names = ", ".join(f"d{a}" for a in group) + ("," if len(group) == 1 else "")
        raise DimensionBindError(f"Dimension sizes to do not match ({size} != {product}) when matching "
                                 f"dimension pack ({names})")

