"""A snapshot gives back a composite scheduler's inner schedulers exactly when a group's lr is a tensor.

A ``SequentialLR`` or ``ChainedScheduler`` keeps its schedulers' states in one field, ``_schedulers``.
With a tensor lr (PyTorch's own scheduler tests build one) that field holds tensors (``base_lrs``), and
the restore took the whole field from the header's plain data -- where a ``MultiStepLR``'s ``Counter``
of milestones has str keys and a callable object's table too.  The resumed MultiStepLR then never met
a milestone (``6 in {"6": 1}`` is false): the schedule silently stopped decaying, 10x off from there on.
Found by resuming every scheduler of the torch-parity sweep from a snapshot, tensor lr or not.
Now only the tensors come from the plain data, item by item; everything else from the exact state.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as lrs
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


class Table:
    """A schedule by table with int keys (a callable object: its attributes are LambdaLR's state)."""

    def __init__(self):
        self.table = {0: 1.0, 2: 0.5, 5: 0.1}

    def __call__(self, epoch):
        return self.table[max(k for k in self.table if k <= epoch)]


COMPOSITES = {
    "chained_multistep": lambda o: lrs.ChainedScheduler(
        [lrs.ExponentialLR(o, gamma=0.9), lrs.MultiStepLR(o, milestones=[3, 6])], optimizer=o),
    "sequential_multistep": lambda o: lrs.SequentialLR(
        o, [lrs.ConstantLR(o, factor=0.5, total_iters=2), lrs.MultiStepLR(o, milestones=[2, 4])], milestones=[2]),
    "sequential_lambda_table": lambda o: lrs.SequentialLR(
        o, [lrs.LinearLR(o, start_factor=0.5, total_iters=2), lrs.LambdaLR(o, Table())], milestones=[1]),
}


def _build(name, tensor_lr, device, seed=0):
    mg.manual_seed(seed)
    model = nn.Linear(3, 2).to(device)
    lr = mg.tensor(0.05) if tensor_lr else 0.05
    opt = optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": lr}], lr=0.1, momentum=0.9)
    sched = COMPOSITES[name](opt)
    return model, opt, sched, mg.Executor(model, opt, sched)


def _train(model, opt, sched, ex, steps, log):
    for _ in range(steps):
        opt.zero_grad()
        (model(mg.randn(4, 3).to(model.weight.device)) ** 2).sum().backward()
        opt.step()
        sched.step()
        ex.step()
        log.append([float(g["lr"]) for g in opt.param_groups] + model.weight.detach().cpu().numpy().ravel().tolist())


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("tensor_lr", [False, True])
@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_a_composite_schedule_resumes_from_a_snapshot_as_if_never_stopped(tmp_path, name, tensor_lr, device):
    want = []
    _train(*_build(name, tensor_lr, device), 9, want)
    parts = _build(name, tensor_lr, device)
    got = []
    _train(*parts, 4, got)
    path = SnapshotManager(tmp_path).save_snapshot(parts[3], blocking=True)
    parts = _build(name, tensor_lr, device, seed=3)
    Snapshot.load(path).restore_into(parts[3])
    _train(*parts, 5, got)
    assert got == want
    if tensor_lr:
        assert isinstance(parts[1].param_groups[1]["lr"], mg.Tensor)
    inner = {k for s in parts[2]._schedulers for k in getattr(s, "milestones", {})}
    assert all(type(k) is int for k in inner)
