"""Samplers: which dataset indices a DataLoader visits, in what order.

``SequentialSampler`` visits ``0..n-1``; ``RandomSampler`` a permutation (or,
with ``replacement=True``, independent draws) taken from the engine's
generator, one key per epoch, so ``mg.manual_seed`` fixes every epoch's order;
``SubsetRandomSampler`` a permutation of given indices; ``WeightedRandomSampler``
indices drawn by weight; ``BatchSampler`` groups any sampler's indices into lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from itertools import chain, islice
from types import GenericAlias
from typing import Any

from ... import random as _random
from ...backend import cpu, host_numpy
from ...creation import as_tensor
from ...tensor import Tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


def _is_index(v: Any) -> bool:
    """An integer index as a sampler yields it: a Python or NumPy integer, or a 0-d integer tensor (a
    one-element tensor of one or more dims is a key of its own, as PyTorch's: ``ds[tensor([3])]``
    keeps its dim, a row of shape ``(1, ...)``)."""
    if isinstance(v, Tensor):
        return v.ndim == 0 and v.dtype.kind in "iu"
    return isinstance(v, (int, host_numpy.integer)) and not isinstance(v, bool)


class Sampler:
    """Base class: an iterable of dataset indices (subclasses define ``__iter__``, and ``__len__`` if
    ``len(loader)`` should work); generic as PyTorch's (``Sampler[int]``, ``Sampler[list[int]]``).

    As PyTorch's, the base class has no ``__len__`` (a default one that raises would make ``bool(s)``
    raise and ``isinstance(s, collections.abc.Sized)`` True for a sampler without a length): ``len()``
    of such a sampler is Python's ``TypeError``."""

    __class_getitem__ = classmethod(GenericAlias)

    def __init__(self, data_source: Sized | None = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order."""

    def __init__(self, data_source: Sized) -> None:
        super().__init__(data_source)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices, drawn from the engine's generator.

    Without replacement an epoch is a permutation of all ``len(data_source)``
    indices (with ``num_samples`` larger than that, further permutations follow,
    as in PyTorch); with ``replacement=True`` it is ``num_samples`` independent
    uniform draws.
    Each ``iter()`` takes its keys from the generator at its first ``next()``, as PyTorch's
    (``generator=None``: the engine's default one; or an ``mg.random.Generator`` of your own).
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: _random.Generator | None = None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a boolean value, but got "
                            f"replacement={replacement!r}")
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"RandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples!r}")
        if generator is not None and not isinstance(generator, _random.Generator):
            raise TypeError(f"RandomSampler: generator must be a minigrad_ckpt.random.Generator, got "
                            f"{type(generator).__name__}")
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if self.num_samples <= 0:  # PyTorch's refusal: an empty data source and no num_samples
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples="
                             f"{self.num_samples} (the data source is empty: pass num_samples to draw from "
                             f"it once it has samples)")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        # (a generator function, as PyTorch's: nothing is drawn before the first next())
        yield from self._draws()

    def _draws(self) -> Iterator[int]:
        n, m = len(self.data_source), self.num_samples
        gen = self.generator or _random.default_generator
        xp = cpu.xp
        if n == 0:  # (PyTorch's draw from an empty range fails too)
            raise RuntimeError(f"RandomSampler: cannot draw {m} samples from an empty data source")
        # The keys are drawn now (where the generator stands at the first next()), the indices as
        # they are read, a block at a time: minGPT's trainer asks for num_samples=int(1e10).
        if self.replacement:
            blocks = _random.uniform_bits_in_blocks(xp, gen.next_key(), m)
            chunks = ((bits % xp.uint64(n)).astype(xp.int64).tolist() for bits in blocks)
        else:
            keys = gen.next_keys(-(-m // n))
            chunks = (_random.permutation(xp, key, n).astype(xp.int64).tolist() for key in keys)
        return islice(chain.from_iterable(chunks), m)

    def __len__(self) -> int:
        return self.num_samples

    def state_dict(self) -> dict[str, Any]:
        """``{"generator": its state, "type": the sampler's class name}``: the generator's state for a
        sampler with its own generator (``None`` for the engine's, which snapshots save as the RNG state).
        The type tells the samplers whose states are alike apart (``SubsetRandomSampler``'s and
        ``WeightedRandomSampler``'s are this one's)."""
        return {"generator": None if self.generator is None else self.generator.get_state(),
                "type": type(self).__name__}

    def load_state_dict(self, state: Any) -> None:
        who = type(self).__name__
        if isinstance(state, dict) and state.get("type", who) != who:  # (a state saved before it had a type: any)
            raise ValueError(f"{who}.load_state_dict: the state was saved by a {state['type']!s:.60}, not a {who}")
        if not isinstance(state, dict) or set(state) - {"type"} != {"generator"} or (
                (state["generator"] is None) != (self.generator is None)):
            raise ValueError(f"{who}.load_state_dict: the state {state!r:.120} does not fit this "
                             f"sampler ({'with' if self.generator is not None else 'without'} its own generator)")
        if self.generator is not None:
            check = _random.Generator()
            check.set_state(state["generator"])  # validates before anything changes
            self.generator.set_state(state["generator"])

    def reshard_state_dict(self, states: list[dict[str, Any]], rank: int, world_size: int) -> dict[str, Any]:
        """The state for rank ``rank`` of ``world_size`` resuming a run whose ranks saved ``states``
        (an elastic resume): the old rank's with this number; a rank the old run did not have
        takes rank 0's generator with its seed plus ``rank`` (as the engine generator's), so that
        it does not draw rank 0's orders."""
        if rank < len(states):
            return states[rank]
        gen = states[0].get("generator") if isinstance(states[0], dict) else None
        if not (isinstance(gen, dict) and isinstance(gen.get("seed"), int)):
            return states[0]  # the engine generator's (None), or malformed: load_state_dict decides
        return {**states[0], "generator": {**gen, "seed": (gen["seed"] + rank) & _random._MASK64}}


def _own_generator(generator: Any, who: str) -> _random.Generator | None:
    if generator is not None and not isinstance(generator, _random.Generator):
        raise TypeError(f"{who}: generator must be a minigrad_ckpt.random.Generator, got {type(generator).__name__}")
    return generator


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order, a fresh permutation each ``iter()`` (one key, at its
    first ``next()``, from ``generator``, or the engine's generator), as PyTorch's
    ``SubsetRandomSampler``: the usual way to draw a training split from one dataset."""

    def __init__(self, indices: Iterable[int], generator: _random.Generator | None = None) -> None:
        super().__init__(None)
        # the sequence given, itself (PyTorch's): growing it in place -- an active-learning loop's
        # labelled pool -- grows later epochs; an iterable without indexing (a generator) as a list
        self.indices = indices if isinstance(indices, (Sequence, host_numpy.ndarray, Tensor)) else list(indices)
        self.generator = _own_generator(generator, "SubsetRandomSampler")

    def __iter__(self) -> Iterator[int]:
        # (a generator function, as PyTorch's: the permutation is drawn at the first next())
        gen = self.generator or _random.default_generator
        for i in _random.permutation(cpu.xp, gen.next_key(), len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)

    state_dict = RandomSampler.state_dict          # its own generator's state, as RandomSampler's
    load_state_dict = RandomSampler.load_state_dict
    reshard_state_dict = RandomSampler.reshard_state_dict  # a new rank's generator seeded apart from rank 0's


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``[0, len(weights))``, index ``i`` drawn with probability
    ``weights[i] / sum(weights)``, as PyTorch's ``WeightedRandomSampler`` (``torch.multinomial`` of
    the weights): with ``replacement`` (the default) independent draws; without it each index at
    most once, so ``num_samples`` may not exceed ``len(weights)``.  A zero weight is drawn only
    without replacement, once every positive weight has been (as PyTorch's; here in index order).
    One key from ``generator`` (or the engine's generator) per ``iter()``, at its first ``next()``."""

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True,
                 generator: _random.Generator | None = None) -> None:
        super().__init__(None)
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement!r}")
        w = host_numpy.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, dtype="float64")
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        # A float64 tensor, as PyTorch's torch.as_tensor(weights, dtype=torch.double): a float64 tensor given
        # is kept itself, and a float64 NumPy array is shared, so updating it in place (a replay buffer's
        # priorities) changes later draws; the values are checked at each draw, as PyTorch's multinomial does.
        if isinstance(weights, Tensor) and weights.dtype == host_numpy.float64:
            self.weights = weights
        elif isinstance(weights, host_numpy.ndarray) and weights.dtype == host_numpy.float64:
            self.weights = as_tensor(weights)
        else:
            self.weights = Tensor._from_data(w)
        self.num_samples, self.replacement = num_samples, replacement
        self.generator = _own_generator(generator, "WeightedRandomSampler")

    def __iter__(self) -> Iterator[int]:
        # (a generator function, as PyTorch's: the weights are read and drawn from at the first next())
        yield from self._draws()

    def _draws(self) -> Iterator[int]:
        gen = self.generator or _random.default_generator
        w, n = self.weights.numpy(), self.num_samples
        _check_distribution(w)
        u = _random.uniform(cpu.xp, gen.next_key(), (n if self.replacement else len(w),), "float64")
        if self.replacement:  # the inverse of the cumulative distribution; a zero weight's step is empty
            cdf = host_numpy.cumsum(w)
            idx = host_numpy.searchsorted(cdf, u * cdf[-1], side="right")
            idx = host_numpy.minimum(idx, host_numpy.flatnonzero(w)[-1])  # u * total rounding up to total
        else:  # an exponential race: each index's -log(1 - u) / weight, the num_samples smallest win
            # PyTorch's multinomial refuses only more samples than indices: once the positive weights are
            # spent, zero-weight indices follow (their race time is infinite; here in index order, in
            # PyTorch in its topk's order among ties)
            if n > len(w):
                raise RuntimeError(f"WeightedRandomSampler: cannot sample n_sample > prob_dist.size(-1) samples "
                                   f"without replacement ({n} > {len(w)})")
            race = host_numpy.where(w > 0, -host_numpy.log1p(-u) / host_numpy.where(w > 0, w, 1), host_numpy.inf)
            idx = host_numpy.argsort(race, kind="stable")[:n]
        return iter(idx.astype(host_numpy.int64).tolist())

    def __len__(self) -> int:
        return self.num_samples

    state_dict = RandomSampler.state_dict
    load_state_dict = RandomSampler.load_state_dict
    reshard_state_dict = RandomSampler.reshard_state_dict


def _check_distribution(w: Any) -> None:
    """PyTorch's multinomial refusals, with its RuntimeError."""
    if not host_numpy.isfinite(w).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if (w < 0).any():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if not w.sum() > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        super().__init__(None)
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size!r}")
        if not isinstance(drop_last, bool):  # (PyTorch's ValueError)
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for i in self.sampler:
            batch.append(int(i) if _is_index(i) else i)  # (other keys, a dict dataset's strings, as they come)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
