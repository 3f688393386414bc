"""Record PyTorch's refusals of learning-rate schedulers' arguments: each case's exception type and
message.  ``python tests/data/make_torch_scheduler_errors.py`` writes ``tests/data/torch_scheduler_errors.json``
(needs torch; the tests do not, and import the cases from here)."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _sgd(optim, tensor, groups=1, **kw):
    return optim.SGD([{"params": [tensor([1.0], requires_grad=True)], "lr": 0.1} for _ in range(groups)], **kw)


def _overstep(S, o):
    s = S.OneCycleLR(o, 1.0, total_steps=2)
    for _ in range(3):
        o.step()
        s.step()


def _plateau_after_a_new_group(S, o, tensor):
    s = S.ReduceLROnPlateau(o, patience=0, min_lr=[0.0, 0.0])
    s.step(1.0)
    o.add_param_group({"params": [tensor([1.0], requires_grad=True)]})
    s.step(2.0)  # a bad epoch: the reduction needs a min_lr per group


# name -> case(S, optim, tensor): lr_scheduler S, optim module, tensor constructor; each raises
CASES = {
    "not_an_optimizer": lambda S, optim, t: S.StepLR("sgd", 2),
    "plateau_not_an_optimizer": lambda S, optim, t: S.ReduceLROnPlateau(None),
    "cyclic_not_an_optimizer": lambda S, optim, t: S.CyclicLR([], 0.1, 1.0),
    "onecycle_not_an_optimizer": lambda S, optim, t: S.OneCycleLR(3, 1.0, total_steps=2),
    "lambda_count": lambda S, optim, t: S.LambdaLR(_sgd(optim, t, 2), [lambda e: 1.0]),
    "multiplicative_count": lambda S, optim, t: S.MultiplicativeLR(_sgd(optim, t, 2), [lambda e: 1.0] * 3),
    "multiplicative_not_callable": lambda S, optim, t: S.MultiplicativeLR(_sgd(optim, t), 0.9),
    "constant_factor": lambda S, optim, t: S.ConstantLR(_sgd(optim, t), factor=1.5),
    "linear_start": lambda S, optim, t: S.LinearLR(_sgd(optim, t), start_factor=0),
    "linear_end": lambda S, optim, t: S.LinearLR(_sgd(optim, t), end_factor=1.5),
    "warm_restarts_T_0": lambda S, optim, t: S.CosineAnnealingWarmRestarts(_sgd(optim, t), 0),
    "warm_restarts_float_T_0": lambda S, optim, t: S.CosineAnnealingWarmRestarts(_sgd(optim, t), 2.0),
    "warm_restarts_T_mult": lambda S, optim, t: S.CosineAnnealingWarmRestarts(_sgd(optim, t), 2, 0),
    "warm_restarts_negative_epoch": lambda S, optim, t: S.CosineAnnealingWarmRestarts(_sgd(optim, t), 2).step(-1),
    "onecycle_no_length": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0),
    "onecycle_total_steps": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0, total_steps=0),
    "onecycle_epochs": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0, epochs=2.0,
                                                        steps_per_epoch=3),
    "onecycle_steps_per_epoch": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0, epochs=2,
                                                                 steps_per_epoch=-1),
    "onecycle_pct_start": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0, total_steps=5,
                                                           pct_start=1.5),
    "onecycle_anneal": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, momentum=0.9), 1.0, total_steps=5,
                                                        anneal_strategy="step"),
    "onecycle_no_momentum": lambda S, optim, t: S.OneCycleLR(
        optim.Adagrad([t([1.0], requires_grad=True)]), 1.0, total_steps=5),
    "onecycle_max_lr_count": lambda S, optim, t: S.OneCycleLR(_sgd(optim, t, 2, momentum=0.9), [1.0],
                                                              total_steps=5),
    "onecycle_overstep": lambda S, optim, t: _overstep(S, _sgd(optim, t, momentum=0.9)),
    "cyclic_mode": lambda S, optim, t: S.CyclicLR(_sgd(optim, t, momentum=0.9), 0.1, 1.0, mode="sine"),
    "cyclic_no_momentum": lambda S, optim, t: S.CyclicLR(optim.Adagrad([t([1.0], requires_grad=True)]), 0.1, 1.0),
    "cyclic_base_lr_count": lambda S, optim, t: S.CyclicLR(_sgd(optim, t, 2, momentum=0.9), [0.1, 0.2, 0.3], 1.0),
    "sequential_empty": lambda S, optim, t: S.SequentialLR(_sgd(optim, t), [], []),
    "sequential_milestones": lambda S, optim, t: (lambda o: S.SequentialLR(
        o, [S.StepLR(o, 2), S.StepLR(o, 3)], [1, 2]))(_sgd(optim, t)),
    "sequential_plateau": lambda S, optim, t: (lambda o: S.SequentialLR(
        o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], [1]))(_sgd(optim, t)),
    "sequential_other_optimizer": lambda S, optim, t: (lambda o: S.SequentialLR(
        o, [S.StepLR(o, 2), S.StepLR(_sgd(optim, t), 3)], [1]))(_sgd(optim, t)),
    "sequential_no_optimizer": lambda S, optim, t: (lambda o: S.SequentialLR(
        o, [S.StepLR(o, 2), object()], [1]))(_sgd(optim, t)),
    "chained_empty": lambda S, optim, t: S.ChainedScheduler([]),
    "chained_plateau": lambda S, optim, t: (lambda o: S.ChainedScheduler(
        [S.StepLR(o, 2), S.ReduceLROnPlateau(o)]))(_sgd(optim, t)),
    "chained_other_optimizer": lambda S, optim, t: S.ChainedScheduler(
        [S.StepLR(_sgd(optim, t), 2), S.StepLR(_sgd(optim, t), 3)]),
    "plateau_factor": lambda S, optim, t: S.ReduceLROnPlateau(_sgd(optim, t), factor=1.0),
    "plateau_mode": lambda S, optim, t: S.ReduceLROnPlateau(_sgd(optim, t), mode="lowest"),
    "plateau_threshold_mode": lambda S, optim, t: S.ReduceLROnPlateau(_sgd(optim, t), threshold_mode="ratio"),
    "plateau_min_lr_count": lambda S, optim, t: S.ReduceLROnPlateau(_sgd(optim, t), min_lr=[0.1, 0.2]),
    "plateau_new_group": lambda S, optim, t: _plateau_after_a_new_group(S, _sgd(optim, t, 2), t),
    "swalr_lr_count": lambda S, optim, t: optim.swa_utils.SWALR(_sgd(optim, t, 2), swa_lr=[0.1]),
    "swalr_anneal": lambda S, optim, t: optim.swa_utils.SWALR(_sgd(optim, t), swa_lr=0.1, anneal_strategy="step"),
}


def refusals(S, optim, tensor) -> dict:
    """Each case's ``[exception type, message]`` (warnings of the runs left aside)."""
    import warnings

    out = {}
    for name, case in CASES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                case(S, optim, tensor)
                out[name] = None
            except Exception as e:  # noqa: BLE001 (the point: which exception, with which words)
                out[name] = [type(e).__name__, str(e)]
    return out


def main() -> None:
    import torch

    out = {"torch": torch.__version__, "refusals": refusals(torch.optim.lr_scheduler, torch.optim, torch.tensor)}
    (HERE / "torch_scheduler_errors.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
