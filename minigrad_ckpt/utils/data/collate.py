"""``default_collate``: a list of samples into one batch, as PyTorch merges them.

Numbers become one tensor as ``mg.tensor`` would make it (every sample's type
counts); tensors and arrays are stacked with NumPy's promotion; containers are
collated field by field and keep their type; a ragged batch is refused with
the field and the shapes it found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...backend import host_numpy
from ...creation import tensor
from ...functional import stack
from ...tensor import Tensor

__all__ = ["default_collate"]


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate`` does.

    * Python numbers become one tensor exactly as ``mg.tensor(batch)`` would make
      it: any float gives the default float dtype, bools with ints give int64 --
      the first sample's type never decides (``[1, 2.5]`` stays ``[1.0, 2.5]``).
    * Tensors and NumPy arrays (or NumPy scalars) are stacked along a new first
      axis with NumPy's type promotion (tensors on their device).
    * Tuples, lists, dicts and namedtuples are collated field by field and keep
      their type; strings stay a list.

    A ragged batch -- samples whose arrays differ in shape, or sequences that
    differ in length -- is refused with a ``ValueError`` naming the field
    (``batch[i][1]['x']``) and the shapes: pad the samples, or pass a
    ``collate_fn``.
    """
    if not batch:
        raise ValueError("default_collate got an empty batch")
    return _collate(list(batch), "batch[i]")


def _collate(batch: list[Any], field: str) -> Any:
    first = batch[0]
    if isinstance(first, Tensor):
        return _stack_tensors(batch, field)
    if isinstance(first, (host_numpy.ndarray, host_numpy.generic)) and not isinstance(first, host_numpy.str_):
        _same_kind(batch, (host_numpy.ndarray, host_numpy.generic), field)
        arrays = [host_numpy.asarray(b) for b in batch]
        _same_shapes([a.shape for a in arrays], field)
        return tensor(host_numpy.stack(arrays))  # np.stack promotes (np.result_type of all)
    if isinstance(first, (bool, int, float)):
        _same_kind(batch, (bool, int, float), field)
        return tensor(batch)  # mg.tensor's promotion over every sample
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, Mapping):
        _same_kind(batch, Mapping, field)
        keys = list(first)
        for b in batch:
            if set(b) != set(keys):
                raise ValueError(f"default_collate: the samples at {field} have different keys "
                                 f"({sorted(map(str, keys))} and {sorted(map(str, b))})")
        return {k: _collate([b[k] for b in batch], f"{field}[{k!r}]") for k in keys}
    if isinstance(first, (tuple, list)):
        _same_kind(batch, (tuple, list), field)
        if any(len(b) != len(first) for b in batch):
            raise ValueError(f"default_collate: the samples at {field} have different lengths "
                             f"({sorted({len(b) for b in batch})}); pad them or pass a collate_fn")
        fields = [_collate(list(f), f"{field}[{j}]") for j, f in enumerate(zip(*batch))]
        if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple keeps its type
            return type(first)(*fields)
        return tuple(fields) if isinstance(first, tuple) else fields
    raise TypeError(f"default_collate cannot batch samples of type {type(first).__name__} (at {field}); pass "
                    f"a collate_fn")


def _same_kind(batch: list[Any], kinds: Any, field: str) -> None:
    for b in batch:
        if not isinstance(b, kinds) or isinstance(b, str):
            raise TypeError(f"default_collate: the samples at {field} mix {type(batch[0]).__name__} and "
                            f"{type(b).__name__}; pass a collate_fn")


def _same_shapes(shapes: list[tuple[int, ...]], field: str) -> None:
    if any(s != shapes[0] for s in shapes):
        distinct = sorted(set(shapes))
        raise ValueError(f"default_collate: the samples at {field} have different shapes {distinct} "
                         f"(a ragged batch); pad them to one shape or pass a collate_fn")


def _stack_tensors(batch: list[Any], field: str) -> Tensor:
    _same_kind(batch, Tensor, field)
    _same_shapes([t.shape for t in batch], field)
    dtype = host_numpy.result_type(*[t.dtype for t in batch])
    return stack([t if t.dtype == dtype else t.to(dtype) for t in batch])
