"""utils.data: what goes wrong in or around a DataLoader's worker processes is an error at its batch,
never a hang, and the batches that were fine still come (PyTorch 2.13's loader as the reference;
where it hangs -- a batch that does not pickle -- ours raises).

Every test starts processes, so each runs under a deadline: a hang is a failure, not a stuck suite.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest
from timeouts import deadline

from minigrad_ckpt.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


def _outcomes(iterator, most=20):
    """What each ``next()`` gave: the batch as a list, ``(type name, message)`` for an error, ``"stop"``."""
    out = []
    for _ in range(most):
        try:
            batch = next(iterator)
        except StopIteration:
            return [*out, "stop"]
        except Exception as exc:
            out.append((type(exc).__name__, str(exc)))
        else:
            out.append(batch.tolist() if hasattr(batch, "tolist") else batch)
    return out


def _unpicklable_at_one(batch):
    """A collate_fn whose batch 1 cannot be sent back: a lambda does not pickle."""
    if batch == [1]:
        return lambda: batch
    return batch


class _Numbers(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i


def _raise_local_exception(i):
    class ReaderError(Exception):  # a class of a function's own: pickle cannot find it by name
        pass

    raise ReaderError(f"record {i} is damaged")


class _DamagedAtTwo(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            _raise_local_exception(i)
        return i


class _Stream(IterableDataset):
    """Worker ``w`` yields ``10 w, 10 w + 1, 10 w + 2``; worker 0's second sample does not pickle."""

    def __iter__(self):
        w = get_worker_info().id
        for k in range(3):
            yield (lambda k=k: k) if (w, k) == (0, 1) else 10 * w + k


@pytest.mark.parametrize("persistent", [False, True])
def test_a_batch_that_does_not_pickle_is_an_error_at_its_place_not_a_hang(persistent):
    # the stock queue pickles in a background thread after put() returned: it printed the error and
    # dropped the batch, and the main process waited for it forever (PyTorch's does)
    with deadline(30, "a DataLoader whose batch does not pickle"):
        loader = DataLoader(_Numbers(), batch_size=1, num_workers=2, collate_fn=_unpicklable_at_one,
                            persistent_workers=persistent, timeout=20)
        for _ in range(2):  # (a persistent pool goes on serving the next epoch)
            out = _outcomes(iter(loader))
            assert out[0] == [0] and out[2:] == [[2], [3], "stop"]
            kind, message = out[1]
            assert "DataLoader worker process 1" in message and "pickle" in message and "timed out" not in message


def test_an_exception_of_a_local_class_is_raised_with_its_message_not_a_hang():
    with deadline(30, "a DataLoader whose worker raised an exception that does not pickle"):
        out = _outcomes(iter(DataLoader(_DamagedAtTwo(), batch_size=None, num_workers=2, timeout=20)))
    assert out[:2] == [0, 1] and out[3:] == [3, "stop"]
    kind, message = out[2]
    assert kind == "RuntimeError" and "timed out" not in message
    assert "ReaderError" in message and "record 2 is damaged" in message and "worker process 0" in message


def test_an_iterable_datasets_sample_that_does_not_pickle_is_an_error_not_a_hang():
    with deadline(30, "an IterableDataset whose sample does not pickle"):
        out = _outcomes(iter(DataLoader(_Stream(), batch_size=None, num_workers=2, timeout=20)))
    # (taken from the workers in turn; worker 0's iterator goes on after the sample that did not pickle)
    assert out[:2] == [0, 10] and out[3:] == [11, 2, 12, "stop"]
    assert "pickle" in out[2][1] and "worker process 0" in out[2][1]


class _KeyedBy(Dataset):
    """Samples keyed by ``(i, anything)`` (a sampler's own keys): the sample is ``i``."""

    def __getitem__(self, key):
        return key[0]


class _KeysWithALambdaAtOne:
    def __len__(self):
        return 4

    def __iter__(self):
        return iter([(0, None), (1, lambda: 1), (2, None), (3, None)])


def test_a_samplers_key_that_does_not_pickle_is_an_error_at_its_batch_not_a_hang():
    # the main process sends a batch's keys to its worker pickled: the same dropped item, the same wait
    with deadline(30, "a DataLoader whose sampler's key does not pickle"):
        loader = DataLoader(_KeyedBy(), batch_size=None, sampler=_KeysWithALambdaAtOne(), num_workers=2, timeout=20)
        out = _outcomes(iter(loader))
    assert out[0] == 0 and out[2:] == [2, 3, "stop"]
    assert "main process" in out[1][1] and "sampler" in out[1][1] and "timed out" not in out[1][1]


class _Plenty(Dataset):
    def __len__(self):
        return 400

    def __getitem__(self, i):
        time.sleep(0.001)
        return i


