"""Record what PyTorch does with ``torch.optim.optimizer.required``, the sentinel for a
hyper-parameter with no default, in a subclass of ``Optimizer``:
``python tests/data/make_torch_optimizer_required.py`` writes
``tests/data/torch_optimizer_required.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch.optim.optimizer import Optimizer, required

HERE = Path(__file__).resolve().parent


class NeedsLr(Optimizer):
    def __init__(self, params, lr=required, momentum=0.0):
        super().__init__(params, {"lr": lr, "momentum": momentum})


def outcome(build):
    try:
        return {"lrs": [g["lr"] for g in build().param_groups]}
    except Exception as exc:  # noqa: BLE001 -- the error is the answer
        return {"error": type(exc).__name__, "message": str(exc)}


def main() -> None:
    p, q = torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
    out = {
        "torch": torch.__version__,
        "repr": repr(required),
        "no_lr": outcome(lambda: NeedsLr([p])),
        "lr_given": outcome(lambda: NeedsLr([p], lr=0.5)),
        "each_group_gives_lr": outcome(lambda: NeedsLr([{"params": [p], "lr": 0.1}, {"params": [q], "lr": 0.2}])),
        "one_group_lacks_lr": outcome(lambda: NeedsLr([{"params": [p], "lr": 0.1}, {"params": [q]}])),
    }
    (HERE / "torch_optimizer_required.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
