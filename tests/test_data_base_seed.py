"""Two loaders whose epochs start at one generator state get different base seeds for their workers.

The engine reads the base seed from the generator's state without advancing it (so a loop that skips
the batches it did before a restore resumes exactly: ``examples/ddp_spirals.py``).  Before, two loaders
started with no draw between -- ``zip(a, b)`` of two unshuffled loaders over datasets that augment at
random -- read one base seed, so their workers made the same "random" augmentations (torch 2.13, whose
iterator draws each base seed: the two loaders' draws differ; the engine's were equal, batch for
batch).  Now the generator counts the reads of its state, and each later read gets a seed of its own.
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


class NoisyStream(IterableDataset):
    def __iter__(self):
        return iter([float(mg.rand(()).item()) for _ in range(4)])


def _draws(loader):
    return [b.tolist() for b in loader]


@pytest.mark.parametrize("dataset", [Noisy, NoisyStream])
def test_two_loaders_iterated_together_draw_apart_in_their_workers(dataset):
    with deadline(60, "two DataLoaders with workers"):
        mg.manual_seed(0)
        a = DataLoader(dataset(), batch_size=2, num_workers=1)
        b = DataLoader(dataset(), batch_size=2, num_workers=1)
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
    """Setting the state (a restore, ``manual_seed``) starts the count of its reads again: a loop
    that re-iterates after a restore gets the base seeds of the first time; nothing is drawn."""
    with deadline(60, "DataLoaders with a worker"):
        runs = []
        for _ in range(2):
            mg.manual_seed(2)
            state = mg.get_rng_state()
            a = DataLoader(Noisy(), batch_size=2, num_workers=1)
            b = DataLoader(Noisy(), batch_size=2, num_workers=1)
            runs.append((_draws(a), _draws(b)))
            assert mg.get_rng_state() == state
    assert runs[0] == runs[1] and runs[0][0] != runs[0][1]


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
