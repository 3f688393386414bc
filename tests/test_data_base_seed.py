"""The workers' base seed is read from the generator's state, not drawn, so a resumed loop gets the seeds it had.

The engine reads each epoch's base seed from the generator's state and the loader's epoch count
without advancing the generator: a loop that skips the batches it did before a restore resumes
exactly (``examples/ddp_spirals.py``), and a state restored from a snapshot gives each epoch the
seed it had.  (Two loaders started with no draw between read one seed -- torch 2.13 draws each
base seed, so its two differ.  Counting such reads apart made the count hidden state that no
snapshot held: a loop that read a second loader's seed before its snapshot resumed with other
worker seeds.  Each loader can be given its own ``generator``.)
Worker tests start processes: each runs under a deadline."""

from __future__ import annotations

import pytest
from timeouts import deadline

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, Dataset, IterableDataset


class Noisy(Dataset):
    """A random augmentation: each sample is a draw from the engine's generator."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return float(mg.rand(()).item())


def _draws(loader):
    return [b.tolist() for b in loader]


def _train_then_evaluate(saved=None):
    """Epochs of a loader whose workers augment at random, each followed by an evaluation loader's
    pass (it draws nothing); returns epoch 2's batches and the state saved after epoch 1 -- or,
    given one, resumes from it (as a snapshot's restore does) and returns its epoch 2."""
    mg.manual_seed(0)
    train = DataLoader(Noisy(), batch_size=2, num_workers=1)
    evaluate = DataLoader(list(range(2)), batch_size=2)
    if saved is None:
        _draws(train), _draws(evaluate)
        saved = (mg.get_rng_state(), train.state_dict())
    else:
        mg.set_rng_state(saved[0])
        train.load_state_dict(saved[1])
    return _draws(train), saved


def test_a_loop_resumed_from_a_saved_state_gives_its_workers_the_seeds_they_had():
    with deadline(90, "DataLoaders with a worker"):
        epoch2, saved = _train_then_evaluate()
        resumed, _ = _train_then_evaluate(saved)
    assert resumed == epoch2


@pytest.mark.parametrize("dataset", [Noisy])
def test_loaders_with_their_own_generators_draw_apart_in_their_workers(dataset):
    with deadline(60, "two DataLoaders with workers"):
        a = DataLoader(dataset(), batch_size=2, num_workers=1, generator=mg.Generator().manual_seed(1))
        b = DataLoader(dataset(), batch_size=2, num_workers=1, generator=mg.Generator().manual_seed(2))
        pairs = list(zip(_draws(a), _draws(b)))
    assert len(pairs) == 2 and all(x != y for x, y in pairs)


class Plain(IterableDataset):
    def __iter__(self):
        return iter(range(4))


@pytest.mark.parametrize("dataset", [lambda: list(range(4)), Plain])
def test_the_random_stream_after_a_loop_does_not_depend_on_the_workers(dataset):
    """The base seed is read, not drawn, with or without workers (and an iterable dataset's is read at
    ``iter()`` whether or not it has workers, as a map-style one's): the main process's stream goes on
    alike (a dataset that draws would draw from it too with ``num_workers=0``, as in PyTorch)."""
    with deadline(60, "a DataLoader with workers"):
        after = []
        for workers in (0, 1):
            mg.manual_seed(1)
            list(DataLoader(dataset(), batch_size=None, num_workers=workers))
            after.append(mg.rand(3).tolist())
    mg.manual_seed(1)
    assert after[0] == after[1] == mg.rand(3).tolist()  # (and the loader drew nothing)


def test_a_restored_state_reads_the_seeds_it_read_the_first_time():
    """Setting the state (a restore, ``manual_seed``) gives a loop that re-iterates the base seeds of
    the first time; nothing is drawn."""
    with deadline(60, "DataLoaders with a worker"):
        runs = []
        for _ in range(2):
            mg.manual_seed(2)
            state = mg.get_rng_state()
            a = DataLoader(Noisy(), batch_size=2, num_workers=1)
            runs.append(_draws(a))
            assert mg.get_rng_state() == state
    assert runs[0] == runs[1]


def test_an_own_generator_is_read_and_the_engines_left_alone():
    gen = mg.random.Generator(7)
    state, own = mg.get_rng_state(), gen.get_state()
    list(DataLoader(list(range(4)), batch_size=2, generator=gen))
    assert gen.get_state() == own and mg.get_rng_state() == state



class WorkerSeed(Dataset):
    def __len__(self):
        return 1

    def __getitem__(self, i):
        from minigrad_ckpt.utils.data import get_worker_info

        return get_worker_info().seed


def test_the_workers_seeds_are_non_negative_int64s_as_pytorchs():
    """torch 2.13 draws its base seed with ``torch.empty((), dtype=torch.int64).random_()``: in
    ``[0, 2**63)``, so ``info.seed`` (base seed + worker id) fits an int64 (``np.int64(info.seed)``,
    ``mg.tensor(info.seed)``).  Before, half of the engine's base seeds were 64-bit values past it."""
    with deadline(60, "DataLoaders with a worker"):
        mg.manual_seed(0)
        loader = DataLoader(WorkerSeed(), batch_size=None, num_workers=1)
        seeds = [s for _ in range(12) for s in loader]
    assert len(set(seeds)) == 12 and all(0 <= s < 2**63 for s in seeds)
