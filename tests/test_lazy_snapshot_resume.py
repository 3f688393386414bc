"""Snapshots of a model built from lazy layers (found by porting d2l with its own Lazy layers: a resume
script builds the model and the optimizer, as d2l's Trainer does, and restores before any forward).

Restoring into a model whose lazy layers have not run read the uninitialized weights' shapes (the
model's check and the optimizer moments' check) and failed with a RuntimeError; it now materializes
them with the snapshot's shapes, as ``load_state_dict`` does, and the run resumes bit for bit.  A
snapshot taken before the first call would store empty arrays for the weights, which a resumed run
would take for the weights: it is refused, in PyTorch's advice (a dummy batch first).
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.snapshot.format import SnapshotError

OPTIMIZERS = {
    "SGD-momentum": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
    "Adam": lambda ps: optim.Adam(ps, lr=0.01),
    "Adagrad": lambda ps: optim.Adagrad(ps, lr=0.05),
    "RMSprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "LBFGS": lambda ps: optim.LBFGS(ps, lr=0.5, max_iter=3, history_size=3),
}


def _build(seed: int, opt: str):
    """d2l's order: the lazy model, then its optimizer and scheduler, before any input."""
    mg.manual_seed(seed)
    model = nn.Sequential(nn.LazyLinear(6), nn.LazyBatchNorm1d(), nn.Tanh(), nn.Dropout(0.2), nn.LazyLinear(3))
    optimizer = OPTIMIZERS[opt](model.parameters())
    sched = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return model, optimizer, sched, mg.Executor(model, optimizer, sched)


def _train(model, optimizer, sched, ex, steps: int) -> list[float]:
    losses = []
    for _ in range(steps):
        x = mg.randn(8, 4)

        def closure(x=x):
            optimizer.zero_grad()
            loss = ((model(x) - 0.5) ** 2).mean()
            loss.backward()
            return loss

        if isinstance(optimizer, optim.LBFGS):
            loss = optimizer.step(closure)
        else:
            loss = closure()
            optimizer.step()
        sched.step()
        ex.step()
        losses.append(loss.item())
    return losses


def _bits(model) -> list[bytes]:
    return [v.numpy().tobytes() for v in model.state_dict().values()]


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_a_snapshot_restores_into_a_lazy_model_before_its_first_call(tmp_path, opt):
    model, optimizer, sched, ex = _build(1, opt)
    _train(model, optimizer, sched, ex, 2)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    reference = _train(model, optimizer, sched, ex, 3)
    fresh = _build(9, opt)  # other draws: everything must come from the snapshot
    held = list(fresh[1].param_groups[0]["params"])
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(fresh[3])
    assert fresh[0][0].weight.shape == (6, 4) and fresh[0][1].running_var.shape == (6,)
    assert all(a is b for a, b in zip(held, fresh[0].parameters()))  # the optimizer's own parameters
    assert _train(*fresh, 3) == reference
    assert _bits(fresh[0]) == _bits(model)
    assert type(fresh[0][0]) is nn.Linear and type(fresh[0][1]) is nn.BatchNorm1d


def test_a_wrong_dtype_still_refuses_and_leaves_the_lazy_model_as_it_was(tmp_path):
    model, optimizer, sched, ex = _build(1, "Adam")
    _train(model, optimizer, sched, ex, 1)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    other = nn.Sequential(nn.LazyLinear(6), nn.LazyBatchNorm1d(), nn.Tanh(), nn.Dropout(0.2),
                          nn.LazyLinear(3)).double()
    with pytest.raises(SnapshotError, match="uninitialized"):
        Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(other, optim.Adam(other.parameters())))
    assert other[0].has_uninitialized_params()


def test_a_snapshot_before_the_first_call_is_refused():
    model, optimizer, sched, ex = _build(0, "Adam")
    with pytest.raises(SnapshotError, match="dummy batch"):
        Snapshot.from_executor(ex)
    model(mg.randn(2, 4))  # the dry run
    snap = Snapshot.from_executor(ex)
    np.testing.assert_array_equal(snap.tensors["model.0.weight"], model[0].weight.numpy())
