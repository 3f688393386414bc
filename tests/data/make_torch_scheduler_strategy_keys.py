"""Regenerate ``tests/data/torch_scheduler_strategy_keys.json``: the state dicts of PyTorch's
``OneCycleLR`` and ``SWALR``, which keep the annealing strategy under their own keys
(``_anneal_func_type``, ``_anneal_strategy``), and the learning rates a scheduler built with the
other strategy takes after loading one.

    python tests/data/make_torch_scheduler_strategy_keys.py        # needs torch; the tests do not

Each case: SGD (lr 0.1, momentum 0.9) on one parameter, the scheduler built with
``anneal_strategy="linear"``, two steps, its ``state_dict()`` (the JSON-able entries); then a
second SGD whose scheduler is built with ``"cos"`` loads that state dict (and the first
optimizer's lr and momentum) and both step six more times; stored are the lrs of the loading one.
``tests/test_scheduler_strategy_keys.py`` replays every case with minigrad_ckpt.
The file name does not start with ``test_`` so pytest never collects it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
from torch.optim import lr_scheduler as L
from torch.optim import swa_utils as S

CASES = {  # the same constructor calls are spelled in the test
    "OneCycleLR": lambda o, strategy: L.OneCycleLR(o, 0.5, total_steps=10, anneal_strategy=strategy,
                                                   three_phase=True),
    "SWALR": lambda o, strategy: S.SWALR(o, swa_lr=0.02, anneal_epochs=5, anneal_strategy=strategy),
}


def sgd():
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1, momentum=0.9)


def run(make):
    o = sgd()
    s = make(o, "linear")
    for _ in range(2):
        o.step()
        s.step()
    state = {k: v for k, v in s.state_dict().items() if isinstance(v, (int, float, str, bool, list))}
    o2 = sgd()
    s2 = make(o2, "cos")
    s2.load_state_dict(s.state_dict())
    o2.param_groups[0].update(lr=o.param_groups[0]["lr"], momentum=o.param_groups[0]["momentum"])
    lrs = []
    for _ in range(6):
        o2.step()
        s2.step()
        lrs.append(o2.param_groups[0]["lr"])
    return {"state_dict": state, "lrs": lrs}


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    out = {name: run(make) for name, make in CASES.items()}
    path = Path(__file__).with_name("torch_scheduler_strategy_keys.json")
    path.write_text(json.dumps({"torch": torch.__version__, "cases": out}, indent=1) + "\n")
