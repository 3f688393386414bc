"""Record PyTorch's learning rates for a ``SequentialLR`` holding schedulers of schedulers -- another
``SequentialLR``, a ``ChainedScheduler`` -- whose construction takes back the schedulers' first
steps by PyTorch's ``recursive_undo`` (a scheduler of schedulers keeps its own epoch).
``python tests/data/make_torch_nested_sequential_lr.py`` writes ``tests/data/torch_nested_sequential_lr.json``
(needs torch; the tests do not, and import the inputs from here)."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = 12
LRS = (0.1, 0.2)  # two parameter groups


def _inner(S, o):
    return S.SequentialLR(o, [S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.8)], milestones=[2])


def _chained(S, o):
    return S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.8)])


# name -> the scheduler of lr_scheduler module S on optimizer o
SCHEDULES = {
    "sequential_first": lambda S, o: S.SequentialLR(o, [_inner(S, o), S.CosineAnnealingLR(o, 4, 0.01)], [4]),
    "sequential_first_then_steps": lambda S, o: S.SequentialLR(o, [_inner(S, o), S.MultiStepLR(o, [1, 3, 3])], [4]),
    "sequential_of_three": lambda S, o: S.SequentialLR(
        o, [_inner(S, o), S.ConstantLR(o, 0.3, 2), S.CosineAnnealingLR(o, 3)], [3, 7]),
    "chained_first": lambda S, o: S.SequentialLR(o, [_chained(S, o), S.PolynomialLR(o, 6, 2.0)], [4]),
}


def run(lr_scheduler, optimizer, tensor) -> dict:
    """Each schedule's lrs (both groups) after construction and after each of ``STEPS`` steps."""
    out = {}
    for name, build in SCHEDULES.items():
        groups = [{"params": [tensor([1.0], requires_grad=True)], "lr": lr} for lr in LRS]
        opt = optimizer(groups, lr=LRS[0], momentum=0.9)
        sched = build(lr_scheduler, opt)
        lrs = [[g["lr"] for g in opt.param_groups]]
        for _ in range(STEPS):
            opt.step()
            sched.step()
            lrs.append([g["lr"] for g in opt.param_groups])
        out[name] = lrs
    return out


def main() -> None:
    import torch

    out = {"torch": torch.__version__, "lrs": run(torch.optim.lr_scheduler, torch.optim.SGD, torch.tensor)}
    (HERE / "torch_nested_sequential_lr.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
