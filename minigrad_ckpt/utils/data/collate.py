"""``default_collate``: a list of samples into one batch, as PyTorch merges them.

Python floats become a float64 tensor and ints an int64 one, as PyTorch's
(every sample's type counts, not only the first's); tensors and arrays are
stacked with NumPy's promotion; containers are collated field by field and
keep their type; a ragged batch is refused with
the field and the shapes it found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...backend import host_numpy
from ...creation import as_tensor, tensor
from ...functional import stack
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert"]


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate`` does.

    * Python numbers become one tensor with PyTorch's dtypes: floats give float64
      (not the default float dtype: PyTorch's ``default_collate`` makes Python
      floats double), ints int64, bools bool. Every sample's type counts -- a
      float anywhere makes the batch float64 (``[1, 2.5]`` stays ``[1.0, 2.5]``,
      where PyTorch, looking at the first sample only, would make it float32).
    * Tensors and NumPy arrays (or NumPy scalars) are stacked along a new first
      axis with NumPy's type promotion (tensors on their device).
    * Tuples, lists, dicts and namedtuples are collated field by field and keep
      their type; strings (and bytes) stay a list.

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
        if any(isinstance(b, float) for b in batch):
            return tensor(batch, dtype="float64")
        return tensor(batch)  # int64, or bool if all are bools
    if isinstance(first, (str, bytes)):
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


def default_convert(data: Any) -> Any:
    """What a DataLoader with ``batch_size=None`` does to each sample, as PyTorch's ``default_convert``:
    NumPy arrays and NumPy scalars become tensors (sharing the array's memory, as ``mg.as_tensor``),
    inside dicts, namedtuples and sequences too (a tuple becomes a list, as in PyTorch); Python
    numbers, strings, tensors and arrays of strings stay as they are."""
    np = host_numpy
    if isinstance(data, (np.ndarray, np.generic)):
        if data.dtype.kind in "USO":  # strings and objects have no tensor
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        converted = {k: default_convert(v) for k, v in data.items()}
        try:
            return type(data)(converted)  # type: ignore[call-arg]
        except TypeError:  # a mapping type that cannot be built from a dict
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple keeps its type
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data
