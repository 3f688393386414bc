"""Datasets: anything with ``__getitem__(i)`` and ``__len__()``.

``TensorDataset`` pairs tensors along their first axis; ``Subset`` picks
indices of another dataset; ``random_split`` partitions one at random (from
the engine's generator); ``a + b`` concatenates (``ConcatDataset``).
"""

from __future__ import annotations

import bisect
import math
import operator
import warnings
from collections.abc import Iterable, Sequence, Sized
from types import GenericAlias
from typing import Any

from ... import random as _random
from ...backend import cpu, host_numpy
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .sampler import _is_index, _own_generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset", "ConcatDataset", "ChainDataset",
           "random_split"]


class Dataset:
    """Base class of map-style datasets: define ``__getitem__(index)`` and ``__len__()``.

    As PyTorch's, the base class has no ``__len__``: ``len()`` of a dataset that does not define one is
    Python's ``TypeError`` (and ``isinstance(d, collections.abc.Sized)`` is False for it).  Typed as
    PyTorch's generic class: ``class Pairs(Dataset[tuple[Tensor, int]])``."""

    __class_getitem__ = classmethod(GenericAlias)  # Dataset[T] (and every subclass's [T]), as typing.Generic's

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset, Iterable):
    """Base class of iterable-style datasets: define ``__iter__`` (samples in the order a
    DataLoader batches them: no sampler, no shuffling), and ``__len__`` if ``len(loader)`` should
    work.  ``a + b`` chains two of them (:class:`ChainDataset`).

    As PyTorch's, it is an abstract ``collections.abc.Iterable``: a class without ``__iter__``
    cannot be instantiated (a ``TypeError``), and indexing one is the base class's
    ``NotImplementedError``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} is an IterableDataset: iterate over it, it has no "
                                  f"indices")

    def __add__(self, other: Any) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets one after another, as PyTorch's ``ChainDataset``."""

    def __init__(self, datasets: Sequence[Any]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Any:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        for d in self.datasets:  # PyTorch's check, as __iter__'s
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
        return sum(len(d) for d in self.datasets)


class TensorDataset(Dataset):
    """Samples are ``(t[i] for t in tensors)``: tensors (or arrays) that share their first axis.

    A DataLoader over a TensorDataset with the default collate indexes each
    tensor once per batch (``t[indices]``) instead of stacking single samples:
    the same batch, one op instead of ``batch_size + 1``.
    """

    def __init__(self, *tensors: Any) -> None:
        if not tensors:  # (PyTorch's IndexError: it reads tensors[0].size(0))
            raise IndexError("TensorDataset needs at least one tensor")
        ts = tuple(t if isinstance(t, Tensor) else Tensor._from_data(t) for t in tensors)
        if any(t.ndim == 0 for t in ts):  # (PyTorch's IndexError: size(0) of a 0-d tensor)
            raise IndexError("TensorDataset: every tensor needs a first (sample) axis; got a 0-d tensor")
        sizes = [t.shape[0] for t in ts]
        if len(set(sizes)) != 1:  # (PyTorch's AssertionError)
            raise AssertionError(f"Size mismatch between tensors: their first axes differ: {sizes} (shapes "
                                 f"{[t.shape for t in ts]})")
        self.tensors = ts

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class StackDataset(Dataset):
    """Samples of several datasets of one length, side by side, as PyTorch's ``StackDataset``:
    ``StackDataset(x, y)[i] == (x[i], y[i])``, ``StackDataset(image=x, label=y)[i]`` a dict."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        parts = list(args) or list(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """The samples at ``indices``, each part fetched with its dataset's ``__getitems__`` where it
        has one (PyTorch's)."""
        named = isinstance(self.datasets, dict)
        columns = {}
        for key, d in (self.datasets.items() if named else enumerate(self.datasets)):
            many = getattr(d, "__getitems__", None)
            items = many(indices) if callable(many) else [d[i] for i in indices]
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
            columns[key] = items
        rows = [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        return rows if named else [tuple(r.values()) for r in rows]

    def __len__(self) -> int:
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[Any]) -> None:
        self.dataset = dataset
        # a list of ints is kept itself, as PyTorch keeps the sequence given: growing it in place (an
        # active-learning loop's labelled pool) grows the subset.  Other integer indices (NumPy's, 0-d
        # tensors) as ints; other keys (a dict dataset's) as given, for the dataset to judge, as PyTorch
        # passes them on
        if not (isinstance(indices, list) and all(type(i) is int for i in indices)):
            indices = [operator.index(i) if _is_index(i) else i for i in indices]
        self.indices = indices
        if isinstance(dataset, Sized):  # (PyTorch asks no length: a dataset may have none)
            n = len(dataset)
            bad = [i for i in self.indices if isinstance(i, int) and not -n <= i < n]
            if bad:
                raise IndexError(f"Subset: indices {bad[:5]} are out of range for a dataset of {n} samples")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):  # PyTorch's: a list of positions is one lookup in the dataset
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """The samples at ``indices`` for a DataLoader's batch, as PyTorch's: the dataset's own
        ``__getitems__`` if it has one.  A subclass that overrides only ``__getitem__`` gets it called
        for each sample (PyTorch refuses such a subclass at construction)."""
        if type(self).__getitem__ is not Subset.__getitem__:
            return [self[i] for i in indices]
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after another."""

    def __init__(self, datasets: Sequence[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:  # (PyTorch's AssertionError)
            raise AssertionError("datasets should not be an empty iterable: ConcatDataset needs at least one")
        if any(isinstance(d, IterableDataset) for d in self.datasets):  # PyTorch's refusal: no indices
            raise AssertionError("ConcatDataset does not support IterableDataset (chain them: ChainDataset)")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if index < -n:  # PyTorch's ValueError for a negative index, IndexError for a positive one
            raise ValueError(f"absolute value of index should not exceed dataset length: index {index} of a "
                             f"dataset of {n} samples")
        if index >= n:
            raise IndexError(f"index {index} is out of range for a dataset of {n} samples")
        index %= n
        d = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[d - 1] if d else 0
        return self.datasets[d][index - start]


def random_split(dataset: Any, lengths: Sequence[int | float],
                 generator: _random.Generator | None = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to
    1 (floored, the remainder handed out one by one from the first subset on,
    as PyTorch does). The permutation comes from the engine's generator (or
    ``generator``), so ``mg.manual_seed`` fixes the split.

    PyTorch's test of which: lengths whose sum is close to 1 and at most 1 are
    fractions, whatever their type (``[1, 0]`` is all of the dataset and none of
    it; ``[0.5, 0.5000001]`` is refused), and a fraction giving an empty subset warns.
    """
    n = len(dataset)
    lengths = [x.item() if isinstance(x, Tensor) else x for x in lengths]  # (a tensor of lengths, as PyTorch)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_counts(lengths, n)
    if any(not isinstance(x, (int, host_numpy.integer)) for x in lengths):  # (fractions not summing to 1)
        raise ValueError(f"random_split: Sum of input lengths does not equal the length of the input dataset! "
                         f"(lengths must be ints summing to {n} or fractions summing to 1, got {lengths})")
    if any(x < 0 for x in lengths):
        raise ValueError(f"random_split: lengths must be non-negative, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(f"random_split: Sum of input lengths does not equal the length of the input dataset! "
                         f"(the lengths sum to {sum(lengths)}, the dataset has {n} samples)")
    gen = _own_generator(generator, "random_split") or _random.default_generator
    perm = _random.permutation(cpu.xp, gen.next_key(), n).tolist()
    out, start = [], 0
    for k in lengths:
        out.append(Subset(dataset, perm[start:start + int(k)]))
        start += int(k)
    return out


def _fraction_counts(fractions: list[Any], n: int) -> list[int]:
    """PyTorch's counts of ``n`` samples for fractions: each floored, the remainder handed out one by one
    from the first subset on; an empty subset warns (PyTorch's UserWarning)."""
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1 (random_split: {fractions})")
    counts = [int(math.floor(n * f)) for f in fractions]
    for i in range(n - sum(counts)):
        counts[i % len(counts)] += 1
    for i, k in enumerate(counts):
        if k == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          UserWarning, stacklevel=stacklevel_outside_the_engine())
    return counts
