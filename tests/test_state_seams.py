"""Training state across resume, ranks and checkpointing: what a resumed run continues with.

Each test resumes (or replays) a piece of training state and compares with the run that
was never interrupted, bit for bit.  Several-rank cases run ``tests/state_seams_worker.py``
under ``mpiexec -n 2``, each launch under a timeout.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WORKER = Path(__file__).with_name("state_seams_worker.py")


def _launch(*args: str, n: int = 2, timeout: float = 120):
    from test_distributed import mpiexec, run

    return run([mpiexec(), "-launcher", "fork", "-n", str(n), sys.executable, str(WORKER), *args], timeout)


def _results(proc, n: int = 2) -> dict[int, dict]:
    from test_distributed import results

    return results(proc, n)


@pytest.mark.msgpack
def test_each_rank_resumes_its_own_batchnorm_statistics_and_user_tensors(tmp_path):
    """With ``broadcast_buffers=False`` a rank's running statistics are its own state, and so is a
    user tensor it sums its own inputs into: a snapshot keeps each rank's (in its rank file), so a
    resumed rank continues with its own, not rank 0's."""
    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    whole = _results(_launch("own_state", str(tmp_path / "whole"), "fresh"))
    assert whole[0]["digest"] != whole[1]["digest"]  # the ranks' statistics did differ
    assert whole[0]["seen"] != whole[1]["seen"]
    shutil.copytree(tmp_path / "whole", tmp_path / "resumed")
    resumed = _results(_launch("own_state", str(tmp_path / "resumed"), "resume"))
    assert [resumed[r]["start"] for r in (0, 1)] == [3, 3]
    assert [resumed[r]["digest"] for r in (0, 1)] == [whole[r]["digest"] for r in (0, 1)]
    assert [resumed[r]["seen"] for r in (0, 1)] == [whole[r]["seen"] for r in (0, 1)]


# ---------------------------------------------------------------- elastic resume of a DataLoader
def _mid_epoch_states(dataset, world: int, batch_size: int, taken: int, drop_last: bool) -> list[dict]:
    """Each of ``world`` ranks' loader state after ``taken`` batches of epoch 0."""
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler

    states = []
    for r in range(world):
        sampler = DistributedSampler(dataset, num_replicas=world, rank=r, seed=1)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=drop_last)
        it = iter(loader)
        for _ in range(taken):
            next(it)
        states.append(loader.state_dict())
    return states


@pytest.mark.parametrize("n, batch_size, new_world", [(22, 2, 3), (23, 3, 3), (22, 4, 3), (40, 3, 4), (22, 2, 1)])
def test_an_elastic_resume_with_drop_last_hands_out_whole_batches_only(n, batch_size, new_world):
    """``drop_last=True`` promises no short batch -- a BatchNorm in training refuses a batch of
    one sample.  Resumed at another world size, each new rank trains on whole batches only, and
    across them every sample the interrupted epoch had left is seen exactly once."""
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset

    dataset = TensorDataset(mg.arange(n), mg.randn(n, 3))
    states = _mid_epoch_states(dataset, 2, batch_size, 1, drop_last=True)
    left = sorted(i for s in states for i in s["epoch"]["order"][batch_size:])
    seen = []
    for r in range(new_world):
        sampler = DistributedSampler(dataset, num_replicas=new_world, rank=r, seed=1)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True)
        loader.load_state_dict(loader.reshard_state_dict(states, r, new_world))
        norm = nn.BatchNorm1d(3)
        for ids, x in loader:
            assert len(ids) == batch_size
            norm(x)
            seen.extend(ids.tolist())
    assert sorted(seen) == left


