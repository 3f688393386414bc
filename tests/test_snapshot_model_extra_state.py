"""A module's ``get_extra_state()`` -- state beyond its parameters and buffers, in ``state_dict()``
under ``<module>._extra_state`` as PyTorch's -- goes into snapshots (the header's ``model_extra``
field) and comes back through the model's ``load_state_dict``.  Before, snapshots held tensors only:
``restore_into`` kept the model's own extra state, so a resumed run whose forward reads it (a call
counter, a running scale kept as numbers) silently went another way."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager

pytestmark = pytest.mark.msgpack


class _Scaled(nn.Module):
    """A Linear whose output scale is extra state, kept as plain numbers (or, ``kind="tree"``, as a
    tuple and int keys; ``kind="tensor"``, as a tensor), updated by every forward."""

    def __init__(self, kind="plain"):
        super().__init__()
        self.lin, self.kind = nn.Linear(3, 3), kind
        self.calls, self.scale = 0, 1.0

    def forward(self, x):
        self.calls += 1
        self.scale *= 0.97
        return self.lin(x) * self.scale

    def get_extra_state(self):
        if self.kind == "tree":
            return {0: (self.calls, self.scale)}
        if self.kind == "tensor":
            return mg.tensor([float(self.calls), self.scale], dtype=mg.float64)
        return {"calls": self.calls, "scale": self.scale, "history": [self.calls]}

    def set_extra_state(self, state):
        if self.kind == "tree":
            self.calls, self.scale = state[0]
        elif self.kind == "tensor":
            self.calls, self.scale = int(state[0].item()), state[1].item()
        else:
            self.calls, self.scale = state["calls"], state["scale"]


def _program(seed, kind, dtype):
    mg.manual_seed(seed)
    model = nn.Sequential(_Scaled(kind), nn.Tanh(), nn.Dropout(0.2), _Scaled(kind)).to(dtype)
    opt = optim.Adam(model.parameters(), lr=0.05)
    ex = mg.Executor(model, opt)
    x = mg.tensor(np.random.default_rng(1).standard_normal((6, 3)), dtype=dtype)

    def train(steps):
        out = []
        for _ in range(steps):
            opt.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            ex.step()
            out.append(loss.numpy().tobytes())
        return out

    return model, ex, train


@pytest.mark.parametrize("kind", ["plain", "tree", "tensor"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_a_run_whose_forward_reads_extra_state_resumes_bit_for_bit(tmp_path, kind, dtype):
    model, ex, train = _program(0, kind, dtype)
    train(3)
    path = tmp_path / "s.mgsnap"
    Snapshot.from_executor(ex).save(path)
    want = train(4)
    want_state = {k: v.numpy().tobytes() if isinstance(v, mg.Tensor) else v for k, v in model.state_dict().items()}
    model2, ex2, train2 = _program(5, kind, dtype)
    train2(1)  # another state to overwrite
    Snapshot.load(path).restore_into(ex2)
    assert train2(4) == want
    got_state = {k: v.numpy().tobytes() if isinstance(v, mg.Tensor) else v for k, v in model2.state_dict().items()}
    assert got_state == want_state


def test_the_extra_state_is_the_calls_and_a_new_executor_keeps_it(tmp_path):
    """Captured at the call, also by an asynchronous save whose writer is busy while the forward
    changes it; ``Snapshot.restore`` keeps it as ``restored_model_extra_states``."""
    model, ex, train = _program(0, "plain", mg.float64)
    train(2)
    manager = SnapshotManager(tmp_path)
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, blocking=False)
    train(3)
    gate.set()
    restored = Snapshot.load(handle.result()).restore()
    assert restored.restored_model_extra_states == {
        "0._extra_state": {"calls": 2, "scale": 0.97 ** 2, "history": [2]},
        "3._extra_state": {"calls": 2, "scale": 0.97 ** 2, "history": [2]}}
    assert "model.0._extra_state" not in restored.tensors


def test_a_snapshot_without_the_field_leaves_the_models_own_extra_state(tmp_path):
    """A file written before extra states were saved (here: from a model that had none) keeps the
    model's own, as restoring always did."""
    mg.manual_seed(0)
    plain = nn.Sequential(nn.Linear(3, 3))
    Snapshot.from_executor(mg.Executor(plain)).save(tmp_path / "old.mgsnap")
    assert "model_extra" not in Snapshot.load(tmp_path / "old.mgsnap").state or \
        Snapshot.load(tmp_path / "old.mgsnap").state["model_extra"] is None

    class _Own(nn.Sequential):
        def get_extra_state(self):
            return {"kept": 7}

        def set_extra_state(self, state):
            self.got = state

    own = _Own(nn.Linear(3, 3))
    Snapshot.load(tmp_path / "old.mgsnap").restore_into(mg.Executor(own))
    assert own.got == {"kept": 7}
    np.testing.assert_array_equal(own[0].weight.numpy(), plain[0].weight.numpy())


def test_extra_states_that_do_not_match_the_model_are_refused_and_nothing_changes(tmp_path):
    model, ex, train = _program(0, "plain", mg.float64)
    train(2)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    mg.manual_seed(3)
    other = nn.Sequential(_Scaled(), nn.Tanh(), nn.Dropout(0.2), nn.Linear(3, 3))  # the last one has none
    other.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("3.")}
                          | {"3.weight": model[3].lin.weight, "3.bias": model[3].lin.bias})
    with pytest.raises(SnapshotError, match=r"extra states do not match the model's: missing \[\], "
                                            r"unexpected \['3._extra_state'\]"):
        Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(other))


class _Counter:
    def __init__(self):
        self.n = 0

    def state_dict(self):
        return {"n": self.n}

    def load_state_dict(self, state):
        self.n = state["n"]


def test_a_module_refusing_its_extra_state_leaves_model_and_objects_as_they_were(tmp_path):
    model, ex, train = _program(0, "plain", mg.float64)
    ex.register_state("counter", _Counter()).n = 5
    train(2)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    model2, ex2, train2 = _program(4, "plain", mg.float64)
    counter = ex2.register_state("counter", _Counter())
    train2(1)
    before = {k: v.numpy().tobytes() if isinstance(v, mg.Tensor) else v for k, v in model2.state_dict().items()}

    own_set = model2[3].set_extra_state

    def refuse(state):  # the snapshot's state (2 calls), not its own
        if state["calls"] == 2:
            raise ValueError("not this one")
        own_set(state)

    model2[3].set_extra_state = refuse
    with pytest.raises(SnapshotError, match=r"refused the snapshot's extra state .*ValueError: not this one"):
        Snapshot.load(tmp_path / "s.mgsnap").restore_into(ex2)
    del model2[3].set_extra_state
    after = {k: v.numpy().tobytes() if isinstance(v, mg.Tensor) else v for k, v in model2.state_dict().items()}
    assert after == before and counter.n == 0


def test_an_extra_state_a_snapshot_cannot_store_is_refused_at_save(tmp_path):
    class _Opaque(nn.Module):
        def get_extra_state(self):
            return object()

        def set_extra_state(self, state):
            pass

    ex = mg.Executor(nn.Sequential(nn.Linear(2, 2), _Opaque()))
    with pytest.raises(SnapshotError, match=r"model\.1\._extra_state: the module's get_extra_state\(\) holds"):
        Snapshot.from_executor(ex)
    assert not list(tmp_path.iterdir())
