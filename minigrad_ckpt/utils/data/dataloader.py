"""The DataLoader: batches of a dataset, in a sampler's order, with resumable position.

No worker processes: batches are made in the calling thread, when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ... import random as _random
from ...backend import host_numpy
from ...creation import tensor
from ...functional import stack
from ...tensor import Tensor
from .dataset import Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate"]


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, as PyTorch's ``default_collate`` does.

    Tensors are stacked along a new first axis (on their device); NumPy arrays
    and Python numbers become tensors (``float`` -> float64, ``int`` -> int64,
    ``bool`` -> bool, as in PyTorch); tuples, lists and dicts are collated
    field by field; strings stay a list.
    """
    if not batch:
        raise ValueError("default_collate got an empty batch")
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch))
    if isinstance(first, (host_numpy.ndarray, host_numpy.generic)):
        return tensor(host_numpy.stack([host_numpy.asarray(b) for b in batch]))
    if isinstance(first, bool):
        return tensor(batch, dtype="bool")
    if isinstance(first, int):
        return tensor(batch, dtype="int64")
    if isinstance(first, float):
        return tensor(batch, dtype="float64")
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, Mapping):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        if any(len(b) != len(first) for b in batch):
            raise ValueError(f"default_collate: the samples have different lengths "
                             f"({sorted({len(b) for b in batch})})")
        fields = [default_collate(list(f)) for f in zip(*batch)]
        return tuple(fields) if isinstance(first, tuple) else fields
    raise TypeError(f"default_collate cannot batch samples of type {type(first).__name__}; pass a "
                    f"collate_fn")


def _fetch_tensor_batch(dataset: Any, indices: list[int]) -> tuple[Tensor, ...] | None:
    """``default_collate([dataset[i] for i in indices])`` in one indexing op per tensor,
    for a TensorDataset (or a Subset of one); None for any other dataset."""
    while isinstance(dataset, Subset):
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    if not isinstance(dataset, TensorDataset):
        return None
    n = len(dataset)
    if any(not -n <= i < n for i in indices):
        raise IndexError(f"sampler index out of range for a dataset of {n} samples")
    idx = host_numpy.asarray(indices, dtype=host_numpy.int64)
    return tuple(t[idx] for t in dataset.tensors)


class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    batch_sampler=None, *, collate_fn=None, drop_last=False, generator=None)``
    with PyTorch's meanings: ``shuffle=True`` uses a :class:`RandomSampler`
    (drawing from the engine's generator, or ``generator``); ``batch_size=None``
    yields single samples without collation.

    The position in the current epoch is state: :meth:`state_dict` returns the
    epoch's remaining batches' indices and the number already given out, and
    after :meth:`load_state_dict` the next ``iter()`` continues that epoch
    exactly (the following one starts afresh). Register the loader with an
    :class:`~minigrad_ckpt.Executor` (``ex.register_state("loader", loader)``)
    and snapshots resume mid-epoch with the same batches.
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool = False,
                 sampler: Iterable[int] | None = None, batch_sampler: Iterable[list[int]] | None = None, *,
                 num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None,
                 drop_last: bool = False, generator: _random.Generator | None = None) -> None:
        if num_workers != 0:
            raise ValueError(f"DataLoader: num_workers={num_workers}: batches are made in the calling "
                             f"process only; use num_workers=0")
        if not isinstance(shuffle, bool):
            raise TypeError(f"DataLoader: shuffle must be a bool, got {shuffle!r}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler and shuffle=True are mutually exclusive (the sampler "
                             "decides the order)")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler is mutually exclusive with batch_size, "
                                 "shuffle, sampler and drop_last")
            batch_size = None
        elif batch_size is not None:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size must be a positive int or None, got {batch_size!r}")
        elif drop_last:
            raise ValueError("DataLoader: drop_last needs a batch_size")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = 0
        self.generator = generator
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else _no_collate)
        self._default_collate = collate_fn is None
        self._batches: list[Any] | None = None   # this epoch's batches (index lists), once started
        self._position = 0                       # how many of them were given out
        self._resume = False

    def __len__(self) -> int:
        return len(self.batch_sampler if self._auto_collation else self.sampler)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        if not (self._resume and self._batches is not None):
            source = self.batch_sampler if self._auto_collation else self.sampler
            self._batches = [list(b) if self._auto_collation else int(b) for b in source]
            self._position = 0
        self._resume = False
        return self._run(self._batches)

    def _run(self, batches: list[Any]) -> Iterator[Any]:
        while self._batches is batches and self._position < len(batches):
            item = batches[self._position]
            self._position += 1
            yield self._fetch(item)
        if self._batches is batches:
            self._batches, self._position = None, 0

    def _fetch(self, item: Any) -> Any:
        if not self._auto_collation:
            return self.collate_fn(self.dataset[item])
        if self._default_collate:
            fast = _fetch_tensor_batch(self.dataset, item)
            if fast is not None:
                return fast
        return self.collate_fn([self.dataset[i] for i in item])

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        """The epoch in progress: ``{"batches": [[index, ...], ...] or None, "position": int}``.

        ``batches`` is None between epochs. Plain data (msgpack-able), so an
        Executor-registered loader travels in a snapshot's header.
        """
        return {"batches": None if self._batches is None else [list(b) if isinstance(b, list) else b
                                                                for b in self._batches],
                "position": self._position}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Continue the saved epoch at the next ``iter()`` (validated first)."""
        if not isinstance(state, Mapping) or set(state) != {"batches", "position"}:
            raise ValueError(f"DataLoader.load_state_dict: not a DataLoader state: {state!r:.200}")
        batches, pos = state["batches"], state["position"]
        if not isinstance(pos, int) or isinstance(pos, bool) or pos < 0:
            raise ValueError(f"DataLoader.load_state_dict: position must be a non-negative int, got {pos!r}")
        if batches is None:
            if pos:
                raise ValueError("DataLoader.load_state_dict: a position without an epoch's batches")
            self._batches, self._position, self._resume = None, 0, False
            return
        if not isinstance(batches, (list, tuple)) or pos > len(batches):
            raise ValueError("DataLoader.load_state_dict: batches must be a list at least `position` long")
        n = len(self.dataset)
        out = []
        for b in batches:
            idx = list(b) if self._auto_collation and isinstance(b, (list, tuple)) else b
            flat = idx if isinstance(idx, list) else [idx]
            if (self._auto_collation != isinstance(idx, list)) or any(
                    not isinstance(i, int) or isinstance(i, bool) or not -n <= i < n for i in flat):
                raise ValueError(f"DataLoader.load_state_dict: batch {b!r:.80} is not valid for this loader "
                                 f"(a dataset of {n} samples)")
            out.append(idx)
        self._batches, self._position, self._resume = out, pos, True

    def __repr__(self) -> str:
        return (f"DataLoader(dataset={type(self.dataset).__name__} of {len(self.dataset)}, "
                f"batch_size={self.batch_size}, sampler={type(self.sampler).__name__}, "
                f"drop_last={self.drop_last})")


def _no_collate(sample: Any) -> Any:
    return sample
