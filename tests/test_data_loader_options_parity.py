"""The DataLoader's options as PyTorch 2.13 checks and keeps them (differential findings).

Each expected behaviour is torch 2.13's answer for ``torch.utils.data.DataLoader`` with the
same arguments, written here (the tests never import torch).
"""

from __future__ import annotations

import multiprocessing
import os
from itertools import islice

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset
from minigrad_ckpt.utils.data.workers import WorkerPool

DATA = list(range(10))


@pytest.mark.parametrize("name, value", [("batch_size", 3), ("sampler", [1]), ("batch_sampler", [[1]]),
                                         ("drop_last", True), ("dataset", [1]), ("persistent_workers", True)])
def test_the_sampling_options_are_fixed_after_construction(name, value):
    # torch: ValueError('batch_size attribute should not be set after DataLoader is initialized');
    # before, the loader took the new value and went on batching with the old one (5 batches of 2)
    loader = DataLoader(DATA, batch_size=2)
    with pytest.raises(ValueError, match=f"{name} attribute should not be set after DataLoader is initialized"):
        setattr(loader, name, value)
    assert [b.tolist() for b in loader][0] == [0, 1]


def test_a_collate_fn_set_after_construction_is_used():
    # torch: the loader reads collate_fn at each iter(), so a new one takes effect (before: the one
    # given at construction went on being used, the new one silently ignored)
    loader = DataLoader(DATA, batch_size=2)
    loader.collate_fn = tuple
    assert next(iter(loader)) == (0, 1)
    unbatched = DataLoader(DATA, batch_size=None)
    unbatched.collate_fn = str
    assert next(iter(unbatched)) == "0"


def test_pin_memory_pin_memory_device_and_in_order_are_kept_as_attributes():
    # torch: loader.pin_memory, loader.pin_memory_device and loader.in_order are the arguments given
    loader = DataLoader(DATA, pin_memory=True, pin_memory_device="cpu", in_order=False)
    assert (loader.pin_memory, loader.pin_memory_device, loader.in_order) == (True, "cpu", False)
    plain = DataLoader(DATA)
    assert (plain.pin_memory, plain.pin_memory_device, plain.in_order) == (False, "", True)


def test_multiprocessing_context_is_checked_and_kept_as_a_context():
    # torch: ValueError without workers (even a valid name), ValueError for an unknown start method,
    # TypeError for what is neither a name nor a context; a name is kept as its context object
    with pytest.raises(ValueError, match="multiprocessing_context can only be used with multi-process loading"):
        DataLoader(DATA, multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="should specify a valid start method"):
        DataLoader(DATA, num_workers=1, multiprocessing_context="bogus")
    with pytest.raises(TypeError, match="valid context object or a string"):
        DataLoader(DATA, num_workers=1, multiprocessing_context=3)
    loader = DataLoader(DATA, num_workers=1, multiprocessing_context="spawn")
    assert isinstance(loader.multiprocessing_context, multiprocessing.context.BaseContext)
    assert loader.multiprocessing_context.get_start_method() == "spawn"
    fork = multiprocessing.get_context("fork")
    assert DataLoader(DATA, num_workers=1, multiprocessing_context=fork).multiprocessing_context is fork
    assert DataLoader(DATA).multiprocessing_context is None


def test_multiprocessing_context_is_checked_when_set_after_construction():
    # torch: the attribute is a property whose setter checks as the constructor does and keeps a name as
    # its context; before, any value was taken -- 'bogus' failed at iter() with multiprocessing's own
    # error, and on a loader without workers the context was silently unused
    loader = DataLoader(DATA, num_workers=1)
    loader.multiprocessing_context = "spawn"
    assert loader.multiprocessing_context.get_start_method() == "spawn"
    with pytest.raises(ValueError, match="should specify a valid start method"):
        loader.multiprocessing_context = "bogus"
    with pytest.raises(TypeError, match="valid context object or a string"):
        loader.multiprocessing_context = 3
    assert loader.multiprocessing_context.get_start_method() == "spawn"  # (a refused value changes nothing)
    loader.multiprocessing_context = None
    assert loader.multiprocessing_context is None
    with pytest.raises(ValueError, match="multiprocessing_context can only be used with multi-process loading"):
        DataLoader(DATA).multiprocessing_context = "fork"


@pytest.mark.parametrize("value", [2.5, 2.0, "2"])
def test_a_prefetch_factor_that_is_not_an_int_is_a_type_error(value):
    # torch: TypeError ('float' object cannot be interpreted as an integer) -- a kind of value, not a
    # wrong number (before: ValueError, where num_workers=1.0 was already a TypeError)
    with pytest.raises(TypeError, match="prefetch_factor must be an int"):
        DataLoader(DATA, num_workers=1, prefetch_factor=value)
    with pytest.raises(ValueError, match="prefetch_factor must be a positive int"):
        DataLoader(DATA, num_workers=1, prefetch_factor=-1)


