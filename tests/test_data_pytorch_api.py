"""utils.data against PyTorch 2.13's meanings: what a ported input pipeline gets. The expected values
are torch 2.13's for the same calls (the torch expression quoted beside each); torch is not imported.
Random streams differ by design (the engine has its own generator), so samplers are checked by their
properties: lengths, which indices, reproducibility, frequencies."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import (
    ChainDataset,
    DataLoader,
    IterableDataset,
    StackDataset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
)

Pair = collections.namedtuple("Pair", "a b")


def test_python_floats_collate_to_float64_as_in_pytorch():
    # torch: default_collate([1.5, 2.5]).dtype == torch.float64; ints int64; bools bool
    assert default_collate([1.5, 2.5]).dtype == np.float64
    assert default_collate([2.5, 1]).dtype == np.float64
    assert default_collate([1, 2]).dtype == np.int64
    assert default_collate([True, False]).dtype == np.bool_
    # torch: default_collate([{"a": 1, "b": 2.0}, ...])["b"].dtype == torch.float64, and in a namedtuple
    assert default_collate([{"a": 1, "b": 2.0}, {"a": 3, "b": 4.0}])["b"].dtype == np.float64
    batch = default_collate([Pair(1, 2.0), Pair(3, 4.0)])
    assert isinstance(batch, Pair) and batch.b.dtype == np.float64 and batch.b.tolist() == [2.0, 4.0]
    # torch: next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))[1].dtype == torch.float64
    assert next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))[1].dtype == np.float64


class _Tagged(list):
    """A list subclass: default_collate keeps its type (PyTorch copies the first sample)."""


def test_containers_collate_with_pytorchs_types():
    # torch: default_collate([(1, 2.0), (3, 4.0)]) == [tensor([1, 3]), tensor([2., 4.], dtype=float64)] (a list)
    batch = default_collate([(1, 2.0), (3, 4.0)])
    assert type(batch) is list and batch[0].tolist() == [1, 3] and batch[1].dtype == np.float64
    # torch: a mix of tuple and list samples, and a list subclass
    assert type(default_collate([(1, 2), [3, 4]])) is list
    assert type(default_collate([_Tagged([1, 2]), _Tagged([3, 4])])) is _Tagged
    # torch: default_collate([range(2), range(2)]) == [tensor([0, 0]), tensor([1, 1])]
    assert [t.tolist() for t in default_collate([range(2), range(2)])] == [[0, 0], [1, 1]]
    # torch: strings in a tuple field stay the tuple zip made; at the top the batch's list
    batch = default_collate([("a", 1), ("b", 2)])
    assert batch[0] == ("a", "b") and batch[1].tolist() == [1, 2]
    assert default_collate(["a", "b"]) == ["a", "b"]
    # torch: nested -- [{'x': [tensor([1, 4]), [tensor([2, 5]), tensor([3, 6])]]}, ('s', 't')]
    nested = default_collate([({"x": (1, [2, 3])}, "s"), ({"x": (4, [5, 6])}, "t")])
    assert type(nested) is list and type(nested[0]["x"]) is list and nested[1] == ("s", "t")
    assert [t.tolist() for t in nested[0]["x"][1]] == [[2, 5], [3, 6]]
    # torch: an OrderedDict / defaultdict keeps its type (a copy of the first sample, updated)
    od = default_collate([collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)])
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
    dd = default_collate([collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)])
    assert type(dd) is collections.defaultdict and dd.default_factory is int
    # torch: the first sample's keys; a missing one is a KeyError, an extra one is left out
    assert list(default_collate([{"x": 1}, {"x": 2, "y": 3}])) == ["x"]
    with pytest.raises(KeyError, match="'x'"):
        default_collate([{"x": 1}, {"y": 2}])


def test_numpy_samples_collate_as_pytorch():
    # torch: default_collate([np.float32(1), np.float32(2)]).dtype == torch.float32; np.bool_ -> bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == np.float32
    assert default_collate([np.bool_(True), np.bool_(False)]).tolist() == [True, False]
    # torch: default_collate([1, np.int64(2)]) == tensor([1, 2]); [np.ones(2), torch.ones(2)] float64
    assert default_collate([1, np.int64(2)]).tolist() == [1, 2]
    mixed = default_collate([np.ones(2), mg.ones(2, dtype=mg.float64)])
    assert mixed.dtype == np.float64 and mixed.shape == (2, 2)
    # torch: arrays of strings have no tensor -- TypeError; np.str_ samples stay a list
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([np.array(["a"]), np.array(["b"])])
    assert default_collate([np.str_("a"), np.str_("b")]) == ["a", "b"]


def test_bytes_collate_to_a_list_as_strings_do():
    # torch: default_collate([b"a", b"b"]) == [b'a', b'b']
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_batch_size_none_converts_numpy_samples_to_tensors():
    # torch: [b for b in DataLoader([np.ones(2), np.zeros(2)], batch_size=None)] are float64 tensors
    out = list(DataLoader([np.ones(2), np.zeros(2)], batch_size=None))
    assert all(isinstance(b, mg.Tensor) and b.dtype == np.float64 for b in out)
    assert [b.tolist() for b in out] == [[1.0, 1.0], [0.0, 0.0]]
    # torch: Python numbers stay numbers; a tuple sample becomes a list; a dict keeps its keys
    assert list(DataLoader([1.5, 2.5], batch_size=None)) == [1.5, 2.5]
    (sample,) = DataLoader([(np.float32(1.0), "s", {"k": np.arange(2)})], batch_size=None)
    assert isinstance(sample, list) and isinstance(sample[0], mg.Tensor) and sample[0].dtype == np.float32
    assert sample[1] == "s" and sample[2]["k"].tolist() == [0, 1]
    arr = np.arange(3.0)
    assert np.shares_memory(default_convert(arr).numpy(), arr)  # as torch.as_tensor
    assert default_convert(np.array(["a"])).tolist() == ["a"]  # strings have no tensor: left as they are


def test_loader_takes_pytorchs_arguments_in_pytorchs_positions():
    # torch: DataLoader(ds, shuffle=None) is unshuffled; pin_memory=True is accepted on the CPU;
    # DataLoader(ds, 2, None, None, None, 0, None, False, True) is batch_size=2 with drop_last=True
    assert [b.tolist() for b in DataLoader(range(4), shuffle=None, batch_size=2)] == [[0, 1], [2, 3]]
    assert len(DataLoader(range(10), batch_size=2, pin_memory=True, pin_memory_device="", in_order=True)) == 5
    loader = DataLoader(range(5), 2, None, None, None, 0, None, False, True)
    assert loader.drop_last and len(loader) == 2


def test_subset_random_sampler():
    # torch: sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9], len 3; a fresh order per iter()
    g = mg.random.Generator(3)
    sampler = SubsetRandomSampler([5, 7, 9, 11, 13, 15], generator=g)
    orders = [list(sampler) for _ in range(4)]
    assert all(sorted(o) == [5, 7, 9, 11, 13, 15] for o in orders) and len(sampler) == 6
    assert len({tuple(o) for o in orders}) > 1
    again = SubsetRandomSampler([5, 7, 9, 11, 13, 15], generator=mg.random.Generator(3))
    assert [list(again) for _ in range(4)] == orders  # the same seed, the same orders


def test_weighted_random_sampler_frequencies_and_zero_weights():
    mg.manual_seed(0)
    draws = np.array(list(WeightedRandomSampler([1.0, 3.0, 0.0], 20000)))
    assert len(draws) == 20000 and len(WeightedRandomSampler([1.0], 7)) == 7
    freq = np.bincount(draws, minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.25, 0.75, 0.0], atol=0.015)  # a zero weight is never drawn
    # torch: sorted(WeightedRandomSampler([1., 1., 1.], 3, replacement=False)) == [0, 1, 2]
    assert sorted(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)) == [0, 1, 2]
    assert set(WeightedRandomSampler(mg.tensor([0.0, 2.0, 0.0, 1.0]), 2, replacement=False)) == {1, 3}
    # torch: without replacement a zero weight follows the spent positive ones; only n > len(weights) fails
    assert list(WeightedRandomSampler([1.0, 0.0], 2, replacement=False)) == [0, 1]
    with pytest.raises(RuntimeError, match="without replacement"):
        list(WeightedRandomSampler([1.0, 0.0], 3, replacement=False))
    with pytest.raises(ValueError, match="num_samples"):
        WeightedRandomSampler([1.0], 0)


def test_weighted_sampler_resumes_mid_epoch_in_a_loader():
    def loader() -> DataLoader:
        ds = TensorDataset(mg.arange(12))
        return DataLoader(ds, batch_size=4, sampler=WeightedRandomSampler(np.ones(12), 12,
                                                                          generator=mg.random.Generator(1)))
    first = loader()
    it = iter(first)
    next(it)
    state = first.state_dict()
    rest = [b.tolist() for (b,) in it]
    resumed = loader()
    resumed.load_state_dict(state)
    assert [b.tolist() for (b,) in resumed] == rest


class Counting(IterableDataset):
    """``0.0, 1.0, ..., n - 1`` from an iterator, as a streaming dataset yields samples."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        return iter([float(i) for i in range(self.n)])


