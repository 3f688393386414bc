"""utils.data: what a batch holds (collation), worker processes, pickling, and the loader's state.

Worker tests start processes, so each runs under a deadline: a hang is a failure, not a stuck suite.
"""

from __future__ import annotations

import collections
import copy
import os
import pickle
import random
import signal
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from timeouts import deadline

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    TensorDataset,
    default_collate,
    get_worker_info,
)


# ------------------------------------------------------------------ collation
def _numbers_as_collated(batch):
    """What default_collate makes of Python numbers, as PyTorch's: the first sample decides -- a float
    gives float64 (collate_float_fn), an int or bool mg.tensor(batch) (collate_int_fn's torch.tensor)."""
    return mg.tensor(batch, dtype="float64" if isinstance(batch[0], float) else None)


def test_a_batch_of_numbers_collates_as_pytorch_by_its_first_sample():
    # torch: default_collate([1, 2.5]) == tensor([1.0, 2.5]) (float32: torch.tensor of the batch)
    assert default_collate([1, 2.5]).tolist() == [1.0, 2.5]
    assert default_collate([1, 2.5]).dtype == np.float32
    b = default_collate([True, 2])                                    # torch: tensor([1, 2]), int64
    assert b.dtype == np.int64 and b.tolist() == [1, 2]
    assert default_collate([True, False]).dtype == np.bool_
    for batch in ([1, 2], [2.5, 1], [False, 3, 1.5], [True, 0]):
        want = _numbers_as_collated(batch)
        got = default_collate(batch)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.booleans(), st.integers(-2**40, 2**40), st.floats(-1e6, 1e6)), min_size=1,
                max_size=8))
def test_collating_numbers_is_mg_tensor_of_the_batch(batch):
    want, got = _numbers_as_collated(batch), default_collate(batch)
    assert got.dtype == want.dtype and got.numpy().tobytes() == want.numpy().tobytes()


def test_arrays_and_tensors_stack_with_pytorchs_promotion():
    # torch: default_collate([np.int32 array, np.float32 array]).dtype -> float32 (NumPy's result_type: float64)
    a = default_collate([np.array([1, 2], dtype=np.int32), np.array([0.5, 1.0], dtype=np.float32)])
    assert a.dtype == np.float32 and a.tolist() == [[1, 2], [0.5, 1.0]]
    t = default_collate([mg.tensor([1]), mg.tensor([2.5], dtype="float64")])
    assert t.dtype == np.float64 and t.tolist() == [[1.0], [2.5]]
    s = default_collate([np.float32(1), np.float64(2)])
    assert s.dtype == np.float64 and s.shape == (2,)


def test_containers_recurse_and_keep_their_type():
    Point = collections.namedtuple("Point", "x label")
    out = default_collate([Point(np.ones(2), 1), Point(np.zeros(2), 2.5)])
    assert isinstance(out, Point) and out.x.shape == (2, 2) and out.label.tolist() == [1.0, 2.5]
    out = default_collate([{"a": [1, (2, "s")]}, {"a": [3, (4.5, "t")]}])
    # torch: {'a': [tensor([1, 3]), [tensor([2., 4.5]), ('s', 't')]]} -- the tuple field becomes a list
    assert isinstance(out["a"], list) and isinstance(out["a"][1], list)
    assert out["a"][0].tolist() == [1, 3] and out["a"][1][0].tolist() == [2.0, 4.5] and out["a"][1][1] == ("s", "t")


def test_a_ragged_batch_is_refused_naming_the_field_and_the_shapes():
    # torch raises RuntimeError for these (stack expects each tensor to be equal size)
    with pytest.raises(RuntimeError, match=r"batch\[i\]\[1\]\['x'\].*\(2,\).*\(3,\)"):
        default_collate([(0, {"x": np.ones(2)}), (1, {"x": np.ones(3)})])
    with pytest.raises(RuntimeError, match=r"batch\[i\].*\(2, 2\).*\(2, 3\)"):
        default_collate([mg.ones(2, 2), mg.ones(2, 3)])
    with pytest.raises(RuntimeError, match="different lengths"):
        default_collate([(1, 2), (3,)])
    # torch: default_collate([(1,), (torch.ones(()),)]) == [tensor([1., 1.])] (torch.tensor reads a 0-d
    # tensor as a number); a tensor of several elements among numbers makes no tensor (torch 2.13's
    # ValueError 'only one element tensors can be converted to Python scalars')
    got = default_collate([(1,), (mg.ones(()),)])
    assert got[0].dtype == np.float32 and got[0].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match=r"batch\[i\]\[0\] \(Tensor, int\) do not make one tensor"):
        default_collate([(1, 2), (mg.ones(2), 4)])


