"""The DataLoader: batches of a dataset, in a sampler's order, with resumable position.

Batches are made in the calling process (``num_workers=0``) or in worker
processes (:mod:`.workers`); either way the same batches in the same order.
A loader's position is state: one epoch's indices as one flat list, where it
is in them, and the state of every generator it or its sampler draws from.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import numbers
import os
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from types import GenericAlias
from typing import Any

from ... import random as _random
from ...backend import cuda_device_count, host_numpy
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _is_index
from .workers import Exhausted, FailedBatch, WorkerPool, get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]  # (PyTorch's dataloader module's)

# PyTorch's type aliases of a loader's callables, imported by code that types its own loader or
# sampler with them (Opacus's ``DPDataLoader``: ``from torch.utils.data.dataloader import _collate_fn_t``).
_collate_fn_t = Callable[[list[Any]], Any]
_worker_init_fn_t = Callable[[int], None]


def _fetch_tensor_batch(dataset: Any, indices: list[int]) -> list[Tensor] | None:
    """``default_collate([dataset[i] for i in indices])`` in one indexing op per tensor,
    for a TensorDataset (or a Subset of one) and a batch of row numbers; None otherwise. A list,
    as ``default_collate`` makes of a batch of tuples."""
    if not _are_rows(indices):
        return None
    while isinstance(dataset, Subset) and _fetches_as(dataset, Subset):
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    if not (isinstance(dataset, TensorDataset) and _fetches_as(dataset, TensorDataset) and _are_rows(indices)):
        return None  # (a subclass's own __getitem__ may transform the samples: it is called)
    n = len(dataset)
    if any(not -n <= i < n for i in indices):
        raise IndexError(f"sampler index out of range for a dataset of {n} samples")
    idx = host_numpy.asarray(indices, dtype=host_numpy.int64)
    return [t[idx] for t in dataset.tensors]


def _are_rows(keys: Any) -> bool:
    """Whether ``keys`` is a batch the one-op fetch gives as ``ds[k]`` for each does: integers, at
    least one.  Any other key goes the per-sample way, which answers as ``ds[k]``: a float is
    refused (IndexError), a bool is a new axis (``t[True]``, NumPy's and PyTorch's), a one-element
    tensor of one or more dims keeps them (``t[tensor([3])]`` is a row of shape ``(1, ...)``), and an
    empty batch is refused by ``default_collate`` -- an integer array made of them would quietly read rows."""
    return len(keys) > 0 and all(_is_index(k) for k in keys)


def _fetches_as(dataset: Any, base: type) -> bool:
    """Whether ``dataset`` gets its samples as ``base`` does: its class overrides neither
    ``__getitem__`` nor ``__getitems__``."""
    cls = type(dataset)
    return (cls.__getitem__ is base.__getitem__
            and getattr(cls, "__getitems__", None) is getattr(base, "__getitems__", None))


class _Fetcher:
    """Turn one sampler item (an index list, or one index without auto-collation) into a batch.

    A plain object, not a loader method, so that a worker process gets only this."""

    def __init__(self, dataset: Any, collate_fn: Callable[[Any], Any], auto_collation: bool,
                 default: bool) -> None:
        self.dataset, self.collate_fn = dataset, collate_fn
        self.auto_collation, self.default = auto_collation, default

    def __call__(self, item: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[item])
        if self.default:
            fast = _fetch_tensor_batch(self.dataset, item)
            if fast is not None:
                return fast
        many = getattr(self.dataset, "__getitems__", None)  # PyTorch's batched fetch, where a dataset has one
        return self.collate_fn(many(item) if many else [self.dataset[i] for i in item])


class _IterableFetcher:
    """An IterableDataset's next batch, in a worker process: the worker's own iterator over its copy
    of the dataset, started afresh for each epoch (the serial in the request tells)."""

    def __init__(self, dataset: Any, collate_fn: Callable[[Any], Any], batch_size: int | None,
                 drop_last: bool) -> None:
        self.dataset, self.collate_fn = dataset, collate_fn
        self.batch_size, self.drop_last = batch_size, drop_last
        self.serial: int | None = None
        self.samples: Iterator[Any] = iter(())

    def __call__(self, item: tuple[str, int]) -> Any:
        if item[1] != self.serial:
            self.serial, self.samples = item[1], iter(self.dataset)
        return self.next_batch(self.samples)

    def next_batch(self, samples: Iterator[Any]) -> Any:
        """The next batch of ``samples`` (one sample with ``batch_size=None``), collated; an
        :class:`Exhausted` once there is none.  What raises (the iterator, the ``collate_fn``) loses
        the samples it took, and ``samples`` goes on after it, as PyTorch's fetcher does."""
        if self.batch_size is None:
            sample = next(samples, Exhausted)
            return Exhausted() if sample is Exhausted else self.collate_fn(sample)
        batch = list(islice(samples, self.batch_size))
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            return Exhausted()
        return self.collate_fn(batch)


class _LoaderIterator:
    """The iterator ``iter(loader)`` returns: one epoch's batches, and ``len()`` the loader's, as
    PyTorch's iterator has (a progress bar over ``iter(loader)`` asks it).

    A batch whose making raises (a dataset's ``__getitem__``, a ``collate_fn``), as in PyTorch,
    raises from ``next()`` and uses its place in the epoch; the next ``next()`` goes on with the
    following batch: the run yields a :class:`FailedBatch`, raised here."""

    def __init__(self, loader: DataLoader, run: Iterator[Any]) -> None:
        self.loader, self.run = loader, run

    def __iter__(self) -> _LoaderIterator:
        return self

    def __next__(self) -> Any:
        batch = next(self.run)
        if isinstance(batch, FailedBatch):
            batch.reraise()
        return batch

    def __len__(self) -> int:
        return self.loader._batches_per_epoch()  # (the length hint list() asks for tells the loop nothing)

    def close(self) -> None:
        """End the epoch now (its workers' pending batches are dropped)."""
        close = getattr(self.run, "close", None)
        if close is not None:
            close()