def test_a_float_number_of_workers_is_a_type_error():
    # torch: TypeError("'float' object cannot be interpreted as an integer"); a negative int a ValueError
    with pytest.raises(TypeError, match="num_workers must be an int"):
        DataLoader(DATA, num_workers=1.0)
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(DATA, num_workers=-1)


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8])
def test_numpy_integers_are_worker_counts_prefetch_factors_and_timeouts(kind):
    # torch: a NumPy integer is a number of workers, a prefetch factor and a timeout as a Python int is
    # (its checks are comparisons); before, each was refused with a TypeError ('must be an int')
    loader = DataLoader(DATA, batch_size=4, num_workers=kind(1), prefetch_factor=kind(3), timeout=kind(30),
                        persistent_workers=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert (loader.num_workers, loader.prefetch_factor, loader.timeout) == (1, 3, 30)
    assert type(loader.num_workers) is int and type(loader.prefetch_factor) is int
    assert DataLoader(DATA, num_workers=kind(0)).num_workers == 0
    assert DataLoader(DATA, num_workers=1, timeout=np.float32(2.5)).timeout == 2.5
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(DATA, num_workers=np.int64(-1))
    with pytest.raises(TypeError, match="timeout"):
        DataLoader(DATA, num_workers=1, timeout=np.bool_(True))


def test_a_timeout_without_workers_is_refused_when_iterated():
    # torch: the loader is made; iter() raises AssertionError('_SingleProcessDataLoaderIter requires
    # timeout == 0') -- before, the timeout was silently ignored
    loader = DataLoader(DATA, sampler=SequentialSampler(DATA), timeout=1)
    with pytest.raises(AssertionError, match="needs num_workers > 0"):
        iter(loader)


class _MissingKey:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise KeyError("no such sample")


def test_a_workers_key_error_keeps_its_traceback_readable():
    # torch: str(KeyError) of a worker's failure is the message with its line breaks (its KeyErrorMessage);
    # before, it was the repr of the message, every line break an escaped '\n' on one line
    loader = DataLoader(_MissingKey(), batch_size=2, num_workers=1)
    with pytest.raises(KeyError) as info:
        next(iter(loader))
    text = str(info.value)
    assert text.startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")
    assert "\\n" not in text and "no such sample" in text


def _stop_inherited_pool(pool: WorkerPool) -> None:
    pool.shutdown()  # a forked child's copy of the parent's pool


def test_a_forked_childs_copy_of_a_worker_pool_leaves_the_parents_workers_alone():
    # A persistent loader that is garbage when another loader forks its workers is collected in them
    # too; stopping the pool there raised AssertionError('can only test a child process') (printed
    # as "Exception ignored in DataLoader.__del__") -- the pool belongs to the process that made it.
    pool = WorkerPool(lambda item: item, DATA, 1, 0, None, None, 0, 2)
    try:
        child = multiprocessing.get_context("fork").Process(target=_stop_inherited_pool, args=(pool,))
        child.start()
        child.join(30)
        assert child.exitcode == 0
        assert all(p.is_alive() for p in pool.workers) and not pool.closed
    finally:
        pool.shutdown()
    assert pool.closed and os.getpid() == pool.owner


class _Endless:
    """A training sampler that never ends (detectron2's kind): no ``__len__``, ``islice`` takes the steps."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        i = 0
        while True:
            yield i % self.n
            i += 1


@pytest.mark.parametrize("workers", [0, 2])
def test_a_sampler_without_an_end_is_drawn_as_the_batches_are_made(workers):
    # torch: DataLoader(ds, batch_size=4, sampler=Endless(10)) gives [0..3], [4..7], [8, 9, 0, 1], ...
    # for as long as it is iterated (before: the loader listed the whole epoch first and never
    # returned); its position cannot be saved mid-epoch (state_dict is a TypeError saying why)
    ds = TensorDataset(mg.arange(10))
    loader = DataLoader(ds, batch_size=4, sampler=_Endless(10), num_workers=workers)
    assert [b[0].tolist() for b in islice(loader, 4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1], [2, 3, 4, 5]]
    with pytest.raises(TypeError, match="sampler without a length"):
        loader.state_dict()
    batched = DataLoader(ds, batch_sampler=BatchSampler(_Endless(10), 3, False), num_workers=workers)
    assert [b[0].tolist() for b in islice(batched, 4)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 0, 1]]
    single = DataLoader(list(range(10)), batch_size=None, sampler=_Endless(10), num_workers=workers)
    assert list(islice(single, 12)) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]
    finite = DataLoader(ds, batch_size=2, sampler=iter([3, 1, 2]), num_workers=workers)
    assert [b[0].tolist() for b in finite] == [[3, 1], [2]] and finite.state_dict()["epoch"] is None


class _Three(mg.utils.data.IterableDataset):
    def __iter__(self):
        return iter(range(3))


@pytest.mark.parametrize("options", [{}, {"num_workers": 1}, {"num_workers": 1, "persistent_workers": True}])
def test_the_loaders_iterator_has_the_loaders_length(options):
    # torch: len(iter(DataLoader(range(10), batch_size=3))) == 4, before and after a next(); an
    # IterableDataset without __len__ makes it a TypeError (before: TypeError, the iterator was a
    # generator)
    loader = DataLoader(list(range(10)), batch_size=3, **options)
    it = iter(loader)
    assert len(it) == 4
    assert next(it).tolist() == [0, 1, 2] and len(it) == 4
    assert [b.tolist() for b in it] == [[3, 4, 5], [6, 7, 8], [9]]
    with pytest.raises(TypeError):
        len(iter(DataLoader(_Three())))


def test_pin_memory_without_a_gpu_warns_at_each_iter_as_pytorch(monkeypatch):
    # torch 2.13 without an accelerator: UserWarning "'pin_memory' argument is set as true but no accelerator
    # is found, then device pinned memory won't be used." from each iter(); before: silent
    import warnings

    from minigrad_ckpt.utils.data import dataloader

    monkeypatch.setattr(dataloader, "cuda_device_count", lambda: 0)
    loader = DataLoader(DATA, batch_size=2, pin_memory=True)
    for _ in range(2):
        with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
            batches = list(loader)
    assert len(batches) == len(loader)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(DataLoader(DATA, batch_size=2))                     # (pin_memory=False: nothing to say)


def _refusals():
    """Each refusal PyTorch's test_dataloader.py matches by its message, with torch 2.13's words."""
    from minigrad_ckpt.utils.data import DistributedSampler, RandomSampler, random_split

    ds = TensorDataset(mg.arange(10.0))
    seq = SequentialSampler(ds)
    batches = BatchSampler(seq, 3, False)
    return [
        (lambda: DataLoader(ds, num_workers=-1), ValueError, "num_workers option should be non-negative"),
        (lambda: DataLoader(ds, timeout=-1), ValueError, "timeout option should be non-negative"),
        (lambda: DataLoader(ds, timeout="1"), TypeError, "timeout"),
        (lambda: DataLoader(ds, batch_size=None, drop_last=True), ValueError,
         "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
        (lambda: DataLoader(ds, batch_size=11, sampler=seq, shuffle=True), ValueError,
         "sampler option is mutually exclusive with shuffle"),
        (lambda: DataLoader(ds, batch_sampler=batches, sampler=seq, shuffle=3), ValueError,
         "sampler option is mutually exclusive with shuffle"),
        (lambda: DataLoader(ds, batch_size=11, batch_sampler=batches), ValueError,
         "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
        (lambda: DataLoader(ds, drop_last=3, batch_sampler=batches), ValueError,
         "batch_sampler option is mutually exclusive with"),
        (lambda: DataLoader(ds, batch_size=0), ValueError,
         "batch_size should be a positive integer value, but got batch_size=0"),
        (lambda: DataLoader(ds, prefetch_factor=2), ValueError,
         "prefetch_factor option could only be specified in multiprocessing"),
        (lambda: DataLoader(ds, persistent_workers=True), ValueError,
         "persistent_workers option needs num_workers > 0"),
        (lambda: RandomSampler(ds, replacement=0), TypeError,
         "replacement should be a boolean value, but got replacement=0"),
        (lambda: RandomSampler(ds, num_samples=0), ValueError,
         "num_samples should be a positive integer value, but got num_samples=0"),
        (lambda: BatchSampler(seq, 0, False), ValueError,
         "batch_size should be a positive integer value, but got batch_size=0"),
        (lambda: DistributedSampler(ds, 3, 3), ValueError, r"Invalid rank 3, rank should be in the interval \[0, 2\]"),
        (lambda: DistributedSampler(ds, 3, -1), ValueError, "Invalid rank"),
        (lambda: random_split(range(4), [0.1]), ValueError,
         "Sum of input lengths does not equal the length of the input dataset!"),
        (lambda: random_split(range(4), [1.1]), ValueError, "Sum of input lengths does not equal"),
        (lambda: random_split(range(4), [1, 2]), ValueError, "Sum of input lengths does not equal"),
    ]


@pytest.mark.parametrize("case", range(len(_refusals())))
def test_refusals_carry_pytorchs_words(case):
    # PyTorch's test_dataloader.py (test_invalid_ctor_args_combinations, test_random_sampler,
    # test_distributed_sampler_invalid_rank, ...) matches these messages; the engine's own wording
    # ("num_workers must be an int >= 0", "rank 3 is not in [0, 3)") failed every such match
    make, kind, words = _refusals()[case]
    with pytest.raises(kind, match=words):
        make()