def test_ctrl_c_leaves_the_workers_to_the_main_process(capfd):
    # Ctrl-C reaches every process of the terminal's group: each worker printed a KeyboardInterrupt
    # traceback and left -- a loop that caught its own KeyboardInterrupt and went on found its workers
    # gone.  The main process decides: its KeyboardInterrupt ends the loop, which stops the workers.
    with deadline(30, "a DataLoader whose workers got SIGINT"):
        before = set(multiprocessing.active_children())
        it = iter(DataLoader(_Plenty(), batch_size=1, num_workers=2))
        assert [next(it).tolist(), next(it).tolist()] == [[0], [1]]  # (both workers are serving)
        for worker in set(multiprocessing.active_children()) - before:
            os.kill(worker.pid, signal.SIGINT)
        assert [b.tolist() for b in it] == [[i] for i in range(2, len(_Plenty()))]
    err = capfd.readouterr().err
    assert "KeyboardInterrupt" not in err and "Traceback" not in err


class _SamplerFailingAt:
    """Yields ``0..n-1`` and raises at ``n`` (a sampler reading a damaged index file)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n + 2

    def __iter__(self):
        yield from range(self.n)
        raise IndexError("index file is damaged")


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_a_samplers_error_comes_after_the_batches_it_gave(workers):
    # the workers' loader asks the sampler ahead (prefetch): its error ended the epoch at the first
    # next(), and the batches the sampler had given were lost -- num_workers=0 hands them out first,
    # PyTorch's too (its workers' loader raises at iter() or out of order, dropping or keeping batches)
    with deadline(30, "a DataLoader whose sampler raised"):
        loader = DataLoader(list(range(10)), batch_size=None, sampler=_SamplerFailingAt(5), num_workers=workers)
        assert _outcomes(iter(loader)) == [0, 1, 2, 3, 4, ("IndexError", "index file is damaged"), "stop"]
        loader = DataLoader(list(range(10)), batch_size=2, sampler=_SamplerFailingAt(5), num_workers=workers)
        # (the batch sampler loses the [4] it was gathering when the sampler raised, as PyTorch's)
        assert _outcomes(iter(loader)) == [[0, 1], [2, 3], ("IndexError", "index file is damaged"), "stop"]


def test_forkserver_workers_wait_past_a_second_between_epochs():
    # a forkserver worker's parent is the fork server, not the main process: compared with the main
    # process's pid, every worker left after a second without a batch to make (a slow step, a
    # validation pass between epochs), and the next batch was "worker exited unexpectedly".  (Its
    # queues reach it pickled: the batch that does not pickle is still an error at its place.)
    with deadline(40, "a forkserver DataLoader"):
        loader = DataLoader(list(range(4)), batch_size=1, num_workers=1, multiprocessing_context="forkserver",
                            persistent_workers=True, collate_fn=_unpicklable_at_one, timeout=20)
        it = iter(loader)
        assert next(it) == [0]
        time.sleep(1.6)
        out = _outcomes(it)
        assert "pickle" in out[0][1] and out[1:] == [[2], [3], "stop"]
        time.sleep(1.6)
        out = _outcomes(iter(loader))
        assert out[0] == [0] and "pickle" in out[1][1] and out[2:] == [[2], [3], "stop"]


_KILLS_ITSELF = """
import multiprocessing, os, signal, sys
from minigrad_ckpt.utils.data import DataLoader
if __name__ == "__main__":
    multiprocessing.set_forkserver_preload(["minigrad_ckpt.utils.data"])  # (imported once, not per worker)
    it = iter(DataLoader(list(range(8)), num_workers=2, multiprocessing_context="forkserver"))
    next(it)
    print(*[p.pid for p in multiprocessing.active_children() if p.name.startswith("dataloader")], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_forkserver_workers_end_with_a_killed_main_process(tmp_path):
    # each forkserver worker holds the pipe whose end would end the fork server, so neither is ever
    # orphaned: they waited for batches forever after the main process was killed
    import subprocess
    import sys

    script, out = tmp_path / "kills_itself.py", tmp_path / "pids.txt"
    script.write_text(_KILLS_ITSELF)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(out, "w") as f:  # (a file, not a pipe: the workers hold it open)
        proc = subprocess.Popen([sys.executable, str(script)], stdout=f, env=env, start_new_session=True)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    pids = [int(p) for p in out.read_text().split()]
    assert len(pids) == 2
    end = time.monotonic() + 8
    while any(map(_alive, pids)) and time.monotonic() < end:
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for pid in left:  # (never leave them behind, even when the test fails)
        os.kill(pid, signal.SIGKILL)
    assert not left, "the workers outlived the killed main process"