def test_an_elastic_resume_deals_a_batch_samplers_batches_out_whole():
    """A custom batch sampler makes the batches (by length buckets, say): resumed at another
    world size, the new ranks get its remaining batches intact -- before, they were split
    into batches of one sample."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    dataset = TensorDataset(mg.arange(20))

    def buckets(rank: int) -> list[list[int]]:
        own = list(range(rank, 20, 2))
        return [own[i:i + 3] for i in range(0, len(own), 3)]

    states, left = [], []
    for r in range(2):
        loader = DataLoader(dataset, batch_sampler=buckets(r))
        next(iter(loader))
        states.append(loader.state_dict())
        left.extend(buckets(r)[1:])
    for world in (1, 3):
        got = []
        for r in range(world):
            loader = DataLoader(dataset, batch_sampler=buckets(0))
            loader.load_state_dict(loader.reshard_state_dict(states, r, world))
            got.extend(b.tolist() for (b,) in loader)
        assert sorted(got) == sorted(left)


class _Augmented:
    """A dataset whose samples draw a random augmentation (from the engine generator, which a
    worker sets per batch from the epoch's base seed)."""

    def __len__(self) -> int:
        return 24

    def __getitem__(self, i):
        import minigrad_ckpt as mg

        return mg.tensor([float(i)]) + mg.rand(1)


def test_after_an_elastic_resume_each_ranks_workers_draw_their_own_augmentations():
    """Resumed on 3 ranks, the workers of every rank drew rank 0's random stream (the old rank
    0's epoch base seed), from its start: the same augmentation on every rank, and the one
    the old rank 0 had already applied to its first batch."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler

    ds = _Augmented()

    def noise(batch) -> list[float]:  # the drawn fractions, to float32's round-off at these magnitudes
        return [round(v, 4) for v in (batch[:, 0] - batch[:, 0].floor()).numpy().tolist()]

    states, used = [], []
    for r in range(2):
        mg.manual_seed(100 + r)  # each rank its own engine seed, as manual_seed_per_rank gives
        loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, 2, r, seed=1), num_workers=1)
        it = iter(loader)
        used.append(noise(next(it)))
        states.append(loader.state_dict())
        del it
    resumed = []
    for r in range(3):
        loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, 3, r, seed=1), num_workers=1)
        loader.load_state_dict(loader.reshard_state_dict(states, r, 3))
        resumed.append(noise(next(iter(loader))))
    assert len({tuple(n) for n in resumed + used}) == 5


def test_a_rank_new_in_an_elastic_resume_does_not_shuffle_as_rank_0():
    """A loader shuffling with its own generator (each rank seeds its own) gives a rank the old run
    did not have rank 0's generator seeded apart (seed + rank, as the engine generator's):
    its next epochs are not rank 0's orders."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(mg.arange(12))
    states = []
    for r in range(2):
        loader = DataLoader(ds, batch_size=4, shuffle=True, generator=mg.random.Generator(10 + r))
        for _ in loader:
            pass
        states.append(loader.state_dict())
    orders = []
    for r in range(3):
        loader = DataLoader(ds, batch_size=4, shuffle=True, generator=mg.random.Generator(0))
        loader.load_state_dict(loader.reshard_state_dict(states, r, 3))
        orders.append([i for (b,) in loader for i in b.tolist()])
    assert len({tuple(o) for o in orders}) == 3
    assert all(sorted(o) == list(range(12)) for o in orders)


_REGISTERED_SAMPLERS = {
    "RandomSampler": lambda data, g: data.RandomSampler(list(range(12)), generator=g),
    "SubsetRandomSampler": lambda data, g: data.SubsetRandomSampler(range(3, 15), generator=g),
    "WeightedRandomSampler": lambda data, g: data.WeightedRandomSampler([1.0] * 12, 12, replacement=False, generator=g),
}


@pytest.mark.parametrize("kind", sorted(_REGISTERED_SAMPLERS))
def test_a_registered_random_sampler_new_in_an_elastic_resume_does_not_shuffle_as_rank_0(kind):
    """The same for a sampler with its own generator registered with the executor on its own
    (SubsetRandomSampler and WeightedRandomSampler, which save RandomSampler's state, took rank 0's
    generator as it was: every new rank drew rank 0's indices)."""
    import minigrad_ckpt as mg
    import minigrad_ckpt.utils.data as data
    from minigrad_ckpt.snapshot.sections import RanksSection

    make = _REGISTERED_SAMPLERS[kind]
    states = []
    for r in range(2):
        sampler = make(data, mg.random.Generator(10 + r))
        list(sampler)
        states.append({"sampler": {"type": kind, "state": sampler.state_dict()}})
    orders = []
    for r in range(3):
        ex = mg.Executor()
        sampler = ex.register_state("sampler", make(data, mg.random.Generator(0)))
        sampler.load_state_dict(states[r if r < 2 else 0]["sampler"]["state"])  # the objects section's part
        section = RanksSection()
        built = section.build(ex, {"rank": r, "world_size": 3, "states": states}, None)
        if built is not None:
            section.install(ex, built)
        orders.append(list(sampler))
    assert len({tuple(o) for o in orders}) == 3
    assert all(sorted(o) == sorted(orders[0]) for o in orders)  # each still a permutation of its indices


# ---------------------------------------------------------------- a whole training program, resumed
_OPTIMIZERS = {
    "Adam-amsgrad": lambda optim, p: optim.Adam(p, lr=0.01, amsgrad=True),
    "AdamW": lambda optim, p: optim.AdamW(p, lr=0.01),
    "SGD-nesterov": lambda optim, p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "RMSprop-centered": lambda optim, p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "NAdam": lambda optim, p: optim.NAdam(p, lr=0.01),
}
_SCHEDULERS = {
    "none": lambda L, o: None,
    "StepLR": lambda L, o: L.StepLR(o, 2, 0.5),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=40, cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, 2),
    "SequentialLR": lambda L, o: L.SequentialLR(o, [L.LinearLR(o, 0.1, 1.0, 3), L.CosineAnnealingLR(o, 5)], [3]),
    "ReduceLROnPlateau": lambda L, o: L.ReduceLROnPlateau(o, patience=0),
}


