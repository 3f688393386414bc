"""Record how torch 2.13's DataLoader workers seed NumPy's global generator: each worker calls
``np.random.seed(_generate_state(base_seed, worker_id))`` (``torch/utils/data/_utils/worker.py``),
so that workers forked from one process draw different NumPy numbers, and other ones each epoch.
The seed words for a few ``(base_seed, worker_id)`` pairs and NumPy's first draws after seeding
with them; and, from a real 2-worker DataLoader, whether its workers' NumPy draws differ.
``python tests/data/make_torch_worker_numpy_seed.py`` writes ``tests/data/torch_worker_numpy_seed.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PAIRS = [(0, 0), (0, 1), (1, 0), (12345, 3), (2**32 - 1, 7), (2**32, 0), (2**63 - 1, 2), (0x9E3779B97F4A7C15, 5),
         (8155737614413339434, 1)]


class _Draws:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return int(np.random.randint(0, 2**31))


def main() -> None:
    import torch
    from torch.utils.data import DataLoader
    from torch.utils.data._utils.worker import _generate_state

    seeds = [{"base_seed": b, "worker_id": w, "state": _generate_state(b, w),
              "draws": np.random.RandomState(_generate_state(b, w)).randint(0, 2**31, size=4).tolist()}
             for b, w in PAIRS]
    torch.manual_seed(0)
    np.random.seed(0)
    epochs = [[int(x) for x in DataLoader(_Draws(), batch_size=1, num_workers=2)] for _ in range(2)]
    out = {"torch": torch.__version__, "seeds": seeds,
           "workers_draw_apart": all(a != b for a, b in zip(epochs[0][0::2], epochs[0][1::2])),
           "epochs_draw_apart": epochs[0] != epochs[1]}
    (HERE / "torch_worker_numpy_seed.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
