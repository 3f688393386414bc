"""Record what PyTorch's optimizer state dicts do with a state entry filed under a key that is not a
parameter (``optimizer.state["global_step"] = 7``, as some hand-written optimizers keep a count):
``state_dict()`` keeps it under its key and ``load_state_dict`` puts it back.
``python tests/data/make_torch_optim_other_state.py`` writes ``tests/data/torch_optim_other_state.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def main() -> None:
    p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = torch.ones(3)
    opt.step()
    opt.state["global_step"] = 7
    opt.state["schedule"] = {"phase": "warmup", "seen": [1, 2]}
    sd = opt.state_dict()
    q = torch.zeros(3, requires_grad=True)
    other = torch.optim.SGD([q], lr=0.1, momentum=0.9)
    other.load_state_dict(sd)
    out = {
        "torch": torch.__version__,
        "saved_keys": sorted(map(str, sd["state"])),
        "saved_global_step": sd["state"]["global_step"],
        "saved_schedule": sd["state"]["schedule"],
        "loaded_non_param": {k: v for k, v in other.state.items() if isinstance(k, str)},
        "loaded_momentum": other.state[q]["momentum_buffer"].tolist(),
    }
    (HERE / "torch_optim_other_state.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
