"""The seeds a dataset sees in DataLoader workers, as PyTorch's test_dataloader.py reads them.

Found by running PyTorch's ``test/test_dataloader.py`` translated against the engine:

* ``test_worker_seed``: a dataset returning ``torch.initial_seed()`` in a worker collates, since
  torch's worker seeds are int64s.  The engine's per-batch seeds were full 64-bit numbers, so about
  half the batches failed to collate (an int past int64).
* ``test_worker_init_fn``: ``worker_init_fn=lambda i: torch.manual_seed(12345)`` makes every sample's
  ``torch.initial_seed()`` 12345.  The engine reseeded the worker's generator before each batch,
  silently discarding the seed ``worker_init_fn`` set.

Worker tests start processes, so each runs under a deadline.
"""

from __future__ import annotations

import pytest
from timeouts import deadline

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, Dataset, IterableDataset


class Seeds(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return mg.initial_seed()


class IterSeeds(IterableDataset):
    def __iter__(self):
        return (mg.initial_seed() for _ in range(8))


class SeedAndDraw(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return mg.stack([mg.tensor(float(mg.initial_seed())), mg.rand((), dtype=mg.float64)])


def _seed_12345(worker_id):
    mg.manual_seed(12345)


@pytest.mark.parametrize("dataset", [Seeds, IterSeeds], ids=["map-style", "iterable"])
def test_the_seed_a_worker_batch_reads_fits_an_int64_and_collates(dataset):
    mg.manual_seed(0)
    with deadline(60, "a DataLoader whose dataset returns mg.initial_seed()"):
        seeds = [s for b in DataLoader(dataset(), batch_size=1, num_workers=2) for s in b.tolist()]
    assert len(seeds) == 16  # (an iterable one: each of the 2 workers iterates its own copy of 8)
    assert all(0 <= s < 2**63 for s in seeds)
    assert len(set(seeds)) > 1


def test_a_seed_set_in_worker_init_fn_is_the_workers_stream_as_in_pytorch():
    mg.manual_seed(12345)
    first, second = mg.rand((), dtype=mg.float64).item(), mg.rand((), dtype=mg.float64).item()
    with deadline(60, "a DataLoader whose worker_init_fn seeds the engine generator"):
        batches = [b.tolist() for b in DataLoader(SeedAndDraw(), batch_size=2, num_workers=2,
                                                   worker_init_fn=_seed_12345)]
    # torch: every sample's torch.initial_seed() is 12345; each worker's stream starts at that seed and
    # runs on through its batch (batch 0 from worker 0, batch 1 from worker 1)
    assert [row[0] for b in batches for row in b] == [12345.0] * 4
    assert [[row[1] for row in b] for b in batches] == [[first, second], [first, second]]


def test_without_a_seed_in_worker_init_fn_each_batch_keeps_its_own_stream():
    # (the engine's per-batch streams: the same batches whatever the number of workers)
    def batches(num_workers):
        mg.manual_seed(7)
        return [b.tolist() for b in DataLoader(SeedAndDraw(), batch_size=1, num_workers=num_workers,
                                               worker_init_fn=lambda i: None)]
    with deadline(60, "DataLoaders with 1 and 3 workers"):
        assert batches(1) == batches(3)