def _training_program(seed: int, dtype: str, opt_name: str, sched_name: str, batch_size: int, accumulate: int):
    """A BatchNorm + dropout MLP, an optimizer and a scheduler, a shuffling loader (its own
    generator) registered with an executor: the objects a resumed run rebuilds."""
    import numpy as np

    import minigrad_ckpt as mg
    from minigrad_ckpt import nn, optim
    from minigrad_ckpt.optim import lr_scheduler
    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    mg.manual_seed(seed)  # another seed: every weight differs until restored
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 3)).to(dtype)
    opt = _OPTIMIZERS[opt_name](optim, model.parameters())
    sched = _SCHEDULERS[sched_name](lr_scheduler, opt)
    ex = mg.Executor(model, opt, None if isinstance(sched, lr_scheduler.ReduceLROnPlateau) else sched)
    rng = np.random.default_rng(3)  # the data is the same in every process
    data = TensorDataset(mg.tensor(rng.standard_normal((23, 4)).astype(dtype)),
                         mg.tensor(rng.standard_normal((23, 3)).astype(dtype)))
    loader = ex.register_state("loader", DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=True,
                                                    generator=mg.random.Generator(seed + 1)))
    if isinstance(sched, lr_scheduler.ReduceLROnPlateau):
        ex.register_state("plateau", sched)

    def train(steps: int, batches: list) -> list[float]:
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            for _ in range(accumulate):  # gradient accumulation over micro-batches
                if not batches:
                    batches.append(iter(loader))
                x, y = next(batches[0], (None, None))
                if x is None:  # the epoch ended: the next one
                    batches[0] = iter(loader)
                    x, y = next(batches[0])
                loss = ((model(x) - y) ** 2).mean() / accumulate
                loss.backward()
                losses.append(loss.item())
            opt.step()
            if isinstance(sched, lr_scheduler.ReduceLROnPlateau):
                sched.step(losses[-1])
            elif sched is not None:
                sched.step()
            ex.step()
        return losses

    return model, ex, train


@pytest.mark.msgpack
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dtype=st.sampled_from(["float32", "float64"]), opt_name=st.sampled_from(sorted(_OPTIMIZERS)),
       sched_name=st.sampled_from(sorted(_SCHEDULERS)), batch_size=st.integers(2, 5), accumulate=st.integers(1, 2),
       cut=st.integers(1, 9))
def test_a_training_program_resumed_from_a_snapshot_continues_bit_for_bit(tmp_path, dtype, opt_name, sched_name,
                                                                          batch_size, accumulate, cut):
    """Train ``cut`` steps, snapshot, train on; then build every object afresh (other seeds),
    restore the snapshot and train on: the same losses and the same final state, bit for bit --
    mid-epoch of a shuffling loader, mid-schedule, with dropout, BatchNorm and accumulation."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.snapshot import Snapshot

    model, ex, train = _training_program(0, dtype, opt_name, sched_name, batch_size, accumulate)
    batches: list = []
    train(cut, batches)
    path = tmp_path / f"cut{cut}.mgsnap"
    Snapshot.from_executor(ex).save(path)
    want = train(6, batches)
    want_state = {k: v.numpy().tobytes() for k, v in model.state_dict().items()}
    model2, ex2, train2 = _training_program(5, dtype, opt_name, sched_name, batch_size, accumulate)
    mg.manual_seed(99)
    Snapshot.load(path).restore_into(ex2)
    assert train2(6, []) == want
    assert {k: v.numpy().tobytes() for k, v in model2.state_dict().items()} == want_state


def test_restore_into_keeps_the_user_tensors_a_training_loop_holds(tmp_path):
    """A loop that keeps the tensor ``add_tensor`` returned (a running sum) and resumes with
    ``restore_into`` goes on updating the executor's tensor: it takes the snapshot's values in
    place, as the model's parameters do, so the next snapshot saves what the loop summed --
    before, it was replaced and the loop's updates went to an orphan."""
    import numpy as np

    import minigrad_ckpt as mg
    from minigrad_ckpt.snapshot import Snapshot

    def run(restore_from=None):
        ex = mg.Executor()
        total = ex.add_tensor("total", np.zeros(3))
        if restore_from is not None:
            Snapshot.load(restore_from).restore_into(ex)
        start = int(total.numpy()[0])
        for i in range(start, start + 2):
            total.add_(mg.tensor([1.0, float(i), 0.5]))
        return ex

    first = run()
    Snapshot.from_executor(first).save(tmp_path / "a.mgsnap")
    second = run(tmp_path / "a.mgsnap")
    Snapshot.from_executor(second).save(tmp_path / "b.mgsnap")
    assert Snapshot.load(tmp_path / "b.mgsnap").tensors["total"].tolist() == [4.0, 6.0, 2.0]


