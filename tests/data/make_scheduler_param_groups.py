"""Regenerate ``tests/data/scheduler_param_groups.json``: PyTorch's learning rates when a
parameter group is added to the optimizer after its scheduler was built.

    python tests/data/make_scheduler_param_groups.py        # needs torch; the tests do not

Each case: SGD with two groups (lr 0.05 and 0.1), the scheduler, two steps, then
``add_param_group({"params": [p], "lr": 0.4})`` and four more steps; stored are the
groups' lrs after each of those steps, or the type of the error PyTorch raises.
``tests/test_optim_param_groups.py`` replays every case with minigrad_ckpt.
The file name does not start with ``test_`` so pytest never collects it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
from torch.optim import lr_scheduler as L

CASES = {  # the same constructor calls are spelled in the test
    "StepLR": lambda o: L.StepLR(o, 2, 0.5),
    "MultiStepLR": lambda o: L.MultiStepLR(o, [1, 3], 0.5),
    "ExponentialLR": lambda o: L.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, 5, 0.001),
    "LinearLR": lambda o: L.LinearLR(o, 0.5, 1.0, 4),
    "LambdaLR": lambda o: L.LambdaLR(o, lambda e: 0.9**e),
    "CosineAnnealingWarmRestarts": lambda o: L.CosineAnnealingWarmRestarts(o, 2, 2, 0.001),
    "OneCycleLR": lambda o: L.OneCycleLR(o, 1.0, total_steps=10),
    "SequentialLR": lambda o: L.SequentialLR(o, [L.ExponentialLR(o, 0.9), L.StepLR(o, 2, 0.5)], [2]),
    "ReduceLROnPlateau(min_lr=0)": lambda o: L.ReduceLROnPlateau(o, factor=0.5, patience=0, min_lr=0),
    "ReduceLROnPlateau(min_lr=[0.001, 0.001])": lambda o: L.ReduceLROnPlateau(o, factor=0.5, patience=0,
                                                                              min_lr=[0.001, 0.001]),
}


def run(make):
    p = [torch.nn.Parameter(torch.zeros(1)) for _ in range(3)]
    o = torch.optim.SGD([{"params": [p[0]], "lr": 0.05}, {"params": [p[1]], "lr": 0.1}], lr=0.1, momentum=0.9)
    s = make(o)
    plateau = isinstance(s, L.ReduceLROnPlateau)
    for metric in (1.0, 2.0):  # plateau: one improvement, then a bad epoch
        s.step(metric) if plateau else s.step()
    o.add_param_group({"params": [p[2]], "lr": 0.4})
    lrs = []
    try:
        for _ in range(4):
            s.step(2.0) if plateau else s.step()
            lrs.append([g["lr"] for g in o.param_groups])
    except Exception as e:  # noqa: BLE001 -- PyTorch's answer is the error
        return {"error": type(e).__name__, "lrs": lrs}
    return {"lrs": lrs}


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    out = {name: run(make) for name, make in CASES.items()}
    path = Path(__file__).with_name("scheduler_param_groups.json")
    path.write_text(json.dumps({"torch": torch.__version__, "cases": out}, indent=1) + "\n")
    print(f"wrote {path}")
