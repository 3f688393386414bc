"""``default_collate``: a list of samples into one batch, as PyTorch merges them.

Python numbers become a tensor with PyTorch's dtypes (the first sample decides,
as in PyTorch); tensors and arrays are stacked with PyTorch's promotion;
containers are collated field by field with PyTorch's container rules (a batch
of tuples gives a list); a ragged batch is refused with the field and the
shapes it found.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any

from ...backend import host_numpy
from ...creation import as_tensor, tensor
from ...functional import stack
from ...functional.promotion import promote_types
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn", "collate_str_fn",
           "np_str_obj_array_pattern", "default_collate_err_msg_format"]

# PyTorch's two module-level names that hand-copied collate functions import next to ``default_collate``
# (taming-transformers' and latent-diffusion's ``custom_collate``, copies of PyTorch 1.9's): the NumPy
# dtype strings (``arr.dtype.str``) of strings and objects, which are refused, and the message of the
# ``TypeError`` for a leaf no rule batches.  The words are PyTorch 2.13's.
np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate`` does.

    * Python numbers become one tensor with PyTorch's dtypes, decided by the
      first sample as in PyTorch: a float first gives float64 (PyTorch's
      ``collate_float_fn``), an int or bool first gives ``mg.tensor(batch)``:
      int64, bool for all bools, the default float dtype if a float follows
      (``[1, 2.5]`` is float32 ``[1.0, 2.5]``, ``[2.5, 1]`` float64).
    * Tensors and NumPy arrays (or NumPy scalars) are stacked along a new first
      axis with PyTorch's type promotion (int32 with float32 is float32; tensors
      on their device).
    * A sequence sample gives a *list* of batched fields -- a batch of tuples
      too, as PyTorch's (``[(x, y), ...]`` collates to ``[xs, ys]``); a list
      subclass keeps its type, a namedtuple keeps its type, a mapping keeps
      its type (a dict, an OrderedDict) with the first sample's keys.
    * Strings (and bytes) stay as they come: the batch's list at the top, a
      tuple of them inside a sequence field (PyTorch's ``zip`` leaves them so).

    A ragged batch -- samples whose arrays differ in shape, or sequences that
    differ in length -- is refused with a ``RuntimeError`` (PyTorch's kind of
    error) naming the field (``batch[i][1]['x']``) and the shapes: pad the
    samples, or pass a ``collate_fn``.
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def collate(batch: list[Any], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None) -> Any:
    """PyTorch's ``torch.utils.data._utils.collate.collate``: :func:`default_collate`'s container rules, with
    the leaves batched by ``collate_fn_map`` -- ``{type or tuple of types: fn(batch, *, collate_fn_map)}``,
    the sample's exact type first, then the first entry it is an instance of.  ``default_collate`` reads
    :data:`default_collate_fn_map`, so adding an entry there (PyTorch's second way to extend it) teaches
    it a type of one's own::

        default_collate_fn_map[Box] = lambda batch, *, collate_fn_map=None: Box.merge(batch)

    A leaf no entry covers is refused with a ``TypeError``."""
    if len(batch) == 0:  # (PyTorch's IndexError: it reads batch[0]; a NumPy array batch has no truth value)
        raise IndexError("default_collate got an empty batch: there is no first sample to batch")
    return _collate(batch, "batch[i]", collate_fn_map)


def _entry(fn_map: dict[Any, Callable[..., Any]], first: Any) -> Callable[..., Any] | None:
    """PyTorch's lookup: the exact type's entry, else the first entry ``first`` is an instance of."""
    if type(first) in fn_map:
        return fn_map[type(first)]
    return next((fn for kinds, fn in fn_map.items() if isinstance(first, kinds)), None)


def _collate(batch: Sequence[Any], field: str, fn_map: dict[Any, Callable[..., Any]] | None = None) -> Any:
    first = batch[0]
    fn = None if fn_map is None else _entry(fn_map, first)
    if fn is not None and fn not in _OWN_LEAF_FNS:  # a program's own entry
        return fn(batch, collate_fn_map=fn_map)
    if fn is None:  # no leaf function: containers only (PyTorch's collate without the entry)
        return _collate_container(batch, field, fn_map)
    if isinstance(first, Tensor):
        return _stack_tensors(batch, field)
    if isinstance(first, host_numpy.generic) and not isinstance(first, (host_numpy.str_, host_numpy.bytes_)):
        # PyTorch's torch.as_tensor(batch) of NumPy scalars: the batch's leaves promote by category, so
        # [np.float32(1), 2] is float32 (a string or object dtype is refused as an array of them would be)
        if first.dtype.kind in "SaUO":
            raise TypeError(f"default_collate: the samples at {field} are NumPy scalars of {first.dtype}, which "
                            f"have no tensor; pass a collate_fn")
        return _numbers(batch, None, field)
    if isinstance(first, host_numpy.ndarray):
        return _stack_arrays(batch, field)
    if isinstance(first, (bool, int, float)):
        # PyTorch looks at the first sample only: collate_float_fn or collate_int_fn, torch.tensor(batch)
        return _numbers(batch, "float64" if isinstance(first, float) else None, field)
    if isinstance(first, (str, bytes)):
        return batch
    return _collate_container(batch, field, fn_map)


def _collate_container(batch: Sequence[Any], field: str, fn_map: dict[Any, Callable[..., Any]] | None) -> Any:
    first = batch[0]
    if isinstance(first, Mapping):
        return _collate_mapping(batch, field, fn_map)
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple keeps its type
        _same_kind(batch, tuple, field)
        return type(first)(*_collate_fields(batch, field, fn_map))
    if isinstance(first, Sequence) and not isinstance(first, (str, bytes)):
        _same_kind(batch, Sequence, field)
        return _rebuild_sequence(first, _collate_fields(batch, field, fn_map))
    raise TypeError(f"default_collate cannot batch samples of type {type(first).__name__} (at {field}); pass "
                    f"a collate_fn")


def _numbers(batch: Sequence[Any], dtype: Any, field: str) -> Tensor:
    """``mg.tensor(batch)`` of numbers (Python, NumPy, one-element tensors: what ``torch.tensor`` reads)."""
    try:
        return tensor(list(batch), dtype=dtype)
    except (TypeError, ValueError) as exc:  # (each with its own type: an int past int64 is PyTorch's ValueError)
        kinds = sorted({type(b).__name__ for b in batch})
        raise (ValueError if isinstance(exc, ValueError) else TypeError)(
            f"default_collate: the samples at {field} ({', '.join(kinds)}) do not make one tensor ({exc}); pass "
            f"a collate_fn") from exc


def _collate_fields(batch: Sequence[Any], field: str, fn_map: dict[Any, Callable[..., Any]] | None) -> list[Any]:
    """Each position of equally long sequence samples, collated."""
    if any(len(b) != len(batch[0]) for b in batch):
        raise RuntimeError(f"default_collate: the samples at {field} have different lengths "
                           f"({sorted({len(b) for b in batch})}); pad them or pass a collate_fn")
    return [_collate(samples, f"{field}[{j}]", fn_map) for j, samples in enumerate(zip(*batch))]


def _rebuild_sequence(first: Sequence[Any], fields: list[Any]) -> Any:
    """PyTorch's container rule: a tuple gives a list (PyTorch keeps that for backward compatibility);
    a mutable sequence keeps its type (a copy of the first sample, its items replaced); another
    sequence type is built from the list if it can be, else the list."""
    if isinstance(first, tuple):
        return fields
    try:
        if isinstance(first, MutableSequence):
            clone = copy.copy(first)
            for i, value in enumerate(fields):
                clone[i] = value
            return clone
        return type(first)(fields)  # type: ignore[call-arg]
    except TypeError:  # a sequence type that cannot be copied or built from a list (range)
        return fields


def _collate_mapping(batch: Sequence[Any], field: str, fn_map: dict[Any, Callable[..., Any]] | None) -> Any:
    """A mapping keeps its type and the first sample's keys (PyTorch's); a key missing from a later
    sample is a KeyError naming it."""
    _same_kind(batch, Mapping, field)
    first = batch[0]
    for b in batch:
        missing = [k for k in first if k not in b]
        if missing:
            raise KeyError(f"default_collate: a sample at {field} lacks the key(s) {missing} that the first "
                           f"sample has; pass a collate_fn")
    return _rebuild_mapping(first, {k: _collate([b[k] for b in batch], f"{field}[{k!r}]", fn_map) for k in first})


def _rebuild_mapping(first: Mapping[Any, Any], out: dict[Any, Any]) -> Any:
    """PyTorch's container rule for a mapping: a mutable one keeps its type (a copy of ``first``, its
    values replaced: a defaultdict keeps its factory), another is built from the dict if it can be,
    else the dict."""
    try:
        if isinstance(first, MutableMapping):
            clone = copy.copy(first)
            clone.update(out)
            return clone
        return type(first)(out)  # type: ignore[call-arg]
    except TypeError:  # a mapping type that cannot be copied or built from a dict
        return out


def _same_kind(batch: Sequence[Any], kinds: Any, field: str) -> None:
    for b in batch:
        if not isinstance(b, kinds) or isinstance(b, str):
            raise TypeError(f"default_collate: the samples at {field} mix {type(batch[0]).__name__} and "
                            f"{type(b).__name__}; pass a collate_fn")


def _same_shapes(shapes: list[tuple[int, ...]], field: str) -> None:
    if any(s != shapes[0] for s in shapes):
        distinct = sorted(set(shapes))
        raise RuntimeError(f"default_collate: the samples at {field} have different shapes {distinct} "
                           f"(a ragged batch); pad them to one shape or pass a collate_fn")


def _stack_arrays(batch: Sequence[Any], field: str) -> Tensor:
    """NumPy samples (a tensor among them too, as PyTorch's ``as_tensor`` of each) into one tensor."""
    np = host_numpy
    if not all(isinstance(b, (np.ndarray, np.generic)) for b in batch):
        # PyTorch's collate_numpy_array_fn: torch.as_tensor of each sample (a tensor, a list of numbers
        # among the arrays), then the stack of tensors
        return _stack_tensors([b if isinstance(b, Tensor) else as_tensor(b) for b in batch], field)
    arrays = [np.asarray(b) for b in batch]
    if arrays[0].dtype.kind in "SaUO":  # PyTorch's np_str_obj_array_pattern: strings and objects
        raise TypeError(f"default_collate: the samples at {field} are NumPy arrays of {arrays[0].dtype}, which "
                        f"have no tensor; pass a collate_fn")
    _same_shapes([a.shape for a in arrays], field)
    dtype = functools.reduce(promote_types, [a.dtype for a in arrays])  # PyTorch's: int32 with float32 is float32
    return tensor(np.stack(arrays).astype(dtype, copy=False))


def _stack_tensors(batch: Sequence[Any], field: str) -> Tensor:
    _same_kind(batch, Tensor, field)
    _same_shapes([t.shape for t in batch], field)
    return stack(batch)  # in PyTorch's promoted dtype (int64 with float32 is float32)


def default_convert(data: Any) -> Any:
    """What a DataLoader with ``batch_size=None`` does to each sample, as PyTorch's ``default_convert``:
    NumPy arrays and NumPy scalars become tensors (sharing the array's memory, as ``mg.as_tensor``),
    inside mappings, namedtuples and sequences too, with :func:`default_collate`'s container rules
    (a tuple becomes a list, a list subclass or a defaultdict keeps its type, a ``range`` becomes a
    list); Python numbers, strings, tensors, arrays of strings and NumPy array subclasses from a
    submodule (``np.ma.MaskedArray``, ``np.recarray``: their mask or fields would be lost) stay as
    they are."""
    np = host_numpy
    if isinstance(data, (np.ndarray, np.generic)):
        # PyTorch converts only types NumPy's top-level module defines (ndarray, memmap, matrix,
        # scalars): a subclass from a submodule (a MaskedArray, a recarray) stays as it is, which
        # keeps a mask that a tensor would silently drop
        if data.dtype.kind in "USO" or type(data).__module__ != "numpy":  # strings and objects have no tensor
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple keeps its type
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _leaf(batch: list[Any], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None) -> Any:
    """A leaf's batch as :func:`default_collate` makes it (its entries in :data:`default_collate_fn_map`)."""
    return _collate(batch, "batch[i]", {object: _leaf})


# PyTorch's names for its leaf functions; each is default_collate's own rule for its kind
collate_tensor_fn = collate_numpy_array_fn = collate_numpy_scalar_fn = _leaf
collate_float_fn = collate_int_fn = collate_str_fn = _leaf
_OWN_LEAF_FNS = frozenset({_leaf})

#: The leaf functions :func:`default_collate` uses, PyTorch's map (its keys, in its order): add an entry
#: for a type of one's own; an entry for a built-in kind replaces the default rule for it.
default_collate_fn_map: dict[Any, Callable[..., Any]] = {
    Tensor: _leaf, host_numpy.ndarray: _leaf,
    (host_numpy.bool_, host_numpy.number, host_numpy.object_): _leaf, float: _leaf, int: _leaf, str: _leaf,
    bytes: _leaf}