def test_random_sampler_refuses_an_empty_data_source():
    # torch: made with num_samples (it draws when iterated), refused without (num_samples=0)
    with pytest.raises(RuntimeError, match="empty"):
        list(RandomSampler([], num_samples=3))
    with pytest.raises(ValueError, match="empty"):
        DataLoader([], shuffle=True)
    assert len(RandomSampler([0], num_samples=3)) == 3 and len(list(RandomSampler([0], num_samples=3))) == 3


# ------------------------------------------------------------ pickle and copy
def test_tensors_pickle_as_fresh_leaves():
    for t in (mg.randn(3, 2), mg.arange(4), mg.ones((), dtype="float32"), mg.randn(2, 3).T):
        u = pickle.loads(pickle.dumps(t))
        assert u.dtype == t.dtype and u.shape == t.shape and u.numpy().tobytes() == t.numpy().tobytes()
    w = mg.randn(3, requires_grad=True)
    y = (w * 2).sum()
    y.backward()
    u = pickle.loads(pickle.dumps(w))
    assert u.requires_grad and u.is_leaf and u.grad is None
    assert pickle.loads(pickle.dumps(w * 2)).is_leaf  # an intermediate pickles as its values


def test_deepcopy_of_tensors_modules_state_dicts_and_optimizers():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.01)
    x = mg.randn(5, 3)

    def step(m, o):
        o.zero_grad()
        (m(x) ** 2).sum().backward()
        o.step()

    step(model, opt)
    model2, opt2 = copy.deepcopy((model, opt))   # together: the copy's optimizer holds the copy's parameters
    assert isinstance(model2[0].weight, nn.Parameter) and model2[0].weight is not model[0].weight
    assert opt2.param_groups[0]["params"][0] is model2[0].weight
    assert model2[0].weight.grad is None  # torch 2.13: Parameter.__deepcopy__ leaves .grad behind
    sd = copy.deepcopy(model.state_dict())
    step(model, opt)
    step(model2, opt2)
    for (k, a), b in zip(model.state_dict().items(), model2.state_dict().values()):
        assert a.numpy().tobytes() == b.numpy().tobytes(), k  # the copy trains exactly like the original
    assert any(sd[k].numpy().tobytes() != v.numpy().tobytes() for k, v in model.state_dict().items())
    copy.deepcopy(opt.state_dict())
    with pytest.raises(RuntimeError, match="leaf"):
        copy.deepcopy(model(x))


# ------------------------------------------------------------ worker processes
def _bytes(batches):
    """Every batch as bytes (tensors, arrays) and plain values, structure kept."""
    def enc(v):
        if isinstance(v, (tuple, list)):
            return tuple(enc(x) for x in v)
        if isinstance(v, (mg.Tensor, np.ndarray)):
            return (str(v.dtype), v.shape, np.asarray(v.numpy() if isinstance(v, mg.Tensor) else v).tobytes())
        return v
    return [enc(b) for b in batches]


class Squares(Dataset):
    """Samples made in Python (no fast path): (i, i*i as an array, a random draw)."""

    def __init__(self, n=23, noisy=False):
        self.n, self.noisy = n, noisy

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        noise = float(mg.rand(()).item()) if self.noisy else 0.0
        return i, np.array([i * i, noise])


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("make", [lambda: TensorDataset(mg.randn(23, 2), mg.arange(23)), lambda: Squares()])
def test_workers_give_bitwise_the_batches_of_the_main_process(workers, make):
    mg.manual_seed(0)
    ds = make()
    with deadline(60, "a DataLoader with workers"):
        mg.manual_seed(5)
        want = _bytes(DataLoader(ds, batch_size=4, shuffle=True))
        after = mg.get_rng_state()
        mg.manual_seed(5)
        got = _bytes(DataLoader(ds, batch_size=4, shuffle=True, num_workers=workers, prefetch_factor=1))
        assert got == want and mg.get_rng_state() == after  # the same draws in the main process too
        mg.manual_seed(5)
        loose = _bytes(DataLoader(ds, batch_size=None, num_workers=workers))
        assert loose == _bytes(DataLoader(ds, batch_size=None))


