"""A snapshot gives a scheduler's state back exactly, not as the header's plain data: a
``LambdaLR``'s (or ``MultiplicativeLR``'s, ``CyclicLR``'s ``scale_fn``) callable object keeps its
attributes in its state, as PyTorch's (``fn.__dict__``), and those may be a table with int keys, a
NumPy array, a tuple.

The header held them as msgpack's plain data: after a resume the table's keys were strings, the
array a list and the tuple a list, so ``table[epoch]`` raised ``KeyError`` or ``arr * 1.01``
``TypeError`` -- or a lookup silently took a default, another schedule.  (``torch.save`` keeps
them, and the engine's ``mg.save`` does too.)  The header keeps the plain ``state`` (older readers,
``inspect``, the checks) and, for a state that is more than plain data, ``exact``: its ``mg.save``
tree with the arrays inline, which the restore loads.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as lrs
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


class Table:
    """A schedule by table (int keys), with a running NumPy factor and a tuple of what it last saw."""

    def __init__(self):
        self.table = {0: 1.0, 3: 0.5, 6: 0.1}
        self.factor = np.array([1.0, 2.0])
        self.seen = (0, 0)

    def __call__(self, epoch):
        self.factor = self.factor * 1.01
        self.seen = (int(epoch), self.seen[1] + 1)
        return self.table[max(k for k in self.table if k <= epoch)] * float(self.factor[0])


SCHEDULERS = {
    "LambdaLR": lambda o: lrs.LambdaLR(o, [Table(), lambda e: 0.9 ** e]),
    "MultiplicativeLR": lambda o: lrs.MultiplicativeLR(o, Table()),
    "CyclicLR": lambda o: lrs.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=Table(), scale_mode="iterations"),
}


def _build(name, seed=0, device="cpu"):
    mg.manual_seed(seed)
    model = nn.Linear(3, 2).to(device)
    opt = optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.2}], lr=0.1, momentum=0.9)
    sched = SCHEDULERS[name](opt)
    return model, opt, sched, mg.Executor(model, opt, sched)


def _train(model, opt, sched, ex, n, log):
    for _ in range(n):
        opt.zero_grad()
        (model(mg.randn(4, 3).to(model.weight.device)) ** 2).sum().backward()
        opt.step()
        sched.step()
        ex.step()
        log.append([g["lr"] for g in opt.param_groups])


def _objects(sched):
    fns = getattr(sched, "lr_lambdas", None) or [sched._scale_fn_custom]
    return [(f.table, f.factor.tobytes(), f.seen) for f in fns if isinstance(f, Table)]


@pytest.mark.parametrize("blocking", [True, False])
@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_a_callable_objects_state_comes_back_exactly(tmp_path, name, device, blocking):
    parts = _build(name, device=device)
    want = []
    _train(*parts, 8, want)
    want_objects = _objects(parts[2])
    parts = _build(name, device=device)
    got = []
    _train(*parts, 4, got)
    handle = SnapshotManager(tmp_path).save_snapshot(parts[3], blocking=blocking)
    _train(*parts, 1, [])  # the objects change after the call: the snapshot keeps the call's state
    path = handle if blocking else handle.result()
    parts = _build(name, seed=3, device=device)
    Snapshot.load(path).restore_into(parts[3])
    table = _objects(parts[2])[0]
    assert type(table[0]) is dict and list(table[0]) == [0, 3, 6] and type(table[2]) is tuple
    _train(*parts, 4, got)
    assert got == want
    assert _objects(parts[2]) == want_objects


def test_a_plain_state_is_written_as_before():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    snap = Snapshot.from_executor(mg.Executor(model, opt, lrs.StepLR(opt, 2)))
    assert set(snap.state["scheduler"]) == {"type", "state"}


def test_a_file_without_the_exact_state_loads_its_plain_state():
    parts = _build("LambdaLR")
    _train(*parts, 2, [])
    snap = Snapshot.from_executor(parts[3])
    del snap.state["scheduler"]["exact"]  # as written before the field
    parts = _build("LambdaLR", seed=3)
    snap.restore_into(parts[3])
    assert list(parts[2].lr_lambdas[0].table) == ["0", "3", "6"]  # what the plain data gives


@pytest.mark.parametrize("damage", ["not a map", "other keys", "other kind"])
def test_an_exact_state_that_does_not_fit_is_refused_and_changes_nothing(damage):
    parts = _build("LambdaLR")
    _train(*parts, 2, [])
    snap = Snapshot.from_executor(parts[3])
    exact = snap.state["scheduler"]["exact"]
    if damage == "not a map":
        snap.state["scheduler"]["exact"] = [1, 2]
    elif damage == "other keys":
        other = Snapshot.from_executor(mg.Executor(None, parts[1], lrs.LambdaLR(parts[1], Table())))
        snap.state["scheduler"]["exact"] = {**other.state["scheduler"]["exact"], "tree": {"t": "dict", "keys": [],
                                                                                        "values": []}}
    else:
        tree = exact["tree"]
        i = tree["keys"].index("last_epoch")
        tree["values"][i] = "seven"
    parts = _build("LambdaLR", seed=3)
    before = parts[2].state_dict()
    with pytest.raises(SnapshotError, match="scheduler"):
        snap.restore_into(parts[3])
    assert parts[2].state_dict()["last_epoch"] == before["last_epoch"]


class History:
    """A callable object whose attributes grow: every epoch it saw, a table by epoch."""

    def __init__(self, with_table):
        self.history = []
        if with_table:
            self.table = {}

    def __call__(self, epoch):
        self.history.append(epoch)
        if hasattr(self, "table"):
            self.table[epoch] = 0.5 * epoch
        return 0.9 ** epoch


GROWING = {
    "LambdaLR": lambda o: lrs.LambdaLR(o, History(False)),
    "SequentialLR": lambda o: lrs.SequentialLR(o, [lrs.LambdaLR(o, History(True)), lrs.ExponentialLR(o, 0.9)],
                                               milestones=[5]),
}


@pytest.mark.parametrize("name", sorted(GROWING))
def test_a_callable_object_whose_attributes_grow_resumes(tmp_path, name):
    """Its attributes are the user's data: their shape is not the fresh object's (a history of
    one epoch where the saved one has four).  The restore refused them ("not of the kind the
    scheduler uses"); PyTorch's load updates the object's __dict__ with them."""

    def build(seed):
        mg.manual_seed(seed)
        model = nn.Linear(3, 2)
        opt = optim.SGD(model.parameters(), lr=0.1)
        sched = GROWING[name](opt)
        return model, opt, sched, mg.Executor(model, opt, sched)

    def objects(sched):
        inner = sched._schedulers[0] if name == "SequentialLR" else sched
        return vars(inner.lr_lambdas[0])

    parts = build(0)
    want = []
    _train(*parts, 8, want)
    want_objects = objects(parts[2])
    parts = build(0)
    got = []
    _train(*parts, 4, got)
    Snapshot.from_executor(parts[3]).save(tmp_path / "s.mgsnap")
    parts = build(3)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(parts[3])
    _train(*parts, 4, got)
    assert got == want
    assert objects(parts[2]) == want_objects
