"""Record the dtype of ``state["step"]`` PyTorch keeps for a group stepped by its fused kernels
(``fused=True``: float32, whatever the default dtype) and what ``load_state_dict`` makes of a saved
step when the saved group is fused or capturable (float32) or neither (kept as saved), under a
float64 default dtype.  ``python tests/data/make_torch_optim_fused_step_dtype.py`` writes
``tests/data/torch_optim_fused_step_dtype.json`` (needs torch; the tests do not, and import the inputs from here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FUSED = ("Adam", "AdamW", "Adagrad")  # PyTorch's optimizers with a step count and fused kernels


def stepped(optim, lib, name: str, dtype: str, **options):
    p = lib.tensor(np.array([1.0, -2.0, 3.0], dtype=dtype), requires_grad=True)
    opt = getattr(optim, name)([p], lr=0.1, **options)
    p.grad = lib.tensor(np.array([0.5, 0.25, -1.0], dtype=dtype))
    opt.step()
    return opt, p


def step_dtypes(optim, lib) -> dict:
    """The step's dtype: after a fused step; after loading a saved group marked fused, capturable or neither."""
    out = {}
    for name in FUSED:
        for dtype in ("float64", "float32"):
            opt, _ = stepped(optim, lib, name, dtype, fused=True)
            out[f"{name}/{dtype}/fused"] = str(opt.state_dict()["state"][0]["step"].dtype).split(".")[-1]
            for flag in ("fused", "capturable", "neither"):
                plain, _ = stepped(optim, lib, name, dtype)
                saved = plain.state_dict()
                if flag != "neither":
                    saved["param_groups"][0][flag] = True
                fresh, q = stepped(optim, lib, name, dtype)
                fresh.load_state_dict(saved)
                out[f"{name}/{dtype}/load {flag}"] = str(fresh.state[q]["step"].dtype).split(".")[-1]
    return out


def main() -> None:
    import torch

    torch.set_default_dtype(torch.float64)
    out = {"torch": torch.__version__, "step_dtypes": step_dtypes(torch.optim, torch)}
    (HERE / "torch_optim_fused_step_dtype.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
