"""Regenerate ``tests/data/ported_mixture_density_network_reference.npz``:
``examples/ported/mixture_density_network.py`` run as a torch program (its source with the rename
undone, ``make_ported_reference.as_torch_program``).

    python tests/data/make_ported_mixture_density_network.py        # needs torch; the tests do not

Stored per run: the starting weights (``mdn_f64|init|model|<name>``; every run starts from them,
the float32 one rounded), the draws of ``torch.multinomial`` and ``torch.normal`` in order
(``<run>|draw|<i>``, their names in ``<run>|draw_fns``), ``main``'s history (the losses, two
held-out likelihoods, the samples) and the final weights (``<run>|final|model|<name>``).
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

OUT = HERE / "ported_mixture_density_network_reference.npz"
RUNS = {"mdn_f64": ["--double"], "mdn_dist_f64": ["--double", "--use-distributions"], "mdn_f32": []}
DRAWS = ("multinomial", "normal")


def record(run: str, argv: list[str], arrays: dict[str, np.ndarray]) -> None:
    module = as_torch_program("mixture_density_network")
    draws: list[tuple[str, np.ndarray]] = []
    originals = {fn: getattr(torch, fn) for fn in DRAWS}

    def recording(fn):
        def draw(*args, **kwargs):
            out = originals[fn](*args, **kwargs)
            draws.append((fn, out.detach().numpy().copy()))
            return out
        return draw

    def init(key, model):
        if run != "mdn_f64":  # the other runs start from the first one's weights
            model.load_state_dict({k.split("|")[-1]: torch.from_numpy(v) for k, v in arrays.items()
                                   if k.startswith("mdn_f64|init|")})
            return
        for name, value in model.state_dict().items():
            arrays[f"{run}|init|{key}|{name}"] = value.detach().numpy().copy()

    for fn in DRAWS:
        setattr(torch, fn, recording(fn))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            history, model = module.main(argv, init=init)
    finally:
        for fn, original in originals.items():
            setattr(torch, fn, original)
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    arrays[f"{run}|draw_fns"] = np.array([fn for fn, _ in draws])
    for i, (_, value) in enumerate(draws):
        arrays[f"{run}|draw|{i}"] = value
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
