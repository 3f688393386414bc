"""PyTorch 2.13's ``torch.random.thread_safe_generator()`` (also ``torch.thread_safe_generator``) and
``WorkerInfo.worker_method``/``rng``: a transform written for thread workers asks for the worker's
generator and passes it on as ``generator=``.  Workers here are processes drawing from the engine's
generator, seeded per worker, so the answer is ``None`` everywhere -- as PyTorch's in its process
workers and in the main process -- and such code ran into AttributeError.
Worker tests start processes: each runs under a deadline."""

from __future__ import annotations

from timeouts import deadline

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, Dataset, get_worker_info


class Shifted(Dataset):
    """torch's documented transform: an offset drawn from ``thread_safe_generator()``."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        offset = mg.randint(0, 10, (1,), generator=mg.random.thread_safe_generator())
        return mg.tensor([i, info.worker_method == "multiprocessing", info.rng is None, int(offset.item()) < 10])


def test_thread_safe_generator_is_none_in_the_main_process():
    assert mg.random.thread_safe_generator() is None
    assert mg.thread_safe_generator is mg.random.thread_safe_generator


def test_process_workers_answer_none_and_name_their_method():
    with deadline(120):
        rows = [row for batch in DataLoader(Shifted(), batch_size=2, num_workers=2) for row in batch.tolist()]
    assert rows == [[i, 1, 1, 1] for i in range(4)]