def test_a_checkpointed_forward_thrown_away_leaves_no_active_checkpoint():
    """A forward pass in grad mode whose result is dropped without a backward (an evaluation
    loop that forgot ``no_grad``): once its graph is gone, ``statistics()`` counts no active
    checkpoint and the ledger holds nothing for it -- before, both kept counting every such
    pass forever."""
    import gc
    import warnings

    import minigrad_ckpt as mg
    from minigrad_ckpt import checkpoint as ck
    from minigrad_ckpt import nn

    mg.manual_seed(0)
    block = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
    x = mg.randn(4, 8)  # no gradient: the segments keep it
    ck.reset_statistics()
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        for _ in range(3):
            y = ck.checkpoint(lambda t: ck.checkpoint(block, t) * 2, x)  # two segments, nested
            assert ck.statistics().active_checkpoints == 2
            assert ledger.live("saved") > 0
            del y
            gc.collect()
            assert ck.statistics().active_checkpoints == 0
            assert ledger.live("saved") == 0
    assert ck.statistics().forward_passes == 6


@pytest.mark.parametrize("name, entry, why", [
    ("model.0.weight", {"dtype": "float32", "shape": [2], "data": bytes(8)}, "not a float64 array of shape"),
    ("model.0.weight", {"dtype": "float64", "shape": [3], "data": bytes(24)}, "not a float64 array of shape"),
    ("model.0.weight", {"dtype": "float64", "shape": [2], "data": bytes(15)}, "not a float64 array of shape"),
    ("model.0.weight", {"dtype": "float64", "shape": [2]}, "not a float64 array of shape"),
    ("optimizer.state.w.exp_avg", {"dtype": "float64", "shape": [2], "data": bytes(16)}, "which the snapshot lacks"),
    ("model.gone", {"dtype": "float64", "shape": [2], "data": bytes(16)}, "which the snapshot lacks"),
])
def test_a_rank_files_own_tensors_are_checked_against_the_ones_they_replace(name, entry, why):
    """A rank's own tensors replace rank 0's only as arrays of the same dtype, shape and size,
    and never an optimizer's or the tape's (the rank file is input like the snapshot)."""
    import numpy as np

    from minigrad_ckpt.snapshot import SnapshotError
    from minigrad_ckpt.snapshot.ranks import _take_tensors

    class Snap:
        _tensors = {"model.0.weight": np.zeros(2), "optimizer.state.w.exp_avg": np.zeros(2)}

    with pytest.raises(SnapshotError, match=why):
        _take_tensors(Snap(), {name: entry})
    good = {"dtype": "float64", "shape": [2], "data": np.array([1.5, -2.0]).tobytes()}
    snap = Snap()
    _take_tensors(snap, {"model.0.weight": good})
    assert snap._tensors["model.0.weight"].tolist() == [1.5, -2.0]


def test_a_rank_asking_for_its_shard_or_seed_before_the_process_group_is_refused():
    """Under a launcher of two ranks, a DistributedSampler or manual_seed_per_rank made before
    init_process_group took every rank for rank 0 of 1: each rank iterated the whole dataset and
    drew rank 0's dropout masks.  Now it is an error naming the fix; after init, each rank has
    its own shard and seed."""
    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    got = _results(_launch("before_init", timeout=60))
    assert [got[r]["refused"] for r in (0, 1)] == [["DistributedSampler", "manual_seed_per_rank"]] * 2
    assert sorted(got[0]["shard"] + got[1]["shard"]) == list(range(8))
    assert [got[r]["seed"] for r in (0, 1)] == [3, 4]


def test_a_collective_snapshot_refuses_the_ranks_own_tapes(tmp_path):
    """Each rank's recorded tape is its own forward pass (its batch): a data-parallel snapshot,
    which holds rank 0's replicated state, resumed every rank with rank 0's tape (rank 1's
    restored loss was rank 0's).  ``include_tape`` is refused on every rank instead, before
    anything is written."""
    pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
    got = _results(_launch("tape", str(tmp_path)))
    for r in (0, 1):
        assert "include_tape" in got[r]["refused"] and "rank 0's tape" in got[r]["refused"]
        assert got[r]["listed"] == []
        assert len(got[r]["after"]) == 1
