"""Regenerate ``tests/data/ported_swin_block_reference.npz``: ``examples/ported/swin_block.py`` run
as a torch program (its source with the rename undone, ``make_ported_reference.as_torch_program``).

    python tests/data/make_ported_swin_block.py        # needs torch; the tests do not

Stored per run (float64 and float32): the starting weights (``swin_f64|init|model|<name>``; the
float32 run starts from them, rounded), the masks
``DropPath`` drew with ``x.new_empty(shape).bernoulli_(keep)`` in order (``<run>|bernoulli|<i>``: the
test writes them back in the same order), ``main``'s history (loss, gradient norm and learning rate
per step, then an eval output) and the final weights (``<run>|final|model|<name>``).
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from make_ported_reference import as_torch_program  # noqa: E402

OUT = HERE / "ported_swin_block_reference.npz"
RUNS = {"swin_f64": ["--double"], "swin_f32": []}


def record(run: str, argv: list[str], arrays: dict[str, np.ndarray]) -> None:
    module = as_torch_program("swin_block")
    masks: list[np.ndarray] = []
    bernoulli_ = torch.Tensor.bernoulli_

    def recording(self, *args, **kwargs):
        out = bernoulli_(self, *args, **kwargs)
        masks.append(out.numpy().copy())
        return out

    def init(key, model):
        if run != "swin_f64":  # the float32 run starts from the float64 run's weights, rounded
            start = {k.split("|")[-1]: torch.from_numpy(v) for k, v in arrays.items() if k.startswith("swin_f64|init|")}
            model.load_state_dict(start)
            return
        for name, value in model.state_dict().items():
            arrays[f"{run}|init|{key}|{name}"] = value.detach().numpy().copy()

    torch.Tensor.bernoulli_ = recording
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            history, model = module.main(argv, init=init)
    finally:
        torch.Tensor.bernoulli_ = bernoulli_
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    for i, mask in enumerate(masks):
        arrays[f"{run}|bernoulli|{i}"] = mask
    for name, value in model.state_dict().items():
        arrays[f"{run}|final|model|{name}"] = value.detach().numpy().copy()


if __name__ == "__main__":
    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    for run, argv in RUNS.items():
        torch.manual_seed(0)
        record(run, argv, arrays)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(arrays)} arrays)")
