"""A batch whose making raises -- a dataset's ``__getitem__`` failing on one sample (a corrupt file,
a flaky read), a ``collate_fn`` refusing a batch -- raises from ``next()`` as in PyTorch, uses its
place in the epoch, and the next ``next()`` goes on with the following batch.  Before, the
exception ended the epoch (the iterator's generator was dead): a loop that skips a bad batch
(``except OSError: continue``) silently lost the rest of the epoch, and a snapshot taken after the
failure resumed the epoch the live run had abandoned (with workers, at the failed batch again); with
workers and an IterableDataset, one worker's failure ended the other workers' shares too."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.utils.data import DataLoader, Dataset, IterableDataset, Sampler, get_worker_info

pytestmark = pytest.mark.msgpack


class _Flaky(Dataset):
    """Twelve samples; reading sample 5 fails."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == 5:
            raise OSError("flaky read")
        return mg.tensor([float(i)])


def _take(it, n, loader=None):
    """``n`` outcomes of ``next(it)`` -- a batch's values or "ERR" -- as a loop that skips bad
    batches sees them; with ``loader``, an ended epoch is followed by the next one."""
    out = []
    while len(out) < n:
        try:
            out.append(next(it).flatten().tolist())
        except StopIteration:
            if loader is None:
                break
            it = iter(loader)
        except OSError:
            out.append("ERR")
    return out, it


@pytest.mark.parametrize("workers", [0, 2])
def test_the_epoch_goes_on_after_a_batch_that_raised(workers):
    # torch 2.13, DataLoader(_Flaky(), batch_size=2, num_workers=0 or 2), the same loop:
    torch_answer = [[0.0, 1.0], [2.0, 3.0], "ERR", [6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]
    got, _ = _take(iter(DataLoader(_Flaky(), batch_size=2, num_workers=workers)), 10)
    assert got == torch_answer


def test_a_collate_fn_that_refuses_a_batch_does_not_end_the_epoch():
    def collate(samples):
        if samples[0] == 4:
            raise OSError("bad batch")
        return mg.tensor(samples)

    got, _ = _take(iter(DataLoader(list(range(8)), batch_size=2, collate_fn=collate)), 10)
    assert got == [[0, 1], [2, 3], "ERR", [6, 7]]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_snapshot_after_a_failed_batch_resumes_as_the_run_goes_on(tmp_path, workers):
    def loader_of(ex):
        return ex.register_state("loader", DataLoader(_Flaky(), batch_size=2, shuffle=True, num_workers=workers))

    mg.manual_seed(0)
    first_epoch, _ = _take(iter(loader_of(mg.Executor())), 14)  # (stops where the epoch ends)
    assert len(first_epoch) == 6 and first_epoch.count("ERR") == 1  # six batches, one failed, none lost
    mg.manual_seed(0)
    ex = mg.Executor()
    loader = loader_of(ex)
    whole, _ = _take(iter(loader), 14, loader)
    mg.manual_seed(0)
    ex = mg.Executor()
    loader = loader_of(ex)
    cut = whole.index("ERR") + 1
    head, _ = _take(iter(loader), cut, loader)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    ex2 = mg.Executor()
    loader2 = loader_of(ex2)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(ex2)
    tail, _ = _take(iter(loader2), 14 - cut, loader2)
    assert whole[:6] == first_epoch
    assert head + tail == whole


class _Endless(Sampler):
    """A sampler without a length (an infinite training sampler): its epoch is drawn as it goes."""

    def __iter__(self):
        i = 0
        while True:
            yield i % 12
            i += 1


@pytest.mark.parametrize("workers", [0, 2])
def test_an_endless_samplers_epoch_goes_on_after_a_batch_that_raised(workers):
    """An epoch drawn as it goes (no list of it) goes on too, with workers making the next batches."""
    got, _ = _take(iter(DataLoader(_Flaky(), batch_size=2, sampler=_Endless(), num_workers=workers)), 9)
    assert got == [[0.0, 1.0], [2.0, 3.0], "ERR", [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [0.0, 1.0], [2.0, 3.0], "ERR"]


class _Shards(IterableDataset):
    """Each worker yields its share of 0..11; sample 4's read fails (its iterator ends there)."""

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        for i in range(worker, 12, workers):
            if i == 4:
                raise OSError("bad shard")
            yield mg.tensor([float(i)])


@pytest.mark.parametrize("workers", [0, 2])
def test_an_iterable_datasets_other_workers_go_on_after_one_failed(workers):
    # torch 2.13, the same loop: the failing worker's copy ends, the others go on
    torch_answer = {0: [[0.0, 1.0], [2.0, 3.0], "ERR"],
                    2: [[0.0, 2.0], [1.0, 3.0], "ERR", [5.0, 7.0], [9.0, 11.0]]}[workers]
    got, _ = _take(iter(DataLoader(_Shards(), batch_size=2, num_workers=workers)), 12)
    assert got == torch_answer


class _Records(IterableDataset):
    """Eight records read by an iterator object (a file reader's), not a generator: reading record 3
    raises, and the reader goes on with record 4 -- as its ``__next__`` is called again."""

    class _Reader:
        def __init__(self):
            self.at = -1

        def __iter__(self):
            return self

        def __next__(self):
            self.at += 1
            if self.at >= 8:
                raise StopIteration
            if self.at == 3:
                raise OSError("corrupt record")
            return mg.tensor([float(self.at)])

    def __iter__(self):
        return self._Reader()


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("batch_size", [None, 2])
def test_an_iterable_datasets_epoch_goes_on_after_its_iterator_raised(workers, batch_size):
    """Without workers the loader's epoch ended at the first exception (its generator was dead), so
    a loop skipping a bad record lost the rest of the stream; PyTorch's fetcher asks the dataset's
    iterator again.  (A batch loses the samples read before the failure, as PyTorch's does.)"""
    # torch 2.13, DataLoader(_Records(), batch_size=..., num_workers=0 or 1), the same loop:
    torch_answer = {None: [[0.0], [1.0], [2.0], "ERR", [4.0], [5.0], [6.0], [7.0]],
                    2: [[0.0, 1.0], "ERR", [4.0, 5.0], [6.0, 7.0]]}[batch_size]
    got, _ = _take(iter(DataLoader(_Records(), batch_size=batch_size, num_workers=workers)), 12)
    assert got == torch_answer


@pytest.mark.parametrize("workers", [0, 1])
def test_a_collate_fn_that_refuses_an_iterable_datasets_batch_does_not_end_the_epoch(workers):
    got, _ = _take(iter(DataLoader(_Records(), batch_size=2, num_workers=workers, collate_fn=_refuse_from_4)), 12)
    assert got == [[0.0, 1.0], "ERR", "ERR", [6.0, 7.0]]  # (torch 2.13's, the same loop)


def _refuse_from_4(samples):  # (module level: a worker process may need to pickle it)
    if samples[0].item() in (4.0, 5.0):
        raise OSError("bad batch")
    return mg.stack(samples)