def test_random_draws_in_workers_do_not_depend_on_the_worker_count():
    with deadline(60, "a DataLoader with workers"):
        runs = []
        for workers in (1, 2, 4):
            mg.manual_seed(3)
            runs.append(_bytes(DataLoader(Squares(noisy=True), batch_size=3, num_workers=workers)))
        assert runs[0] == runs[1] == runs[2]
        mg.manual_seed(3)
        loader = DataLoader(Squares(noisy=True), batch_size=3, num_workers=2)
        assert _bytes(loader) != _bytes(loader)  # a new base seed every epoch


class Failing(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 7:
            raise KeyError(f"no sample {i}")
        return i


def test_a_workers_exception_is_raised_with_its_traceback():
    with deadline(60, "a DataLoader with a failing worker"):
        with pytest.raises(KeyError, match=r"(?s)in DataLoader worker process 1.*Traceback.*__getitem__.*no sample 7"):
            list(DataLoader(Failing(), batch_size=2, num_workers=2))

        def bad_init(worker_id):
            raise ValueError(f"init of {worker_id} failed")

        with pytest.raises(ValueError, match="init of . failed"):
            list(DataLoader(Failing(), batch_size=2, num_workers=2, worker_init_fn=bad_init))


class Suicidal(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == 6:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Sleepy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(30 if i == 2 else 0)
        return i


def test_a_killed_worker_is_an_error_and_timeout_bounds_the_wait():
    with deadline(60, "a DataLoader whose worker was killed"):
        with pytest.raises(RuntimeError, match=r"exited unexpectedly.*exit code -9"):
            list(DataLoader(Suicidal(), batch_size=2, num_workers=2))
        loader = DataLoader(Sleepy(), batch_size=1, num_workers=1, timeout=0.5)
        it = iter(loader)
        assert next(it).tolist() == [0] and next(it).tolist() == [1]
        with pytest.raises(RuntimeError, match="timed out after 0.5 seconds"):
            next(it)


class WhoAmI(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return np.array([info.id, info.num_workers, info.seed % 1000, random.random() < 2, os.getpid()])


def test_worker_info_init_fn_seeds_and_persistent_workers():
    assert get_worker_info() is None
    with deadline(60, "a DataLoader with persistent workers"):
        mg.manual_seed(0)
        seen = []
        loader = DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True,
                            worker_init_fn=lambda i: np.random.seed(i))
        first = [b.numpy() for b in loader]
        second = [b.numpy() for b in loader]
        for batches in (first, second):
            assert [int(b[0, 0]) for b in batches] == [0, 1, 0, 1]  # batch k from worker k % 2
            assert all(int(b[0, 1]) == 2 for b in batches)
            seen.append({int(b[0, 4]) for b in batches})
        assert seen[0] == seen[1] and len(seen[0]) == 2  # the same two processes both epochs
        assert first[0][0, 2] != first[1][0, 2]          # each worker has its own seed
        plain = DataLoader(WhoAmI(), batch_size=2, num_workers=2)
        pids = [{int(b[0, 4]) for b in plain} for _ in range(2)]
        assert pids[0].isdisjoint(pids[1])  # without persistent_workers, new workers each epoch


class Sharded(IterableDataset):
    """PyTorch's documented pattern: each worker takes its contiguous shard by get_worker_info()."""

    def __init__(self, n):
        self.start, self.end = 0, n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class Uneven(IterableDataset):
    """Worker 0 has 5 samples, worker w 1 + w: the workers run out at different times."""

    def __iter__(self):
        info = get_worker_info()
        wid = 0 if info is None else info.id
        return iter([wid * 100 + k for k in range(5 if wid == 0 else 1 + wid)])


class Unsharded(IterableDataset):
    def __iter__(self):
        return iter(range(3))


def _lists(loader):
    return [b.tolist() if isinstance(b, mg.Tensor) else b for b in loader]


def test_an_iterable_dataset_with_workers_gives_pytorchs_batches():
    with deadline(90, "a DataLoader over an IterableDataset with workers"):
        # torch 2.13, the same datasets and arguments: list(DataLoader(...)) as lists
        assert _lists(DataLoader(Sharded(10), batch_size=2, num_workers=2)) == [
            [0, 1], [5, 6], [2, 3], [7, 8], [4], [9]]
        assert _lists(DataLoader(Sharded(10), batch_size=3, num_workers=3)) == [
            [0, 1, 2], [4, 5, 6], [8, 9], [3], [7]]
        assert _lists(DataLoader(Sharded(10), batch_size=3, num_workers=2, drop_last=True)) == [
            [0, 1, 2], [5, 6, 7]]
        assert _lists(DataLoader(Sharded(5), batch_size=None, num_workers=2)) == [0, 3, 1, 4, 2]
        for prefetch in (1, 2):
            assert _lists(DataLoader(Uneven(), batch_size=2, num_workers=3, prefetch_factor=prefetch)) == [
                [0, 1], [100, 101], [200, 201], [2, 3], [202], [4]]
        # without sharding every worker yields the whole dataset (PyTorch's documented duplication)
        assert _lists(DataLoader(Unsharded(), batch_size=2, num_workers=2)) == [[0, 1], [0, 1], [2], [2]]


def test_an_iterable_dataset_with_persistent_workers_and_worker_init_fn():
    def shard(worker_id):  # PyTorch's docs' worker_init_fn: narrow the worker's copy of the dataset
        info = get_worker_info()
        ds = info.dataset
        per = -(-(ds.end - ds.start) // info.num_workers)
        ds.start, ds.end = ds.start + worker_id * per, min(ds.start + (worker_id + 1) * per, ds.end)

    class Plain(Sharded):
        def __iter__(self):
            return iter(range(self.start, self.end))

    with deadline(90, "an IterableDataset with persistent workers"):
        loader = DataLoader(Plain(6), batch_size=2, num_workers=2, persistent_workers=True, worker_init_fn=shard)
        # torch: [[0, 1], [3, 4], [2], [5]] for each of two epochs
        assert [_lists(loader) for _ in range(2)] == [[[0, 1], [3, 4], [2], [5]]] * 2
        it = iter(loader)
        assert next(it).tolist() == [0, 1]  # an epoch left early: the next one starts afresh
        assert _lists(loader) == [[0, 1], [3, 4], [2], [5]]


class InitialSeeds(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return np.array([get_worker_info().seed % 2**32, _SEEN_AT_INIT[0]])


_SEEN_AT_INIT = [-1]


def _seed_worker(worker_id):
    # PyTorch's reproducibility recipe: worker_seed = torch.initial_seed() % 2**32
    _SEEN_AT_INIT[0] = mg.initial_seed() % 2**32
    np.random.seed(_SEEN_AT_INIT[0])
    random.seed(_SEEN_AT_INIT[0])


def test_initial_seed_is_the_workers_seed_in_worker_init_fn():
    mg.manual_seed(123)
    assert mg.initial_seed() == 123  # torch: torch.manual_seed(123); torch.initial_seed() == 123
    with deadline(60, "a DataLoader whose worker_init_fn reads mg.initial_seed()"):
        rows = [b.numpy()[0] for b in DataLoader(InitialSeeds(), batch_size=2, num_workers=2,
                                                  worker_init_fn=_seed_worker)]
    assert [int(r[0]) for r in rows] == [int(r[1]) for r in rows]  # what worker_init_fn saw: the worker's seed
    assert rows[0][0] != rows[1][0]
    assert mg.initial_seed() == 123  # the main process's generator is left alone


def test_seed_reseeds_non_deterministically_and_returns_the_seed():
    # torch: torch.seed() takes no argument, reseeds from the OS and returns the new 64-bit seed
    first, second = mg.seed(), mg.seed()
    assert first != second and mg.initial_seed() == second and 0 <= second < 2**64
    again = mg.randn(3)
    mg.manual_seed(second)
    assert mg.randn(3).tolist() == again.tolist()


def test_a_loader_with_workers_resumes_mid_epoch_exactly():
    with deadline(90, "resuming a DataLoader with workers"):
        mg.manual_seed(11)
        loader = DataLoader(Squares(noisy=True), batch_size=3, shuffle=True, num_workers=2)
        whole = _bytes(loader)
        mg.manual_seed(11)
        loader = DataLoader(Squares(noisy=True), batch_size=3, shuffle=True, num_workers=2)
        it = iter(loader)
        head = _bytes([next(it) for _ in range(3)])
        state, rng = copy.deepcopy(loader.state_dict()), mg.get_rng_state()
        it.close()
        mg.manual_seed(999)
        other = DataLoader(Squares(noisy=True), batch_size=3, shuffle=True, num_workers=3)
        other.load_state_dict(state)
        mg.set_rng_state(rng)
        assert head + _bytes(other) == whole
        # and a main-process loader resumes the same epoch at the same place
        zero = DataLoader(Squares(), batch_size=3, shuffle=True)
        zero.load_state_dict(state)
        assert [b[0].tolist() for b in zero] == [b[0].tolist() for b in list(DataLoader(
            Squares(), batch_sampler=[[int(i) for i in state["epoch"]["order"][k:k + 3]]
                                      for k in range(9, 23, 3)]))]


# ------------------------------------------------------------ the loader's state
def test_a_loaders_state_is_scalars_and_one_flat_array_for_any_size():
    ds = TensorDataset(mg.arange(100_000))
    loader = DataLoader(ds, batch_size=1, shuffle=True)  # PyTorch's default batch size
    it = iter(loader)
    for _ in range(5):
        next(it)
    state = loader.state_dict()
    lists = []

    def walk(v):
        if isinstance(v, (list, tuple)):
            lists.append(len(v))
            assert all(not isinstance(x, (list, tuple, dict)) for x in v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(state)
    assert lists == [100_000] and state["epoch"]["position"] == 5


@pytest.mark.msgpack
@pytest.mark.parametrize("batch_size", [1, 4])
def test_a_registered_loader_snapshots_mid_epoch_at_100k_samples(tmp_path, batch_size):
    ds = TensorDataset(mg.arange(100_000))
    mg.manual_seed(0)
    loader = DataLoader(ds, batch_size=batch_size, shuffle=True)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    it = iter(loader)
    for _ in range(3):
        next(it)
    want = [next(it)[0].tolist() for _ in range(3)]
    path = mg.snapshot.Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")  # refused before
    # position is 6 in the snapshot; rewind the live loader to compare the next batches
    other = DataLoader(ds, batch_size=batch_size, shuffle=True)
    ex2 = mg.Executor()
    ex2.register_state("loader", other)
    mg.snapshot.Snapshot.load(path).restore_into(ex2)
    nxt = iter(other)
    assert next(nxt)[0].tolist() == next(it)[0].tolist()
    assert want  # the loader really was mid-epoch


@pytest.mark.msgpack
def test_a_loaders_own_generator_is_in_its_snapshot(tmp_path):
    ds = TensorDataset(mg.arange(12))

    def build():
        g = mg.random.Generator(42)
        loader = DataLoader(ds, batch_size=4, shuffle=True, generator=g)
        ex = mg.Executor()
        ex.register_state("loader", loader)
        return loader, ex

    loader, _ = build()
    epochs = [[b[0].tolist() for b in loader] for _ in range(3)]
    loader, ex = build()
    it = iter(loader)
    first = [next(it)[0].tolist()]
    path = mg.snapshot.Snapshot.from_executor(ex).save(tmp_path / "g.mgsnap")
    loader2, ex2 = build()   # a fresh generator: before, epoch 1 after the resume repeated epoch 0's order
    mg.snapshot.Snapshot.load(path).restore_into(ex2)
    resumed = first + [b[0].tolist() for b in loader2]
    assert resumed == epochs[0]
    assert [b[0].tolist() for b in loader2] == epochs[1]
    assert [b[0].tolist() for b in loader2] == epochs[2]


def test_more_workers_than_cpus_warns_once_per_start_as_pytorch():
    """PyTorch warns when a loader starts more workers than the CPUs the process may run on (they then
    take turns on the cores), at construction and when they start; the batches are still right.  A persistent
    pool warns when it starts only."""
    cpus = len(os.sched_getaffinity(0))
    data = TensorDataset(mg.arange(8.0))
    with deadline(120):
        with pytest.warns(UserWarning, match=f"create {cpus + 1} worker processes.*suggested max number of worker "
                                             f"in current system is {cpus}"):
            batches = [b[0].tolist() for b in DataLoader(data, batch_size=4, num_workers=cpus + 1)]
        assert batches == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
        # PyTorch's test_excessive_thread_creation_warning: the construction warns (before: only iter())
        with pytest.warns(UserWarning, match="excessive worker creation might get DataLoader running slow"):
            loader = DataLoader(data, batch_size=4, num_workers=cpus + 1, persistent_workers=True)
        with pytest.warns(UserWarning, match="worker processes in total"):
            list(loader)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert len(list(loader)) == 2  # the same workers: no new start, no warning
            assert len(list(DataLoader(data, batch_size=4, num_workers=1))) == 2
