"""Regenerate ``tests/data/ported_makemore_<part>_reference.npz``: PyTorch's runs of the makemore ports
(``examples/ported/makemore_*.py``, Karpathy's "Neural Networks: Zero to Hero" notebooks), read from the
ported source with the rename undone as ``make_ported_reference.py`` runs its programs.  Their weights are
the programs' own ``torch.randn(..., generator=g)`` draws, recorded here with the minibatches'
``randint`` and the samples' ``multinomial`` draws (``<run>|draw|<i>``) for the test to replay; stored too:
``main``'s history (``<run>|history``), the tensors it returns (each step's gradients, the final weights:
``<run>|t|<name>``) and the command line (``<run>|argv``).

    python tests/data/make_ported_makemore.py        # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
RUNS = {  # program: {run: argv}; tests/test_ported_makemore.py replays each
    "makemore_bigram": {"f32": [], "f64": ["--double"]},
    "makemore_mlp": {"f32": [], "f64": ["--double"]},
    "makemore_batchnorm": {"f32": [], "f64": ["--double"]},
    "makemore_backprop": {"f32": [], "f64": ["--double"]},
    "makemore_wavenet": {"f32": [], "f64": ["--double"]},
}
DRAWS = ("randn", "rand", "randint", "multinomial")


def record(run: str, program: str, argv: list[str], arrays: dict) -> None:
    import torch
    from make_ported_reference import as_torch_program

    module = as_torch_program(program)
    draws: list[tuple[str, np.ndarray]] = []
    originals = {fn: getattr(torch, fn) for fn in DRAWS}

    def recording(fn):
        def draw(*args, **kwargs):
            out = originals[fn](*args, **kwargs)
            draws.append((fn, out.detach().numpy().copy()))
            return out
        return draw

    for fn in DRAWS:
        setattr(torch, fn, recording(fn))
    try:
        history, tensors = module.main(argv)
    finally:
        for fn, original in originals.items():
            setattr(torch, fn, original)
    arrays[f"{run}|argv"] = np.array(argv or [""])
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    arrays[f"{run}|draw_fns"] = np.array([fn for fn, _ in draws] or [""])
    for i, (_, value) in enumerate(draws):
        arrays[f"{run}|draw|{i}"] = value
    for name, value in tensors.items():
        arrays[f"{run}|t|{name}"] = value.detach().numpy().copy()


def main() -> None:
    import sys

    import torch

    sys.path.insert(0, str(HERE))
    torch.set_num_threads(1)
    for program, runs in RUNS.items():
        arrays: dict[str, np.ndarray] = {}
        for run, argv in runs.items():
            torch.manual_seed(0)
            record(run, program, argv, arrays)
        out = HERE / f"ported_{program}_reference.npz"
        np.savez_compressed(out, **arrays)
        print(f"wrote {out} ({out.stat().st_size} bytes, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()
