"""DataLoader workers seed NumPy's global generator as torch 2.13's do:
``np.random.seed(_generate_state(base_seed, worker_id))``.

They did not seed it at all: every worker forked from the main process inherited its NumPy
state, so with ``num_workers=2`` both workers drew the same NumPy numbers (a random crop or
flip done with ``np.random`` was the same for batch 0 and 1, 2 and 3, ...) and every epoch drew
those numbers again.  torch's seed words and draws are in ``tests/data/torch_worker_numpy_seed.json``
(``tests/data/make_torch_worker_numpy_seed.py``); torch is not imported.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, Dataset, get_worker_info, workers

TORCH = json.loads((Path(__file__).parent / "data" / "torch_worker_numpy_seed.json").read_text())


class _Draws(Dataset):
    """Each sample: a NumPy draw and the worker that made it (its seed and id)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return int(np.random.randint(0, 2**31)), info.seed, info.id


@pytest.mark.parametrize("case", TORCH["seeds"], ids=lambda c: f"{c['base_seed']}-{c['worker_id']}")
def test_the_seed_words_are_torchs(case):
    state = workers.numpy_seed_state(case["base_seed"], case["worker_id"])
    assert state == case["state"]
    assert np.random.RandomState(state).randint(0, 2**31, size=4).tolist() == case["draws"]


def _epoch(loader):
    return [(int(d), int(s), int(w)) for d, s, w in loader]


@pytest.mark.parametrize("persistent", [False, True])
def test_workers_and_epochs_draw_apart_from_the_seed_torch_gives_them(persistent):
    mg.manual_seed(0)
    np.random.seed(0)
    loader = DataLoader(_Draws(), batch_size=None, num_workers=2, persistent_workers=persistent)
    epochs = [_epoch(loader), _epoch(loader)]
    draws = [[d for d, _, _ in e] for e in epochs]
    assert all(a != b for a, b in zip(draws[0][0::2], draws[0][1::2])) == TORCH["workers_draw_apart"] is True
    assert (draws[0] != draws[1]) == TORCH["epochs_draw_apart"] is True
    for epoch in epochs if not persistent else epochs[:1]:
        for wid in (0, 1):
            mine = [(d, s) for d, s, w in epoch if w == wid]
            seed = mine[0][1]
            want = np.random.RandomState(workers.numpy_seed_state((seed - wid) % 2**64, wid)).randint(0, 2**31, size=4)
            assert [d for d, _ in mine] == want.tolist()


def test_a_worker_init_fn_that_seeds_numpy_has_the_last_word():
    def init(worker_id):
        np.random.seed(100 + worker_id)

    mg.manual_seed(0)
    got = _epoch(DataLoader(_Draws(), batch_size=None, num_workers=2, worker_init_fn=init))
    for wid in (0, 1):
        want = np.random.RandomState(100 + wid).randint(0, 2**31, size=4).tolist()
        assert [d for d, _, w in got if w == wid] == want