class _RestartableIterator:
    """The one iterator of a loader with persistent workers, as PyTorch's: ``restart`` ends the
    epoch it was running (its workers' results for it are dropped) and goes on with a new one."""

    def __init__(self) -> None:
        self.run: Iterator[Any] = iter(())

    def restart(self, run: Iterator[Any]) -> None:
        close = getattr(self.run, "close", None)
        if close is not None:
            close()
        self.run = run

    def __iter__(self) -> _RestartableIterator:
        return self

    def __next__(self) -> Any:
        return next(self.run)

    def __len__(self) -> int:
        return len(self.run)  # type: ignore[arg-type]


class _Epoch:
    """One epoch's batches as ONE flat list of dataset indices, and how far it got.

    ``layout`` says how the list splits into batches: ``"single"`` (each index is
    an item: no auto-collation), ``"fixed"`` (consecutive runs of ``batch_size``,
    the last one possibly shorter: what a :class:`BatchSampler` gives) or
    ``"prefixed"`` (each batch is its length followed by its indices: any other
    batch sampler).  So the state is a few scalars and one array whatever the
    dataset's size or the batch size.  A sampler of other keys than integers (a
    dict dataset's strings, index lists for a dataset that fetches a batch in one
    ``__getitem__``) gives ``"items"``: the sampler's items themselves, one per batch.

    ``batching`` is how the loader that drew the epoch cuts its epochs (:meth:`DataLoader._batching`):
    a loader that cuts them otherwise refuses the epoch, whose batches would not be its own.  So does
    a loader over a dataset of another size than ``dataset_size``, the one the epoch was drawn for
    (its order would cover part of the dataset, or read past it).
    """

    def __init__(self, order: list[int], layout: str, batch_size: int, position: int, base_seed: int,
                 sampler_epoch: int | None, batching: dict[str, Any] | None = None,
                 dataset_size: int | None = None) -> None:
        self.order, self.layout, self.batch_size = order, layout, batch_size
        self.position, self.base_seed, self.sampler_epoch = position, base_seed, sampler_epoch
        self.batching, self.dataset_size = batching, dataset_size
        self.starts: list[int] = []
        if layout == "prefixed":
            i = 0
            while i < len(order):
                self.starts.append(i)
                if order[i] < 0:  # a malformed saved epoch (from_state refuses it): never step back
                    break
                i += 1 + order[i]

    @classmethod
    def of(cls, batches: list[Any], auto_collation: bool, base_seed: int, sampler_epoch: int | None,
           batching: dict[str, Any] | None = None, dataset_size: int | None = None) -> _Epoch:
        more = (base_seed, sampler_epoch, batching, dataset_size)
        if not all(_is_index(i) for b in batches for i in (b if auto_collation else [b])):
            return cls([list(b) if auto_collation else b for b in batches], "items", 1, 0, *more)
        if not auto_collation:
            return cls([int(i) for i in batches], "single", 1, 0, *more)
        size = len(batches[0]) if batches else 1
        if all(len(b) == size for b in batches[:-1]) and (not batches or 0 < len(batches[-1]) <= size):
            return cls([int(i) for b in batches for i in b], "fixed", size, 0, *more)
        flat: list[int] = []
        for b in batches:
            flat.append(len(b))
            flat.extend(int(i) for i in b)
        return cls(flat, "prefixed", 1, 0, *more)

    def __len__(self) -> int:
        if self.layout in ("single", "items"):
            return len(self.order)
        if self.layout == "fixed":
            return -(-len(self.order) // self.batch_size)
        return len(self.starts)

    def has(self, i: int) -> bool:
        """Whether the epoch has a batch ``i``."""
        return i < len(self)

    def batch(self, i: int) -> Any:
        if self.layout in ("single", "items"):
            return self.order[i]
        if self.layout == "fixed":
            return self.order[i * self.batch_size:(i + 1) * self.batch_size]
        s = self.starts[i]
        return self.order[s + 1:s + 1 + self.order[s]]

    def remaining(self) -> list[int]:
        """The indices of the batches not handed out yet, flat."""
        if self.layout == "items":
            raise ValueError("DataLoader: an epoch of a sampler's own keys (not integer indices) cannot be "
                             "dealt out again to other ranks")
        if self.layout == "single":
            return self.order[self.position:]
        if self.layout == "fixed":
            return self.order[self.position * self.batch_size:]
        return [i for k in range(self.position, len(self)) for i in self.batch(k)]

    def state(self) -> dict[str, Any]:
        return {"order": self.order, "layout": self.layout, "batch_size": self.batch_size,
                "position": self.position, "base_seed": self.base_seed, "sampler_epoch": self.sampler_epoch,
                "batching": self.batching, "dataset_size": self.dataset_size}

    def batching_differs(self, own: dict[str, Any] | None, recorded: bool) -> str | None:
        """What tells this epoch's batches apart from those of a loader that cuts its epochs as
        ``own`` says (:meth:`DataLoader._batching`), or None where they fit.  An epoch saved before
        its batching was recorded (``recorded`` False) is judged by its batches' lengths."""
        if recorded:
            if self.batching == own or self._cut_alike(own):
                return None
            return (f"the epoch was cut into batches by a loader with {_batching_text(self.batching, own)}, "
                    f"this loader has {_batching_text(own, self.batching)}")
        if own is None or self.layout == "items" or len(self) == 0:
            return None  # (what the lengths cannot tell, an older file keeps)
        size, drop_last = own["batch_size"], own["drop_last"]
        if self.layout != "fixed":
            return f"the epoch's batches came from a batch_sampler, this loader has batch_size={size}"
        last = len(self.order) - (len(self) - 1) * self.batch_size
        if (len(self) > 1 and self.batch_size != size) or last > size:
            return (f"the epoch was cut into batches by a loader with batch_size={self.batch_size}, this loader "
                    f"has batch_size={size}")
        if drop_last and last < size:
            return (f"the epoch ends with a short batch of {last} (a loader with drop_last=False), which this "
                    f"loader (drop_last=True) never hands out")
        return None

    def _cut_alike(self, own: dict[str, Any] | None) -> bool:
        """Whether ``own``'s batching, ``drop_last`` where the recorded one had none, cuts this epoch into
        the same batches: all of them whole, no short batch to drop.  (The other way round the saved
        epoch may have dropped samples this loader would hand out: refused.)"""
        mine = self.batching
        if mine is None or own is None or mine["batch_size"] != own["batch_size"] or self.layout != "fixed":
            return False
        return not mine["drop_last"] and own["drop_last"] and len(self.order) % self.batch_size == 0

    @classmethod
    def from_state(cls, state: Any, n: int, auto_collation: bool) -> _Epoch:
        """Validate a saved epoch against this loader (a dataset of ``n`` samples)."""
        def fail(why: str) -> ValueError:
            return ValueError(f"DataLoader.load_state_dict: {why}")

        keys = {"order", "layout", "batch_size", "position", "base_seed", "sampler_epoch"}
        if not isinstance(state, Mapping) or set(state) - {"batching", "dataset_size"} != keys:  # (older: neither)
            raise fail(f"not an epoch's state: {state!r:.200}")
        size = state.get("dataset_size")
        if size is not None and size != n:
            raise fail(f"the epoch was drawn for a dataset of {size} samples, this loader's has {n}")
        batching = state.get("batching")
        if batching is not None and not (isinstance(batching, Mapping) and set(batching) == {"batch_size", "drop_last"}
                                         and _is_int(batching["batch_size"]) and batching["batch_size"] > 0
                                         and isinstance(batching["drop_last"], bool)):
            raise fail(f"batching must be None or {{'batch_size': int, 'drop_last': bool}}, got {batching!r:.100}")
        order, layout = state["order"], state["layout"]
        if layout not in (("fixed", "prefixed", "items") if auto_collation else ("single", "items")):
            raise fail(f"layout {layout!r} does not fit a loader with{'' if auto_collation else 'out'} batching")
        if not isinstance(order, (list, tuple)) or not (layout == "items" or all(_is_int(i) for i in order)):
            raise fail("the epoch's order must be a list of ints")
        for k in ("batch_size", "position", "base_seed"):
            if not _is_int(state[k]) or state[k] < (1 if k == "batch_size" else 0):
                raise fail(f"{k} must be a {'positive' if k == 'batch_size' else 'non-negative'} int")
        if state["sampler_epoch"] is not None and not _is_int(state["sampler_epoch"]):
            raise fail("sampler_epoch must be an int or None")
        epoch = cls(list(order), layout, state["batch_size"], state["position"], state["base_seed"],
                    state["sampler_epoch"], None if batching is None else dict(batching), size)
        # (a batch sampler may yield an empty batch, PyTorch's loader hands the collate_fn [])
        if layout == "prefixed" and (not epoch.starts or epoch.starts[-1] + 1 + order[epoch.starts[-1]]
                                     != len(order) or any(order[s] < 0 for s in epoch.starts)):
            if order:
                raise fail("the batches' lengths do not add up to the order's length")
        indices = [epoch.batch(k) for k in range(len(epoch))] if layout == "prefixed" else order
        flat = [i for b in indices for i in b] if layout == "prefixed" else indices
        if layout != "items" and any(not -n <= i < n for i in flat):  # (a sampler's own keys: the dataset's say)
            raise fail(f"an index is out of range for a dataset of {n} samples")
        if epoch.position > len(epoch):
            raise fail(f"position {epoch.position} is past the epoch's {len(epoch)} batches")
        return epoch


#: The most dataset indices an epoch lists (about 0.6 GiB of them): a longer one is streamed
_LISTED_AT_MOST = 1 << 24


class _StreamEpoch:
    """An epoch of a sampler without a length -- one that may never end, as an infinite training
    sampler -- drawn as its batches are made, as PyTorch's loader does, instead of listed first.
    Its position cannot be saved (there is no list of what is left to save)."""

    def __init__(self, items: Iterable[Any], base_seed: int, sampler_epoch: int | None) -> None:
        self.items, self.drawn, self.pending = iter(items), 0, {}
        self.position, self.base_seed, self.sampler_epoch = 0, base_seed, sampler_epoch

    def has(self, i: int) -> bool:
        """Whether the sampler has an item ``i`` (drawing up to it)."""
        while self.drawn <= i:
            item = next(self.items, _StreamEpoch)
            if item is _StreamEpoch:
                return False
            self.pending[self.drawn] = item
            self.drawn += 1
        return True

    def batch(self, i: int) -> Any:
        return self.pending.pop(i)  # (each item is asked for once: forget it)


class _DrawnEpoch:
    """An epoch of a sampler with a length, drawn as its batches are made, as PyTorch's loader draws
    it -- so a sampler whose items follow what the loop updates (a curriculum's difficulty, a hard-example
    miner's losses) sees the updates -- and every item kept: saved mid-epoch, its state draws the rest
    of the epoch first and lists it all, an :class:`_Epoch`'s state (the run then goes on with those
    very items).  Listing the epoch at ``iter()`` instead gave such a sampler the state of the epoch's
    start for every batch."""

    def __init__(self, items: Iterable[Any], length: int, auto_collation: bool, base_seed: int,
                 sampler_epoch: int | None, batching: dict[str, Any] | None, dataset_size: int | None) -> None:
        self.items, self.drawn, self.spent = iter(items), [], False
        self.batching, self.dataset_size = batching, dataset_size
        self.length = length  # what the sampler's len() says it yields
        self.listed: _Epoch | None = None  # the whole epoch, once a state asked for it (kept for the next)
        self.auto_collation = auto_collation
        self.position, self.base_seed, self.sampler_epoch = 0, base_seed, sampler_epoch

    def has(self, i: int) -> bool:
        """Whether the sampler has an item ``i`` (drawing up to it)."""
        while len(self.drawn) <= i and not self.spent:
            item = next(self.items, _DrawnEpoch)
            if item is _DrawnEpoch:
                self.spent = True
            else:
                self.drawn.append(item)
        return i < len(self.drawn)

    def batch(self, i: int) -> Any:
        return self.drawn[i]

    def is_spent(self) -> bool:
        """Whether every item was handed out, asked when the loop dropped its iterator; the sampler's
        length answers, without drawing: the loop must not make the sampler run on past what it saw
        (PyTorch's loader asks for nothing more) -- neither mid-epoch, after a ``break``, nor at the
        end, where a sampler shaped as PyTorch's ``RandomSampler`` would draw its trailing permutation
        from the engine's generator and move it on.  (A sampler yielding more than its ``len()``, dropped
        there, ends its epoch too, as PyTorch's next ``iter()`` starts a new one.)"""
        return self.position >= self.length

    def state(self) -> dict[str, Any]:
        if self.listed is None:
            while self.has(len(self.drawn)):  # the rest of the epoch, which the run goes on with
                pass
            self.listed = _Epoch.of(self.drawn, self.auto_collation, self.base_seed, self.sampler_epoch,
                                    self.batching, self.dataset_size)
        self.listed.position = self.position
        return self.listed.state()

    def __reduce__(self) -> tuple[Any, ...]:
        """A copy (``copy.deepcopy(loader)`` mid-epoch, a pickle) is the listed epoch, as its state is:
        the sampler's iterator does not copy."""
        state = self.state()
        return (_Epoch, tuple(state[k] for k in ("order", "layout", "batch_size", "position", "base_seed",
                                                 "sampler_epoch", "batching", "dataset_size")))


def _has_length(source: Any) -> bool:
    """Whether ``len(source)`` answers (a BatchSampler over a sampler without one does not, nor a sampler
    whose ``__len__`` raises NotImplementedError, an endless one's habit: PyTorch's loader iterates
    without asking, so both are drawn from as the batches are made)."""
    try:
        len(source)
    except (TypeError, NotImplementedError):
        return False
    return True


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)



