"""minigrad_ckpt.utils.data: datasets, samplers, DataLoader, and resuming mid-epoch."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


def order(loader):
    return [b[1].tolist() for b in loader]


def dataset(n=10):
    return TensorDataset(mg.tensor(np.arange(3 * n, dtype=np.float64).reshape(n, 3)), mg.arange(n))


def test_sequential_batches_and_drop_last():
    ds = dataset()
    assert order(DataLoader(ds, batch_size=4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert order(DataLoader(ds, batch_size=4, drop_last=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(ds, batch_size=4)) == 3 and len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    x, y = next(iter(DataLoader(ds, batch_size=2)))
    np.testing.assert_array_equal(x.numpy(), [[0, 1, 2], [3, 4, 5]])
    assert y.dtype == np.int64


def test_shuffle_draws_from_the_engine_generator():
    ds = dataset(20)
    mg.manual_seed(3)
    a = order(DataLoader(ds, batch_size=5, shuffle=True))
    mg.manual_seed(3)
    loader = DataLoader(ds, batch_size=5, shuffle=True)
    b, c = order(loader), order(loader)
    assert a == b                      # manual_seed fixes the order
    assert b != c                      # each epoch is a new permutation
    for epoch in (a, c):
        assert sorted(sum(epoch, [])) == list(range(20))
    assert sum(a, []) != list(range(20))
    gen = mg.random.Generator(7)
    d = order(DataLoader(ds, batch_size=5, shuffle=True, generator=gen))
    gen2 = mg.random.Generator(7)
    state = mg.get_rng_state()
    assert order(DataLoader(ds, batch_size=5, shuffle=True, generator=gen2)) == d
    assert mg.get_rng_state() == state  # an own generator leaves the engine's alone


def test_fast_tensor_path_equals_collating_single_samples():
    mg.manual_seed(0)
    ds = TensorDataset(mg.randn(9, 2, 3), mg.randint(0, 5, (9,)))
    sub = Subset(ds, [8, 1, 3, 5, 0])
    for d in (ds, sub):
        fast = list(DataLoader(d, batch_size=2))
        slow = list(DataLoader(d, batch_size=2, collate_fn=default_collate))
        for (a, b), (c, e), fast_batch in zip(fast, slow, fast):
            assert type(fast_batch) is list  # torch: a TensorDataset's batch is a list, as default_collate's
            np.testing.assert_array_equal(a.numpy(), c.numpy())
            np.testing.assert_array_equal(b.numpy(), e.numpy())
            assert a.dtype == c.dtype and b.dtype == e.dtype


def test_default_collate_structures():
    b = default_collate([(1.0, 2, {"a": np.ones(2)}, "s"), (3.0, 4, {"a": np.zeros(2)}, "t")])
    assert b[0].dtype == np.float64 and b[0].tolist() == [1.0, 3.0]  # Python floats: float64, as PyTorch
    assert b[1].dtype == np.int64 and b[1].tolist() == [2, 4]
    # torch: a batch of tuples collates to a list; the strings field stays the tuple zip made ('s', 't')
    assert isinstance(b, list) and b[2]["a"].shape == (2, 2) and b[3] == ("s", "t")
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([object()])
    with pytest.raises(RuntimeError, match="different lengths"):
        default_collate([(1, 2), (3,)])


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        if not 0 <= i < 7:
            raise IndexError(i)
        return np.array([i * i], dtype=np.float32), i


def test_map_style_dataset_samplers_and_batch_sampler():
    ds = Squares()
    xs = [x.numpy().ravel().tolist() for x, _ in DataLoader(ds, batch_size=3)]
    assert xs == [[0, 1, 4], [9, 16, 25], [36]]
    assert next(iter(DataLoader(ds)))[0].dtype == np.float32
    bs = BatchSampler(SequentialSampler(ds), 2, drop_last=False)
    assert list(bs) == [[0, 1], [2, 3], [4, 5], [6]] and len(bs) == 4
    assert [y.tolist() for _, y in DataLoader(ds, batch_sampler=[[6, 0], [3]])] == [[6, 0], [3]]
    single = list(DataLoader(ds, batch_size=None))
    assert single[2][1] == 2  # batch_size=None: samples as they are
    mg.manual_seed(1)
    rs = RandomSampler(ds, replacement=True, num_samples=20)
    draws = list(rs)
    assert len(draws) == 20 and all(0 <= i < 7 for i in draws) and len(set(draws)) < 20
    assert sorted(RandomSampler(ds, num_samples=14)) == sorted(list(range(7)) * 2)
    assert len(ConcatDataset([ds, ds])) == 14 and (ds + ds)[8][1] == 1


def test_random_split():
    ds = dataset(10)
    mg.manual_seed(5)
    a, b = random_split(ds, [7, 3])
    mg.manual_seed(5)
    a2, _ = random_split(ds, [7, 3])
    assert a.indices == a2.indices and len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    parts = random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    assert [len(p) for p in random_split(range(11), [0.5, 0.5])] == [6, 5]
    with pytest.raises(ValueError, match="sum to 9"):
        random_split(ds, [5, 4])


def test_bad_arguments_are_clear_errors():
    ds = dataset()
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(ds, batch_size=2, batch_sampler=[[0]])
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(AssertionError, match="first axes differ"):  # torch's AssertionError
        TensorDataset(mg.ones(3), mg.ones(4))
    with pytest.raises(IndexError, match="out of range"):
        Subset(ds, [10])
    with pytest.raises(TypeError, match="has no len"):  # Python's, as torch's base Sampler has no __len__
        len(Sampler())


def test_state_dict_resumes_the_epoch_exactly():
    ds = dataset(11)
    mg.manual_seed(2)
    loader = DataLoader(ds, batch_size=3, shuffle=True)
    it = iter(loader)
    first = [next(it)[1].tolist() for _ in range(2)]
    state = loader.state_dict()
    rest = [b[1].tolist() for b in it]
    epoch = state["epoch"]
    assert epoch["position"] == 2 and epoch["layout"] == "fixed" and sorted(epoch["order"]) == list(range(11))
    other = DataLoader(ds, batch_size=3, shuffle=True)
    other.load_state_dict(state)
    assert order(other) == rest
    assert sorted(sum(first + rest, [])) == list(range(11))
    # the epoch after the resumed one starts afresh; a plain iter() always does
    assert len(order(other)) == 4 and loader.state_dict()["epoch"] is None
    bad = dict(epoch, order=[0, 99])
    with pytest.raises(ValueError, match="out of range"):
        other.load_state_dict(dict(state, epoch=bad))
    with pytest.raises(ValueError, match="position"):
        other.load_state_dict(dict(state, epoch=dict(epoch, position=-1)))
    with pytest.raises(ValueError, match="position"):
        other.load_state_dict(dict(state, epoch=dict(epoch, position=5)))
    # a state written before the flat layout (a list of batches) still loads
    other.load_state_dict({"batches": [[3, 4], [5]], "position": 1})
    assert order(other) == [[5]]


TRAIN_STEPS = 13  # 2 epochs of 6 batches (drop_last) and one batch into the third


def _build(seed):
    mg.manual_seed(seed)
    x = mg.tensor(np.random.default_rng(0).standard_normal((26, 4)))
    y = mg.tensor(np.random.default_rng(1).integers(0, 3, 26))
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, drop_last=True)
    model = nn.Sequential(nn.Linear(4, 8, dtype="float64"), nn.Dropout(0.2), nn.Linear(8, 3, dtype="float64"))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ex = mg.Executor(model, opt)
    ex.register_state("loader", loader)
    return model, loader, ex


def _train(model, loader, ex, until, snap_at=None):
    snaps = []
    while ex.iteration < until:
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            ex.optimizer.zero_grad()
            loss.backward()
            ex.optimizer.step()
            ex.step()
            if ex.iteration == snap_at:
                snaps.append(mg.snapshot.Snapshot.from_executor(ex))
            if ex.iteration >= until:
                return snaps
    return snaps


@pytest.mark.msgpack
def test_snapshot_resumes_a_shuffled_loader_mid_epoch_bitwise(tmp_path):
    model, loader, ex = _build(0)
    _train(model, loader, ex, TRAIN_STEPS)
    want = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    model, loader, ex = _build(0)
    (snap,) = _train(model, loader, ex, 8, snap_at=8)  # mid-epoch 2
    path = snap.save(tmp_path / "s.mgsnap")
    model2, loader2, ex2 = _build(99)
    mg.snapshot.Snapshot.load(path).restore_into(ex2)
    assert loader2.state_dict() == loader.state_dict()
    _train(model2, loader2, ex2, TRAIN_STEPS)
    for k, v in model2.state_dict().items():
        assert v.numpy().tobytes() == want[k].tobytes(), k


@pytest.mark.msgpack
def test_restore_refuses_a_snapshot_without_the_registered_state(tmp_path):
    model, loader, ex = _build(0)
    plain = mg.Executor(model, ex.optimizer)
    path = mg.snapshot.Snapshot.from_executor(plain).save(tmp_path / "p.mgsnap")
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    model.load_state_dict({k: v * 0 for k, v in before.items()})
    with pytest.raises(mg.snapshot.SnapshotError, match="'loader'"):
        mg.snapshot.Snapshot.load(path).restore_into(ex)
    assert all(not v.numpy().any() for v in model.state_dict().values())  # nothing changed
    with pytest.raises(TypeError, match="state_dict"):
        ex.register_state("x", object())


def test_loader_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401
    ds = TensorDataset(mg.randn(6, 2, device="strict"), mg.arange(6, device="strict"))
    batches = list(DataLoader(ds, batch_size=4, shuffle=True))
    assert [b[0].shape for b in batches] == [(4, 2), (2, 2)]
    assert all(str(t.device) == "strict:0" for b in batches for t in b)
    stacked = list(DataLoader(ds, batch_size=4, collate_fn=default_collate))
    assert str(stacked[0][0].device) == "strict:0"
