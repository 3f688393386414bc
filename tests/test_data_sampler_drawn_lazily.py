"""A loader draws its sampler's items as it makes the batches, as PyTorch's does, so a sampler whose
items follow what the training loop updates sees the updates.

torch 2.13: a sampler of length 4 yielding ``self.hard`` four times, the loop adding 1 to ``hard`` after
each batch, gives ``[[0], [1], [2], [3]]`` (batch_size=1).  The engine listed the whole epoch at
``iter()`` and gave ``[[0], [0], [0], [0]]``.  A state saved mid-epoch draws the rest of the epoch first
and lists it: the run and a loader resumed from the state go on with the same batches."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.utils.data import DataLoader, Sampler


class FollowsTheLoop(Sampler):
    """Yields the current ``hard`` index: a curriculum that the loop moves on."""

    def __init__(self, n: int = 6) -> None:
        self.n, self.hard = n, 0

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        for _ in range(self.n):
            yield self.hard


@pytest.mark.parametrize("batch_size", [1, None])
def test_a_sampler_sees_what_the_loop_updates_as_in_pytorch(batch_size):
    sampler = FollowsTheLoop(4)
    got = []
    for b in DataLoader(list(range(10)), sampler=sampler, batch_size=batch_size):
        got.append(b.tolist() if batch_size else b)  # (a list's items stay ints without batching)
        sampler.hard += 1
    assert got == ([[0], [1], [2], [3]] if batch_size else [0, 1, 2, 3])


def test_a_mid_epoch_state_lists_the_rest_and_the_run_goes_on_with_it():
    sampler = FollowsTheLoop()
    loader = DataLoader(list(range(10)), sampler=sampler, batch_size=2)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    it = iter(loader)
    first = next(it).tolist()
    sampler.hard = 5
    snap = Snapshot.from_executor(ex)  # the rest of the epoch is drawn now, at hard == 5
    sampler.hard = 7
    rest = [b.tolist() for b in it]
    assert first == [0, 0] and rest == [[5, 5], [5, 5]]

    fresh_sampler = FollowsTheLoop()
    fresh = DataLoader(list(range(10)), sampler=fresh_sampler, batch_size=2)
    ex2 = mg.Executor()
    ex2.register_state("loader", fresh)
    snap.restore_into(ex2)
    assert [b.tolist() for b in fresh] == rest


def test_a_shuffled_epoch_is_drawn_once_and_resumes_exactly():
    mg.manual_seed(0)
    loader = DataLoader(list(range(9)), batch_size=2, shuffle=True)
    it = iter(loader)
    head = [next(it).tolist() for _ in range(2)]
    state, rng = loader.state_dict(), mg.get_rng_state()
    tail = [b.tolist() for b in it]
    assert sorted(sum(head + tail, [])) == list(range(9))
    fresh = DataLoader(list(range(9)), batch_size=2, shuffle=True)
    fresh.load_state_dict(state)
    mg.set_rng_state(rng)
    assert [b.tolist() for b in fresh] == tail


def test_a_loader_copied_mid_epoch_copies_its_listed_epoch():
    """``copy.deepcopy(loader)`` and pickling mid-epoch work, as torch's (the loader holds no iterator
    of its sampler in a copy: the copy's epoch is the listed rest, as a saved state's)."""
    import copy
    import pickle

    mg.manual_seed(1)
    loader = DataLoader(list(range(7)), batch_size=2, shuffle=True)
    it = iter(loader)
    next(it)
    for copied in (copy.deepcopy(loader), pickle.loads(pickle.dumps(loader))):
        assert copied.state_dict() == loader.state_dict()
        assert sorted(sum((b.tolist() for b in copied), [])) == list(range(7))
    assert len([b for b in it]) == 3


class DrawsEachItem(FollowsTheLoop):
    """A hard-example miner's habit: each item drawn from the engine's generator as it is asked for."""

    def __init__(self, n: int = 20) -> None:
        super().__init__(n)
        self.asked = 0

    def __iter__(self):
        for _ in range(self.n):
            self.asked += 1
            yield int(mg.randint(0, 10, ()).item())


def test_a_break_mid_epoch_asks_the_sampler_for_nothing_more():
    # torch 2.13 (num_workers=0, batch_size=2, break after the second batch): the sampler was asked for 4
    # items. The engine asked for 6: the dropped iterator asked for the next batch to learn whether the
    # epoch was over, which moved the engine's generator on by a batch the loop never saw.
    mg.manual_seed(0)
    sampler = DrawsEachItem()
    loader = DataLoader(list(range(10)), sampler=sampler, batch_size=2)
    for i, _ in enumerate(loader):
        if i == 1:
            break
    after_break = mg.rand(()).item()
    mg.manual_seed(0)
    for _ in range(4):
        mg.randint(0, 10, ())
    assert sampler.asked == 4 and after_break == mg.rand(()).item()
    assert loader.state_dict()["epoch"]["position"] == 2  # (still resumable: the rest is listed when saved)


def test_a_loader_dropped_with_every_batch_handed_out_ends_its_epoch():
    # zip of two loaders of one length: the second never hears its StopIteration, its epoch is over all the same
    a = DataLoader(list(range(10)), sampler=DrawsEachItem(4), batch_size=2)
    b = DataLoader(list(range(10)), sampler=DrawsEachItem(4), batch_size=2)
    assert len(list(zip(a, b))) == 2
    assert a.state_dict()["epoch"] is None and b.state_dict()["epoch"] is None


class TorchsRandomSamplerShape(Sampler):
    """Drawn as torch's ``RandomSampler`` is: one permutation per whole pass, then a trailing one of which
    it keeps the first ``num_samples % n`` -- drawn once the loader asks past the last item."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        yield from mg.randperm(self.n).tolist()
        yield from mg.randperm(self.n).tolist()[:0]


def test_a_loader_dropped_after_its_last_batch_asks_the_sampler_for_nothing_more():
    # torch 2.13: next(iter(loader)) of a loader whose epoch is that one batch (a validation peek, as
    # PyTorch-GAN's sample_images does) asks the sampler for the batch's 2 items and no more: the trailing
    # permutation is never drawn. The engine's dropped iterator asked for one more item to learn whether
    # the epoch was over, which ran the sampler on past its last item and moved the generator.
    mg.manual_seed(0)
    loader = DataLoader(list(range(2)), sampler=TorchsRandomSamplerShape(2), batch_size=2)
    next(iter(loader))
    after_peek = mg.rand(()).item()
    mg.manual_seed(0)
    mg.randperm(2)
    assert after_peek == mg.rand(()).item()
    assert loader.state_dict()["epoch"] is None  # every batch was handed out: the epoch is over