class CountingWithLength(Counting):
    def __len__(self) -> int:
        return self.n


def test_iterable_dataset_in_a_loader():
    # torch: [b.tolist() for b in DataLoader(Counting(5), batch_size=2)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    loader = DataLoader(Counting(5), batch_size=2)
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0], [4.0]]  # a fresh iterator each epoch
    assert next(iter(loader)).dtype == np.float64
    assert [b.tolist() for b in DataLoader(Counting(5), batch_size=2, drop_last=True)] == [[0.0, 1.0], [2.0, 3.0]]
    assert list(DataLoader(Counting(3), batch_size=None)) == [0.0, 1.0, 2.0]
    # torch: len() is the dataset's in batches: 3, 2 with drop_last, 5 unbatched; a TypeError without __len__
    assert len(DataLoader(CountingWithLength(5), batch_size=2)) == 3
    assert len(DataLoader(CountingWithLength(5), batch_size=2, drop_last=True)) == 2
    assert len(DataLoader(CountingWithLength(5), batch_size=None)) == 5
    with pytest.raises(TypeError):
        len(DataLoader(Counting(5), batch_size=2))


def test_iterable_dataset_refusals():
    # torch: ValueError('DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True')
    with pytest.raises(ValueError, match="expected unspecified shuffle"):
        DataLoader(Counting(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler"):
        DataLoader(Counting(3), sampler=[0])
    assert len(list(DataLoader(Counting(3), shuffle=False))) == 3
    with pytest.raises(TypeError, match="cannot be saved"):
        DataLoader(Counting(3)).state_dict()


def test_chain_and_stack_datasets():
    # torch: list(Counting(2) + Counting(3)) == [0.0, 1.0, 0.0, 1.0, 2.0]
    chained = Counting(2) + Counting(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0.0, 1.0, 0.0, 1.0, 2.0]
    assert len(ChainDataset([CountingWithLength(2), CountingWithLength(3)])) == 5
    # torch: StackDataset([1, 2], [3, 4])[1] == (2, 4); StackDataset(a=[1, 2], b=[3, 4])[1] == {'a': 2, 'b': 4}
    assert StackDataset([1, 2], [3, 4])[1] == (2, 4) and len(StackDataset([1, 2], [3, 4])) == 2
    assert StackDataset(a=[1, 2], b=[3, 4])[1] == {"a": 2, "b": 4}
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset([1, 2], [3])
    batch = next(iter(DataLoader(StackDataset(x=np.ones((4, 2)), y=[0, 1, 2, 3]), batch_size=4)))
    assert batch["x"].shape == (4, 2) and batch["y"].tolist() == [0, 1, 2, 3]


def test_iterators_of_one_loader_are_independent_as_in_pytorch():
    # torch: L = DataLoader(range(6), batch_size=2); [(a.tolist(), b.tolist()) for a, b in zip(L, L)]
    #        == [([0, 1], [0, 1]), ([2, 3], [2, 3]), ([4, 5], [4, 5])]; a nested loop sees 3 x 3 pairs
    loader = DataLoader(list(range(6)), batch_size=2)
    assert [(a.tolist(), b.tolist()) for a, b in zip(loader, loader)] == [([0, 1], [0, 1]), ([2, 3], [2, 3]),
                                                                          ([4, 5], [4, 5])]
    assert sum(1 for _ in loader for _ in loader) == 9
    # a second iter() mid-epoch leaves the first going on with its own epoch
    first = iter(loader)
    next(first)
    assert len(list(iter(loader))) == 3 and [b.tolist() for b in first] == [[2, 3], [4, 5]]


def test_persistent_workers_restart_the_loaders_one_iterator_as_in_pytorch():
    # torch: L = DataLoader(range(10), batch_size=2, num_workers=2, persistent_workers=True)
    #        a = iter(L); next(a) -> [0, 1]; b = iter(L) (b is a, restarted); next(b) -> [0, 1];
    #        next(a) -> [2, 3]; next(b) -> [4, 5]; len(list(a)) == 2
    # (before, the first epoch waited for batches the second had dropped: a hang)
    from timeouts import deadline

    with deadline(90, "two iterators over persistent workers"):
        loader = DataLoader(list(range(10)), batch_size=2, num_workers=2, persistent_workers=True, timeout=60)
        a = iter(loader)
        assert next(a).tolist() == [0, 1]
        b = iter(loader)
        assert b is a
        assert [next(b).tolist(), next(a).tolist(), next(b).tolist()] == [[0, 1], [2, 3], [4, 5]]
        assert len(list(a)) == 2 and [x.tolist() for x in loader] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


class Scaled(TensorDataset):
    """An augmentation written the PyTorch way: a TensorDataset subclass with its own __getitem__."""

    def __getitem__(self, i):
        x, y = super().__getitem__(i)
        return x * 10, y


class Batched(mg.utils.data.Dataset):
    def __getitem__(self, i):
        return i

    def __len__(self):
        return 4

    def __getitems__(self, indices):
        return [100 + i for i in indices]


def test_a_loader_fetches_through_the_datasets_own_getitem_and_getitems():
    # torch: [x.tolist() for x, _ in DataLoader(Scaled(arange(4.), arange(4)), batch_size=2)]
    #        == [[0., 10.], [20., 30.]]   (before: [[0., 1.], [2., 3.]], the override skipped)
    data = Scaled(mg.arange(4.0), mg.arange(4))
    assert [x.tolist() for x, _ in DataLoader(data, batch_size=2)] == [[0.0, 10.0], [20.0, 30.0]]
    # torch: a Subset of it, and random_split's, fetch through the override too
    assert [x.tolist() for x, _ in DataLoader(mg.utils.data.Subset(data, [3, 1]), batch_size=2)] == [[30.0, 10.0]]
    # torch: a dataset's __getitems__ makes the batch: [b.tolist() for b in DataLoader(Batched(), batch_size=2)]
    #        == [[100, 101], [102, 103]]; Subset and StackDataset pass it on; batch_size=None uses __getitem__
    assert [b.tolist() for b in DataLoader(Batched(), batch_size=2)] == [[100, 101], [102, 103]]
    assert list(DataLoader(Batched(), batch_size=None)) == [0, 1, 2, 3]
    assert mg.utils.data.Subset(Batched(), [1, 2]).__getitems__([0, 1]) == [101, 102]
    assert StackDataset(Batched(), [5, 6, 7, 8]).__getitems__([0, 3]) == [(100, 5), (103, 8)]
    assert StackDataset(a=Batched(), b=[5, 6, 7, 8]).__getitems__([1]) == [{"a": 101, "b": 6}]
    # torch: Subset(ds, [3, 1])[[0, 1]] is ds[[3, 1]] (one lookup)
    assert mg.utils.data.Subset(mg.arange(5) * 2, [3, 1])[[0, 1]].tolist() == [6, 2]


class TimesTen(mg.utils.data.Dataset):
    """A dataset that fetches a whole batch in one __getitem__ (a list of indices)."""

    def __getitem__(self, idx):
        return np.asarray(idx) * 10

    def __len__(self):
        return 5


def test_samplers_may_yield_keys_that_are_not_integer_indices():
    # torch: DataLoader(TimesTen(), sampler=BatchSampler(SequentialSampler(range(5)), 2, False), batch_size=None)
    #        gives [0, 10], [20, 30], [40] (before: TypeError, int() of a list)
    from minigrad_ckpt.utils.data import BatchSampler, SequentialSampler

    lists = BatchSampler(SequentialSampler(range(5)), 2, False)
    assert [b.tolist() for b in DataLoader(TimesTen(), sampler=lists, batch_size=None)] == [[0, 10], [20, 30], [40]]
    # torch: a dict dataset with its keys as the sampler: [b.tolist() for b in DataLoader(d, sampler=['a', 'b'],
    #        batch_size=2)] == [[1, 2]]; batch_sampler=[['a', 'b']] the same; a float index is a TypeError
    d = {"a": 1, "b": 2, "c": 3}
    assert [b.tolist() for b in DataLoader(d, sampler=["a", "b"], batch_size=2)] == [[1, 2]]
    assert list(DataLoader(d, sampler=["c", "a"], batch_size=None)) == [3, 1]
    assert [b.tolist() for b in DataLoader(d, batch_sampler=[["a", "b"]])] == [[1, 2]]
    with pytest.raises(TypeError):
        list(DataLoader([0, 1], sampler=[1.0]))
    # the position in such an epoch is state too: resumed mid-epoch with the batches still to come
    loader = DataLoader(d, sampler=["c", "a", "b"], batch_size=1)
    it = iter(loader)
    assert next(it).tolist() == [3]
    other = DataLoader(d, sampler=["c", "a", "b"], batch_size=1)
    other.load_state_dict(loader.state_dict())
    assert [b.tolist() for b in other] == [[1], [2]]


def test_small_pytorch_meanings_of_splits_samplers_and_concatenation():
    from minigrad_ckpt.utils.data import ConcatDataset, DistributedSampler, random_split

    # torch: random_split(range(10), torch.tensor([3, 7])) gives subsets of 3 and 7 (before: ValueError)
    parts = random_split(list(range(10)), mg.tensor([3, 7]), generator=mg.random.Generator(0))
    assert [len(p) for p in parts] == [3, 7] and sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    # torch: DistributedSampler(range(10), num_replicas=3, rank=1).total_size == 12 (before: AttributeError)
    assert DistributedSampler(list(range(10)), num_replicas=3, rank=1).total_size == 12
    assert DistributedSampler(list(range(10)), num_replicas=3, rank=1, drop_last=True).total_size == 9
    # torch: AssertionError('ConcatDataset does not support IterableDataset') (before: accepted, then failed)
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Counting(2)])
    # torch: shuffle is tested for truth: DataLoader(range(10), shuffle=1) shuffles (before: TypeError)
    assert sorted(int(b) for b in DataLoader(list(range(10)), shuffle=1)) == list(range(10))
    assert [int(b) for b in DataLoader(list(range(3)), shuffle=np.False_)] == [0, 1, 2]


