"""``mg.optim.optimizer.required``, PyTorch's sentinel for a hyper-parameter with no default, in a
subclass of ``mg.optim.Optimizer``, against torch 2.13's answers recorded by
``tests/data/make_torch_optimizer_required.py`` (the test never imports torch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.optim.optimizer import Optimizer, required

TORCH = json.loads((Path(__file__).resolve().parent / "data" / "torch_optimizer_required.json").read_text())


class NeedsLr(Optimizer):
    def __init__(self, params, lr=required, momentum=0.0):
        super().__init__(params, {"lr": lr, "momentum": momentum})

    @mg.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])


def _outcome(build):
    try:
        return {"lrs": [g["lr"] for g in build().param_groups]}
    except Exception as exc:  # noqa: BLE001 -- the error is the answer
        return {"error": type(exc).__name__, "message": str(exc)}


def _builds(p, q):
    return {
        "no_lr": lambda: NeedsLr([p]),
        "lr_given": lambda: NeedsLr([p], lr=0.5),
        "each_group_gives_lr": lambda: NeedsLr([{"params": [p], "lr": 0.1}, {"params": [q], "lr": 0.2}]),
        "one_group_lacks_lr": lambda: NeedsLr([{"params": [p], "lr": 0.1}, {"params": [q]}]),
    }


@pytest.mark.parametrize("case", ["no_lr", "lr_given", "each_group_gives_lr", "one_group_lacks_lr"])
def test_required_hyper_parameter_matches_torch(case):
    # before: `from minigrad_ckpt.optim.optimizer import required` was an ImportError
    p, q = mg.ones(1, requires_grad=True), mg.ones(1, requires_grad=True)
    assert _outcome(_builds(p, q)[case]) == TORCH[case]


def test_required_repr_and_a_later_group():
    # a group added later takes the constructor's lr, as in torch; with no lr anywhere it is refused
    assert repr(required) == TORCH["repr"]
    p, q, r = (mg.ones(1, requires_grad=True) for _ in range(3))
    opt = NeedsLr([p], lr=0.5)
    opt.add_param_group({"params": [q]})
    assert opt.param_groups[1]["lr"] == 0.5
    (p * 2).sum().backward()
    opt.step()
    assert p.tolist() == [0.0]
    bare = NeedsLr([{"params": [p], "lr": 0.1}])
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        bare.add_param_group({"params": [r]})
