"""The optimizer step every optimizer shares (``Optimizer.step``): ``step(closure)``, per-parameter
state as PyTorch keeps it (``defaultdict(dict)`` keyed by parameter), and an optimizer written as
its initial state and one per-parameter rule (``init_state`` / ``update_one``)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim
from minigrad_ckpt.snapshot import Snapshot

ALL = {
    "SGD": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    "Adam": lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1),
    "AdamW": lambda ps: optim.AdamW(ps, lr=0.01, amsgrad=True),
    "RMSprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01),
    "Adamax": lambda ps: optim.Adamax(ps, lr=0.01),
    "NAdam": lambda ps: optim.NAdam(ps, lr=0.01, decoupled_weight_decay=True, weight_decay=0.1),
    "RAdam": lambda ps: optim.RAdam(ps, lr=0.01, weight_decay=0.1),
}

X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
Y = np.array([0.5, -1.0, 2.0, 0.0])


def _problem(seed: int = 0):
    rng = np.random.default_rng(seed)
    w = mg.tensor(rng.standard_normal(3), requires_grad=True)
    b = mg.tensor(rng.standard_normal(1), requires_grad=True)
    return w, b, lambda: (((mg.tensor(X) @ w + b) - mg.tensor(Y)) ** 2).mean()


@pytest.mark.parametrize("name", sorted(ALL))
def test_step_with_a_closure_is_the_step_after_its_backward(name) -> None:
    w, b, loss_fn = _problem()
    opt = ALL[name]([w, b])
    calls = []

    def closure():
        calls.append(mg.is_grad_enabled())
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    w2, b2, loss_fn2 = _problem()
    opt2 = ALL[name]([w2, b2])
    for _ in range(3):
        with mg.no_grad():  # the closure runs with gradients enabled even so
            loss = opt.step(closure)
        opt2.zero_grad()
        loss2 = loss_fn2()
        loss2.backward()
        assert opt2.step() is None
        assert float(loss.item()) == float(loss2.item())
        assert np.array_equal(w.numpy(), w2.numpy()) and np.array_equal(b.numpy(), b2.numpy())
    assert calls == [True, True, True]  # once per step


def test_state_is_pytorchs_defaultdict_keyed_by_parameter(tmp_path) -> None:
    w, b, loss_fn = _problem()
    opt = optim.Adam([w, b], lr=0.01)
    assert isinstance(opt.state, defaultdict) and opt.state[w] == {}
    loss_fn().backward()
    opt.step()
    assert opt.state[w]["step"] == 1 and set(opt.state) == {w, b}
    opt.load_state_dict(opt.state_dict())
    assert isinstance(opt.state, defaultdict) and opt.state[w]["step"] == 1
    # a parameter read but never stepped has no state in the state dict's entries that matter,
    # and snapshots of it restore as before
    ex = mg.Executor(optimizer=opt)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    opt2 = optim.Adam(list(_problem()[:2]), lr=0.01)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(optimizer=opt2))
    assert [st["step"] for st in opt2.state.values()] == [1, 1]


def test_sgd_without_momentum_keeps_no_state() -> None:
    w, b, loss_fn = _problem()
    opt = optim.SGD([w, b], lr=0.1)
    loss_fn().backward()
    opt.step()
    assert opt.state_dict()["state"] == {}  # as PyTorch's


class SignSGD(optim.Optimizer):
    """An optimizer written as the base class asks: defaults, initial state, one rule."""

    def __init__(self, params, lr=0.01, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay))

    def init_state(self, p, group):
        return {"step": 0, "flips": 0}

    def update_one(self, p, g, state, group):
        state["flips"] += int((g < 0).sum())
        p.sub_(group["lr"] * p.device.xp.sign(g))


def test_an_optimizer_is_its_initial_state_and_one_rule() -> None:
    w = mg.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    frozen = mg.tensor(np.array([5.0]), requires_grad=True)  # never gets a gradient: skipped
    opt = SignSGD([{"params": [w]}, {"params": [frozen], "lr": 1.0}], lr=0.5, weight_decay=1.0)
    w.grad = mg.tensor(np.array([-0.1, 0.1, -3.0]))
    opt.step()
    opt.step()
    # weight decay is added to the gradient first: g = grad + 1.0 * w
    # step 1: g = [0.9, -1.9, 0]   -> sign [1, -1, 0] -> w = [0.5, -1.5, 3.0]
    # step 2: g = [0.4, -1.4, 0]   -> w = [0.0, -1.0, 3.0]
    assert np.array_equal(w.numpy(), [0.0, -1.0, 3.0])
    assert opt.state[w] == {"step": 2, "flips": 2} and frozen not in opt.state
    assert np.array_equal(frozen.numpy(), [5.0])


def test_an_optimizer_without_a_rule_says_so() -> None:
    w = mg.tensor(np.ones(2), requires_grad=True)
    w.grad = mg.tensor(np.ones(2))
    with pytest.raises(NotImplementedError, match="update_one"):
        optim.Optimizer([w], {"lr": 0.1}).step()