def test_datasets_without_a_length_are_unsized_as_in_pytorch():
    import collections.abc

    # torch: len(Dataset()) and len(an IterableDataset without __len__) are Python's TypeError, and
    #        neither is Sized (before: NotImplementedError, and both Sized)
    with pytest.raises(TypeError):
        len(mg.utils.data.Dataset())
    with pytest.raises(TypeError):
        len(Counting(3))
    assert not isinstance(Counting(3), collections.abc.Sized)
    assert not isinstance(mg.utils.data.Dataset(), collections.abc.Sized)
    # torch: repr(DataLoader(Counting(3))) works (before: the TypeError of len())
    assert "Counting" in repr(DataLoader(Counting(3)))


def test_weighted_sampler_keeps_its_weights_as_a_float64_tensor():
    # torch: WeightedRandomSampler([0., 1., 3.], 5).weights is a torch.float64 Tensor (before: a NumPy array)
    sampler = WeightedRandomSampler([0.0, 1.0, 3.0], 5, generator=mg.random.Generator(0))
    assert isinstance(sampler.weights, mg.Tensor) and sampler.weights.dtype == np.float64
    assert sampler.weights.tolist() == [0.0, 1.0, 3.0] and set(sampler) <= {1, 2}


def test_numpy_scalars_and_mixed_numbers_collate_as_pytorchs_as_tensor():
    # torch: default_collate([np.float32(1), 2]) -> float32 [1., 2.]; [np.float32(1), np.int64(2)] -> float32;
    #        [np.float16(1), np.int32(2)] -> float16; [1.0, torch.tensor(2.)] -> float64 [1., 2.]
    #        (before: TypeError 'mix float32 and int' / 'mix float and Tensor')
    for batch, dtype in (([np.float32(1), 2], np.float32), ([np.float32(1), np.int64(2)], np.float32),
                         ([np.float16(1), np.int32(2)], np.float16), ([1.0, mg.tensor(2.0)], np.float64),
                         ([np.int32(1), np.int32(2)], np.int32), ([np.bool_(True), np.bool_(False)], np.bool_)):
        got = default_collate(batch)
        assert got.dtype == dtype and got.tolist() == [float(b) if dtype != np.bool_ else bool(b) for b in batch]
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([1, "a"])
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([None, None])


class _Typed(mg.utils.data.Dataset[tuple[mg.Tensor, int]]):
    """PyTorch's typed form: a dataset class subclassing Dataset[T] (before: 'type Dataset is not subscriptable')."""

    def __getitem__(self, i):
        return mg.ones(1) * i, i

    def __len__(self):
        return 3


def test_datasets_samplers_and_loaders_are_generic_classes_as_in_pytorch():
    from minigrad_ckpt.utils.data import Sampler

    class Backwards(Sampler[int]):
        def __iter__(self):
            return iter([2, 1, 0])

        def __len__(self):
            return 3

    loader: DataLoader[tuple[mg.Tensor, int]] = DataLoader(_Typed(), batch_size=2, sampler=Backwards())
    assert [ys.tolist() for _, ys in loader] == [[2, 1], [0]]
    assert mg.utils.data.Dataset[int].__origin__ is mg.utils.data.Dataset and IterableDataset[int] is not None