class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``DataLoader(dataset, batch_size=1, shuffle=None, sampler=None,
    batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False,
    drop_last=False, timeout=0, worker_init_fn=None, multiprocessing_context=None,
    generator=None, *, prefetch_factor=None, persistent_workers=False,
    pin_memory_device="", in_order=True)`` with PyTorch's meanings:
    ``shuffle=True`` uses a :class:`RandomSampler` (drawing from the engine's
    generator, or ``generator``); ``batch_size=None`` yields single samples
    without collation (NumPy arrays in them become tensors: :func:`default_convert`); ``num_workers > 0`` makes the
    batches in worker processes (:mod:`.workers`) -- the same batches, in the
    same order, as ``num_workers=0``.

    Each epoch gets a base seed, a function of ``generator``'s (or the engine
    generator's) state and of the epoch's number -- read, not drawn, so the
    random stream is the same with or without workers (and a loop that skips
    the batches it did before a restore resumes exactly); two loaders whose
    epochs start at one state read one seed (PyTorch's draw theirs: give each
    loader its own ``generator`` where that matters).  The workers seed the
    random draws a dataset makes from it.

    The position in the current epoch is state: :meth:`state_dict` holds the
    epoch's indices as one flat list, how many batches were handed out, and the
    state of the generators the loader and its sampler draw from; after
    :meth:`load_state_dict` the next ``iter()`` continues that epoch exactly
    (the following one starts afresh).  Register the loader with an
    :class:`~minigrad_ckpt.Executor` (``ex.register_state("loader", loader)``)
    and snapshots resume mid-epoch with the same batches.  The sampler is drawn from as the batches
    are made, as PyTorch's loader draws it (a state saved mid-epoch draws the rest first); the
    position in an epoch of a sampler without a length (one that may never end) cannot be saved.
    """

    __class_getitem__ = classmethod(GenericAlias)  # DataLoader[T], as PyTorch's generic class

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable[int] | None = None, batch_sampler: Iterable[list[int]] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None, multiprocessing_context: Any = None,
                 generator: _random.Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        num_workers, timeout, prefetch_factor = _checked_worker_options(num_workers, timeout, prefetch_factor,
                                                                        persistent_workers)
        if num_workers:  # PyTorch warns at construction too, before any worker starts
            _warn_if_more_workers_than_cpus(num_workers)
        multiprocessing_context = _worker_context(multiprocessing_context, num_workers)
        shuffle = False if shuffle is None else shuffle  # PyTorch's default, None, means no shuffling
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)  # PyTorch's test is truthiness (shuffle=1, a NumPy bool)
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle (the sampler "
                             "decides the order)")
        if generator is not None and not isinstance(generator, _random.Generator):
            raise TypeError(f"DataLoader: generator must be a minigrad_ckpt.random.Generator, got "
                            f"{type(generator).__name__}")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is not None:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size should be a positive integer value, but got "
                                 f"batch_size={batch_size!r} (or None, for no batching)")
        elif drop_last:
            raise ValueError("DataLoader: batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        # PyTorch's (kept, as its attributes): page-locked host memory is a CUDA matter, so pinning does
        # nothing here, and batches always come in order
        self.pin_memory, self.pin_memory_device, self.in_order = pin_memory, pin_memory_device, in_order
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers else prefetch_factor
        self.persistent_workers = persistent_workers
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self._epoch: _Epoch | _DrawnEpoch | _StreamEpoch | None = None  # the epoch in progress, once started
        self._epochs_started = 0
        self._finished_epoch: int | None = None  # the sampler epoch of the last epoch run to its end
        self._resume = False
        self._pool: WorkerPool | None = None  # persistent workers, kept between epochs
        self._shared_iterator: weakref.ref[_RestartableIterator] | None = None  # persistent workers: the one iterator
        self._iterable_length_told: int | None = None  # an IterableDataset's len() that len(loader) read
        self._initialized = True

    def __setattr__(self, name: str, value: Any) -> None:
        """PyTorch's refusal: the sampling options are fixed at construction (the batch sampler is built
        from them), so setting one afterwards would silently change nothing."""
        if name in _FIXED_AFTER_INIT and self.__dict__.get("_initialized", False):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized "
                             f"(make a new DataLoader)")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self) -> Any:
        """How worker processes start: a ``multiprocessing`` context, or None (``fork`` where the platform
        has it).  Checked when set, as PyTorch's: a start method's name becomes its context; set without
        workers, or to an unknown start method, it is refused (it was taken, and failed at ``iter()`` or
        was silently unused)."""
        return self.__dict__.get("_multiprocessing_context")

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        self._multiprocessing_context = _worker_context(context, self.num_workers)

    @property
    def _fetch(self) -> _Fetcher:
        """How a sampler item becomes a batch, with the ``collate_fn`` set now (PyTorch's loader reads it
        at each ``iter()``, so setting it after construction takes effect)."""
        default = self.collate_fn is (default_collate if self._auto_collation else default_convert)
        return _Fetcher(self.dataset, self.collate_fn, self._auto_collation, default)

    def __len__(self) -> int:
        if self._iterable:  # what the loop was told, for the warning if more batches come (PyTorch's)
            self._iterable_length_told = len(self.dataset)
        return self._batches_per_epoch()

    def _batches_per_epoch(self) -> int:
        if self._iterable:  # the dataset's own length, in batches (a TypeError if it has none)
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self._auto_collation else self.sampler)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        """A new epoch's batches (or the restored one's).  Without persistent workers each ``iter()``
        is independent of the others, as PyTorch's (``zip(loader, loader)`` pairs every batch with
        itself); with them, as in PyTorch, the loader has one iterator, which ``iter()`` restarts --
        every handle to it goes on with the new epoch (the workers can serve one epoch at a time)."""
        if self.pin_memory and cuda_device_count() == 0:  # PyTorch's warning, at each iter()
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", UserWarning, stacklevel=stacklevel_outside_the_engine())
        if self.num_workers and (self._pool is None or self._pool.closed):  # as PyTorch, when workers start
            _warn_if_more_workers_than_cpus(self.num_workers)
        if self.num_workers == 0 and self.timeout != 0:  # PyTorch's single-process iterator refuses it so
            raise AssertionError(f"DataLoader: timeout={self.timeout} bounds the wait for a worker's batch; it "
                                 f"needs num_workers > 0 (with num_workers=0 leave timeout=0)")
        if self._iterable:
            # (both read at iter(), as PyTorch's iterator reads them)
            run = self._warn_past_told_length(self._run_iterable(self._new_base_seed()), self._iterable_length_told)
        else:
            epoch = self._epoch
            if not (self._resume and epoch is not None and epoch.sampler_epoch == self._sampler_epoch()):
                epoch = self._new_epoch()  # (set_epoch with another epoch than the restored one: start afresh)
            self._resume = False
            self._epoch, self._finished_epoch = epoch, None
            run = self._run_here(epoch) if self.num_workers == 0 else self._run_in_workers(epoch)
        run = _LoaderIterator(self, run)
        if not (self.num_workers and self.persistent_workers):
            return run
        shared = None if self._shared_iterator is None else self._shared_iterator()
        if shared is None:
            shared = _RestartableIterator()
            # held weakly (the workers are held by the pool): once every handle to it is gone, its
            # epoch's end is known as a dropped iterator's is (_end_if_spent), and the next iter()
            # makes the loader's one iterator anew
            self._shared_iterator = weakref.ref(shared)
        shared.restart(run)
        return shared

    def _epoch_sampler(self) -> Any:
        """The sampler whose ``epoch`` (``set_epoch``) orders the batches: the loader's own, or the batch
        sampler, or the sampler inside it (``batch_sampler=BatchSampler(DistributedSampler(ds), ...)``)."""
        for s in (self.sampler, self.batch_sampler, getattr(self.batch_sampler, "sampler", None)):
            if _is_int(getattr(s, "epoch", None)):
                return s
        return None

    def _sampler_epoch(self) -> int | None:
        sampler = self._epoch_sampler()
        return None if sampler is None else sampler.epoch

    def _new_epoch(self) -> _DrawnEpoch | _StreamEpoch:
        source = self.batch_sampler if self._auto_collation else self.sampler
        if not _has_length(source) or len(source) * (self.batch_size or 1) > _LISTED_AT_MOST:
            # it may never end, or it is too long to list (minGPT draws 10**10 samples): its items are
            # forgotten once used, and its position cannot be saved
            return _StreamEpoch(source, self._new_base_seed(), self._sampler_epoch())
        size = len(self.dataset) if _has_length(self.dataset) else None  # (a sampler's own keys may need none)
        return _DrawnEpoch(source, len(source), self._auto_collation, self._new_base_seed(), self._sampler_epoch(),
                           self._batching(), size)

    def _batching(self) -> dict[str, Any] | None:
        """How this loader cuts an epoch into batches: ``{"batch_size", "drop_last"}`` where its own
        BatchSampler does; None for single samples or a ``batch_sampler``'s own batches."""
        return None if self.batch_size is None else {"batch_size": self.batch_size, "drop_last": self.drop_last}

    def _new_base_seed(self) -> int:
        """The workers' base seed for a new epoch: a function of the generator's state and of how many
        epochs this loader started -- read without advancing the generator, so a loader leaves the
        random stream (dropout, ...) where the model code expects it, with or without workers, and a
        state restored from a snapshot gives each epoch the seed it had.  (So two loaders started with
        no draw between -- ``zip(a, b)`` of unshuffled loaders -- read one seed: give each its own
        ``generator`` where their workers' augmentations must differ.  Counting such reads apart
        made the count hidden state that a snapshot does not hold, and resume inexact.)"""
        gen = self.generator or _random.default_generator
        m = _random._mix64
        base_seed = m(m(m(gen.initial_seed()) ^ gen.counter) ^ self._epochs_started)
        self._epochs_started += 1
        return base_seed >> 1  # a non-negative int64, as PyTorch's: the workers' seeds fit an int64

    def _run_iterable(self, base_seed: int) -> Iterator[Any]:
        """An IterableDataset's samples in its own order, in batches of ``batch_size`` (the last one
        shorter unless ``drop_last``), or one by one with ``batch_size=None``. With workers, each
        worker iterates its own copy, as PyTorch's (:meth:`WorkerPool.run_iterable`).  A batch whose
        making raises (the dataset's iterator, the ``collate_fn``) is raised from ``next()`` and the epoch
        goes on, asking the same iterator again, as PyTorch's: a reader that skips a corrupt record
        keeps its stream (a generator that raised has ended, and so does the epoch)."""
        if self.num_workers:
            yield from self._run_iterable_in_workers(base_seed)
            return
        samples = iter(self.dataset)
        fetch = _IterableFetcher(self.dataset, self.collate_fn, self.batch_size, self.drop_last)
        while True:
            try:
                batch = fetch.next_batch(samples)
            except Exception as exc:  # raised by the iterator, which goes on with the next batch (as PyTorch's)
                yield FailedBatch(exc)
                continue
            if isinstance(batch, Exhausted):
                return
            yield batch

    def _warn_past_told_length(self, run: Iterator[Any], told: int | None) -> Iterator[Any]:
        """``run``'s batches, with PyTorch's warning once more of them came than the samples the dataset's
        ``len()`` had told ``len(loader)`` (``told``; PyTorch compares those two counts): the sign, with
        workers, of a dataset that does not take its shard per worker (``get_worker_info()``), so that
        each worker yields all of it and every sample comes ``num_workers`` times."""
        yielded = 0
        try:
            for batch in run:
                yielded += not isinstance(batch, FailedBatch)  # (PyTorch counts the batches it hands out)
                if told is not None and yielded > told:
                    shards = (" For multiprocessing data-loading, this could be caused by not properly configuring "
                              "the IterableDataset replica at each worker (get_worker_info())."
                              if self.num_workers else "")
                    warnings.warn(f"Length of IterableDataset {self.dataset} was reported to be {told} (when "
                                  f"accessing len(dataloader)), but {yielded} samples have been fetched.{shards}",
                                  UserWarning, stacklevel=stacklevel_outside_the_engine())
                yield batch
        finally:
            run.close()  # type: ignore[attr-defined]  (the workers stop with the epoch's generator)

    def _run_here(self, epoch: _Epoch | _DrawnEpoch | _StreamEpoch) -> Iterator[Any]:
        fetch = self._fetch
        try:
            while epoch.has(epoch.position):  # (another iter() meanwhile runs an epoch of its own)
                item = epoch.batch(epoch.position)
                epoch.position += 1
                try:
                    batch = fetch(item)
                except Exception as exc:  # raised by the iterator, which goes on after it (as PyTorch's)
                    batch = FailedBatch(exc)
                yield batch
        except GeneratorExit:
            self._end_if_spent(epoch)
            raise
        self._end_epoch(epoch)

    def _end_epoch(self, epoch: _Epoch | _DrawnEpoch | _StreamEpoch) -> None:
        """The epoch's loop is over: the loader is between epochs (if no later ``iter()`` started one)."""
        if self._epoch is epoch:
            self._epoch, self._finished_epoch = None, epoch.sampler_epoch

    def _end_if_spent(self, epoch: _Epoch | _DrawnEpoch | _StreamEpoch) -> None:
        """The epoch's iterator was dropped (the longer loader of a ``zip``, a ``break``): with every
        batch handed out the epoch is over -- nothing can ask it for its end any more, and a resumed
        loader must start the next epoch, as the uninterrupted one does, not an empty rest of this one.
        Dropped with batches still to come (a ``break`` to save and stop), it stays resumable."""
        if isinstance(epoch, _DrawnEpoch) and epoch.is_spent() or (
                isinstance(epoch, _Epoch) and not epoch.has(epoch.position)):
            self._end_epoch(epoch)

    def _worker_pool(self, base_seed: int) -> WorkerPool:
        """The persistent pool if there is one alive, else a new one (kept if ``persistent_workers``)."""
        pool = self._pool
        if pool is None or pool.closed:
            fetch: Any = self._fetch
            if self._iterable:
                fetch = _IterableFetcher(self.dataset, self.collate_fn, self.batch_size, self.drop_last)
            pool = WorkerPool(fetch, self.dataset, self.num_workers, base_seed, self.worker_init_fn,
                              self.multiprocessing_context, self.timeout, self.prefetch_factor)
            if self.persistent_workers:
                self._pool = pool
        return pool

    def _run_iterable_in_workers(self, base_seed: int) -> Iterator[Any]:
        pool = self._worker_pool(base_seed)
        try:
            yield from pool.run_iterable(base_seed)
        finally:
            if not self.persistent_workers:
                pool.shutdown()

    def _run_in_workers(self, epoch: _Epoch | _DrawnEpoch | _StreamEpoch) -> Iterator[Any]:
        pool = self._worker_pool(epoch.base_seed)
        try:
            yield from pool.run(epoch, epoch.base_seed)
            if not epoch.has(epoch.position):
                self._end_epoch(epoch)
        except GeneratorExit:
            self._end_if_spent(epoch)
            raise
        finally:
            if not self.persistent_workers:
                pool.shutdown()

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown()

    # ---------------------------------------------------------------- state
    def _stateful_sampler(self) -> Any:
        for s in (self.batch_sampler, getattr(self.batch_sampler, "sampler", None), self.sampler):
            if callable(getattr(s, "state_dict", None)) and callable(getattr(s, "load_state_dict", None)):
                return s
        return None

    def state_dict(self) -> dict[str, Any]:
        """``{"epoch": ..., "epochs_started": ..., "generator": ..., "sampler": ...}``: plain data.

        ``epoch`` is None between epochs, else the epoch's indices as one flat
        list (``order``), its ``layout`` and ``batch_size``, ``position`` (the
        batches handed out), ``base_seed`` and the sampler's epoch when it was
        started; ``generator`` is the loader's own generator's state;
        ``sampler`` the sampler's ``state_dict()`` if it has one (a
        :class:`RandomSampler`'s generator, a :class:`DistributedSampler`'s
        epoch).

        Between epochs -- after epoch ``e``'s loop ran to its end, before
        ``set_epoch`` picks another -- the saved sampler epoch is ``e + 1``: the
        epoch to start from (if the loop calls ``set_epoch`` at all).  So ``for epoch in range(sampler.epoch, epochs)``
        after a restore neither replays epoch ``e`` nor skips one, wherever the
        snapshot was taken (mid-epoch, the saved epoch is the one in progress).
        """
        if self._iterable:
            raise TypeError("DataLoader.state_dict: the position in an IterableDataset cannot be saved (its "
                            "samples come from its own iterator); use a map-style Dataset to resume mid-epoch")
        if isinstance(self._epoch, _StreamEpoch):
            raise TypeError("DataLoader.state_dict: the position in an epoch of a sampler without a length (one "
                            f"that may never end) or of more than {_LISTED_AT_MOST} samples cannot be saved: give "
                            "the sampler a __len__ (or a shorter epoch) to resume mid-epoch")
        sampler = self._stateful_sampler()
        return {"epoch": None if self._epoch is None else self._epoch.state(),
                "epochs_started": self._epochs_started,
                "generator": None if self.generator is None else self.generator.get_state(),
                "sampler": None if sampler is None else self._sampler_state(sampler)}

    def _sampler_state(self, sampler: Any) -> Any:
        """``sampler.state_dict()``, with the next epoch's number once its epoch's loop has ended."""
        state = sampler.state_dict()
        done = self._finished_epoch
        if (self._epoch is None and done is not None and sampler is self._epoch_sampler()
                and self._sampler_epoch() == done and isinstance(state, dict) and state.get("epoch") == done
                and getattr(sampler, "_epoch_was_set", True)):
            # the loop of epoch `done` is over: a resumed `range(sampler.epoch, ...)` starts after it
            # (a loop that never calls set_epoch keeps epoch 0's order for good, resumed or not)
            state = {**state, "epoch": done + 1}
        return state

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Continue the saved epoch at the next ``iter()`` (everything is validated first)."""
        if isinstance(state, Mapping) and set(state) == {"batches", "position"}:
            # written before the flat layout: the epoch only (generators were not saved then)
            epoch = _from_batch_lists(state, self._auto_collation)
            epoch = None if epoch is None else _Epoch.from_state(epoch, len(self.dataset), self._auto_collation)
            if epoch is not None:
                epoch.batching = self._batching()  # (its batches as they are: that layout kept no more)
            self._epoch, self._resume = epoch, epoch is not None
            return
        if not isinstance(state, Mapping) or set(state) != {"epoch", "epochs_started", "generator", "sampler"}:
            raise ValueError(f"DataLoader.load_state_dict: not a DataLoader state: {state!r:.200}")
        if not _is_int(state["epochs_started"]) or state["epochs_started"] < 0:
            raise ValueError("DataLoader.load_state_dict: epochs_started must be an int >= 0")
        epoch = None if state["epoch"] is None else self._fitting_epoch(state["epoch"])
        if (state["generator"] is None) != (self.generator is None):
            raise ValueError("DataLoader.load_state_dict: the state was saved from a loader "
                             f"{'without' if state['generator'] is None else 'with'} its own generator")
        gen = None
        if self.generator is not None:
            gen = _random.Generator()
            gen.set_state(state["generator"])  # validates
        sampler = self._stateful_sampler()
        if (sampler is None) != (state["sampler"] is None):
            raise ValueError("DataLoader.load_state_dict: the saved loader's sampler state does not fit "
                             f"this loader's {type(self.sampler).__name__}")
        if sampler is not None:
            sampler.load_state_dict(state["sampler"])
        if gen is not None:
            self.generator.set_state(gen.get_state())
        self._epoch, self._resume = epoch, epoch is not None
        self._epochs_started, self._finished_epoch = state["epochs_started"], None

    def _fitting_epoch(self, state: Any) -> _Epoch:
        """The saved epoch ``state``, validated, if this loader cuts its epochs as the one that saved it:
        else the resumed epoch would hand out batches of another size than the loop's (a short one from a
        ``drop_last`` loader, whose ``len()`` it would contradict) -- a ValueError naming what differs."""
        epoch = _Epoch.from_state(state, len(self.dataset), self._auto_collation)
        own = self._batching()
        why = epoch.batching_differs(own, "batching" in state)
        if why is not None:
            raise ValueError(f"DataLoader.load_state_dict: {why}; resume with the saving loader's batch_size and "
                             f"drop_last (an elastic resume deals the epoch out in this loader's batches)")
        epoch.batching = own  # (an older epoch that fits: saved again, it is recorded)
        return epoch

    def reshard_state_dict(self, states: list[Mapping[str, Any]], rank: int, world_size: int) -> dict[str, Any]:
        """The state for rank ``rank`` of ``world_size`` resuming a run whose ranks saved ``states``
        (one per old rank, in rank order) -- an elastic resume.

        The interrupted epoch's batches not yet handed out on any old rank are
        pooled (old rank order) and dealt out again, index ``k`` to new rank
        ``k % world_size``, in batches of this loader's ``batch_size``: across
        the new ranks every sample of the epoch is seen exactly once.  With
        ``drop_last`` no batch may be short, so the pooled indices are cut into
        whole batches and batch ``k`` goes to new rank ``k % world_size`` (a
        tail too short for a batch, possible only when ``batch_size`` changed,
        is dropped as an epoch's is); a loader with a ``batch_sampler`` deals
        its batches out whole, batch ``k`` to new rank ``k % world_size``.  The sampler's state (a
        :class:`DistributedSampler`'s epoch) and the generators come from the
        old rank with this rank's number; a rank the old run did not have
        takes rank 0's, with each generator's seed plus ``rank`` (as the
        engine generator's, ``snapshot/ranks.py``), so that it does not draw
        rank 0's orders.  The resumed epoch's base seed is this rank's own,
        a function of the old one, the rank and the world size: the ranks'
        workers never draw the same random stream (augmentations), nor the
        one the old epoch already drew.
        """
        own = states[rank] if rank < len(states) else states[0]
        out = dict(own)
        if rank >= len(states):
            out["generator"] = _seeded_apart(out.get("generator"), rank)
            if isinstance(out.get("sampler"), Mapping) and "generator" in out["sampler"]:
                out["sampler"] = {**out["sampler"], "generator": _seeded_apart(out["sampler"]["generator"], rank)}
        epochs = [s["epoch"] for s in states]
        if any(e is None for e in epochs):
            if not all(e is None for e in epochs):
                raise ValueError("the ranks' saved loaders disagree on whether an epoch is in progress")
            return out
        n = len(self.dataset)
        old = [_Epoch.from_state(e, n, self._auto_collation) for e in epochs]
        m = _random._mix64
        base_seed = m(m(m(epochs[rank if rank < len(epochs) else 0]["base_seed"]) ^ world_size) ^ rank) >> 1
        if self._auto_collation and self.batch_size is None:  # a batch sampler's batches: dealt whole
            batches = [ep.batch(k) for ep in old for k in range(ep.position, len(ep))]
            out["epoch"] = _Epoch.of(batches[rank::world_size], True, base_seed, epochs[0]["sampler_epoch"],
                                     self._batching(), n).state()
            return out
        pooled = [i for ep in old for i in ep.remaining()]
        size = self.batch_size or 1
        if self.drop_last and self._auto_collation:  # whole batches, never a short one
            batches = [pooled[i:i + size] for i in range(0, len(pooled) - size + 1, size)]
            mine = [i for b in batches[rank::world_size] for i in b]
        else:
            mine = pooled[rank::world_size]
        out["epoch"] = _Epoch(mine, "fixed" if self._auto_collation else "single", size, 0,
                              base_seed, epochs[0]["sampler_epoch"], self._batching(), n).state()
        return out

    def __repr__(self) -> str:
        try:
            size = f" of {len(self.dataset)}"
        except TypeError:  # an IterableDataset may have no length
            size = ""
        return (f"DataLoader(dataset={type(self.dataset).__name__}{size}, "
                f"batch_size={self.batch_size}, sampler={type(self.sampler).__name__}, "
                f"drop_last={self.drop_last}, num_workers={self.num_workers})")


def _batching_text(batching: dict[str, Any] | None, other: dict[str, Any] | None) -> str:
    """``batching`` (:meth:`DataLoader._batching`) in words, naming what differs from ``other``."""
    if batching is None:
        return "batch_size=None (single samples, or a batch_sampler's batches)"
    keys = [k for k in ("batch_size", "drop_last") if other is None or batching[k] != other[k]]
    return ", ".join(f"{k}={batching[k]}" for k in keys)


def _seeded_apart(state: Any, rank: int) -> Any:
    """A generator state for new rank ``rank`` from rank 0's: its seed plus ``rank``
    (anything but a generator's state is left to ``load_state_dict`` to refuse)."""
    if not (isinstance(state, Mapping) and _is_int(state.get("seed"))):
        return state
    return {**state, "seed": (state["seed"] + rank) & _random._MASK64}


def _from_batch_lists(state: Mapping[str, Any], auto_collation: bool) -> dict[str, Any] | None:
    """The epoch of a state in the older layout (a list of batches), as the flat one."""
    batches, pos = state["batches"], state["position"]
    if batches is None:
        return None
    if not isinstance(batches, (list, tuple)) or not all(
            isinstance(b, (list, tuple)) == auto_collation for b in batches):
        raise ValueError("DataLoader.load_state_dict: batches must be a list of index lists")
    epoch = _Epoch.of(list(batches), auto_collation, 0, None)
    epoch.position = pos
    return epoch.state()


def _check_iterable_options(shuffle: bool, sampler: Any, batch_sampler: Any) -> None:
    """PyTorch's refusals for an IterableDataset (its own iterator decides the order)."""
    for name, value in (("shuffle", shuffle or None), ("sampler", sampler), ("batch_sampler", batch_sampler)):
        if value is not None:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                             f"{name}={value!r}")


_FIXED_AFTER_INIT = frozenset({"batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                               "persistent_workers"})


def _warn_if_more_workers_than_cpus(num_workers: int) -> None:
    """PyTorch's warning when a loader starts more workers than the CPUs this process may run on:
    the workers then take turns on the cores, each batch comes later, and with shared memory tight
    the machine can stall -- the run is right but slow, so it warns rather than refuses."""
    try:
        cpus = len(os.sched_getaffinity(0))  # the CPUs this process may use (a container's share)
    except AttributeError:  # not on every platform
        cpus = os.cpu_count() or 0
    if cpus and num_workers > cpus:
        warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. Our suggested "
                      f"max number of worker in current system is {cpus}, which is smaller than what this "
                      f"DataLoader is going to create. Please be aware that excessive worker creation might "
                      f"get DataLoader running slow or even freeze, lower the worker number to avoid "
                      f"potential slowness/freeze if necessary.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())


def _worker_context(context: Any, num_workers: int) -> Any:
    """PyTorch's checks of ``multiprocessing_context``: only with workers; a start method's name becomes
    its context (as PyTorch keeps it), anything else must be a context."""
    if context is None:
        return None
    if num_workers == 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading (num_workers > "
                         f"0), but got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                             f"but got multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or a string specifying "
                        f"the start method, but got multiprocessing_context={context!r}")
    return context


def _whole(v: Any) -> int | None:
    """``v`` as a Python int if it is an integer -- a NumPy one too, which PyTorch's checks (comparisons)
    take as they take an int -- else None (a bool is no count)."""
    return int(v) if isinstance(v, (int, host_numpy.integer)) and not isinstance(v, bool) else None


def _checked_worker_options(num_workers: Any, timeout: Any, prefetch_factor: Any,
                            persistent: Any) -> tuple[int, float, int | None]:
    """``num_workers``, ``timeout`` and ``prefetch_factor`` checked as PyTorch checks them, NumPy numbers
    given back as Python's (a worker process is handed these, and a config read with NumPy gives them)."""
    count = _whole(num_workers)
    if count is None:  # PyTorch's: a float is no count of processes
        raise TypeError(f"DataLoader: num_workers must be an int, got {num_workers!r}")
    if count < 0:
        raise ValueError(f"DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
                         f"multiprocessing (got {num_workers!r})")
    if isinstance(timeout, (bool, host_numpy.bool_)) or not isinstance(timeout, numbers.Real):
        raise TypeError(f"DataLoader: timeout must be a number of seconds, got {timeout!r}")  # (PyTorch's, from `<`)
    timeout = timeout.item() if isinstance(timeout, host_numpy.generic) else timeout
    if timeout < 0:
        raise ValueError(f"DataLoader: timeout option should be non-negative (a number of seconds), got {timeout!r}")
    if count == 0 and prefetch_factor is not None:
        raise ValueError("DataLoader: prefetch_factor option could only be specified in multiprocessing: let "
                         "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None")
    if prefetch_factor is not None:
        factor = _whole(prefetch_factor)
        if factor is None:  # (PyTorch's TypeError, at iter())
            raise TypeError(f"DataLoader: prefetch_factor must be an int, got {prefetch_factor!r}")
        if factor < 1:
            raise ValueError(f"DataLoader: prefetch_factor must be a positive int, got {prefetch_factor!r}")
        prefetch_factor = factor
    if count == 0 and persistent:
        raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")
    return count, timeout, prefetch_factor
