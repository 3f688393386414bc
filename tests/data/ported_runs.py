"""Recording a ported program's torch runs (needs torch; the tests use ``ported_check.py``).

``record_runs(program, runs, out)`` runs ``examples/ported/<program>.py`` as a torch program
(``make_ported_reference.as_torch_program``: its source with the rename undone) once per entry of
``runs`` (``{run: argv}``), each from ``torch.manual_seed(0)``, and writes ``out`` with:

- ``<first run>|init|<key>|<name>``: the weights each model starts from (``main`` calls
  ``init(key, model)`` on each model it builds); every other run loads these (float32: rounded);
- ``<run>|draw|<i>`` and ``<run>|draw_fns``: what the torch functions named in ``draws`` (and the
  ``Tensor`` methods in ``tensor_draws``, as ``"Tensor.<name>"``) drew, in order, for the test to replay;
- ``<run>|history``: what ``main`` returned first; ``<run>|final|<key>|<name>``: the final weights.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from make_ported_reference import as_torch_program  # noqa: E402


def _recording(owner, name, label, drawn):
    original = getattr(owner, name)

    def draw(*args, **kwargs):
        out = original(*args, **kwargs)
        drawn.append((label, out.detach().numpy().copy()))
        return out

    return original, draw


def _record(program, run, argv, first, arrays, draws, tensor_draws):
    module = as_torch_program(program)
    drawn: list[tuple[str, np.ndarray]] = []
    keys: list[str] = []
    patched = [(torch, fn, fn) for fn in draws] + [(torch.Tensor, fn, f"Tensor.{fn}") for fn in tensor_draws]
    originals = [(owner, name, *_recording(owner, name, label, drawn)) for owner, name, label in patched]

    def init(key, model):
        keys.append(key)
        prefix = f"{first}|init|{key}|"
        if run != first:
            model.load_state_dict({k[len(prefix):]: torch.from_numpy(v) for k, v in arrays.items()
                                   if k.startswith(prefix)})
            return
        for name, value in model.state_dict().items():
            arrays[prefix + name] = value.detach().numpy().copy()

    for owner, name, _, draw in originals:
        setattr(owner, name, draw)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            history, models = module.main(argv, init=init)
    finally:
        for owner, name, original, _ in originals:
            setattr(owner, name, original)
    arrays[f"{run}|history"] = np.array(history, dtype=np.float64)
    arrays[f"{run}|draw_fns"] = np.array([label for label, _ in drawn] or [""])
    for i, (_, value) in enumerate(drawn):
        arrays[f"{run}|draw|{i}"] = value
    for key, model in zip(keys, models if isinstance(models, tuple) else (models,)):
        for name, value in model.state_dict().items():
            arrays[f"{run}|final|{key}|{name}"] = value.detach().numpy().copy()


def record_runs(program: str, runs: dict[str, list[str]], out: Path, *, draws: tuple[str, ...] = (),
                tensor_draws: tuple[str, ...] = ()) -> None:
    torch.set_num_threads(1)
    arrays: dict[str, np.ndarray] = {}
    first = next(iter(runs))
    for run, argv in runs.items():
        torch.manual_seed(0)
        _record(program, run, argv, first, arrays, draws, tensor_draws)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({out.stat().st_size} bytes, {len(arrays)} arrays)")
