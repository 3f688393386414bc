"""Objects registered with ``Executor.register_state`` whose state is more than plain data -- a
second optimizer (a GAN's discriminator's), a second model, int keys, tuples, 0-d tensors -- come
back from a snapshot exactly: tensors as tensors of their dtype, int keys as ints, tuples as tuples,
so that training continues bit for bit.  (Before, the header kept ``str(key)`` and ``tensor.tolist()``:
an SGD momentum buffer came back as a list and the next ``step()`` failed; an Adam moment too.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager
from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY, rank_file_name, write_rank_state
from minigrad_ckpt.snapshot.sections import capture_objects
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)

pytestmark = pytest.mark.msgpack

SECOND = {
    "sgd_momentum": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    "adam_amsgrad": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
    "rmsprop_centered": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "lbfgs": lambda ps: optim.LBFGS(ps, lr=0.5, history_size=2, max_iter=3),
}


def _gan(second, dtype, device="cpu"):
    """A generator trained by the executor's optimizer, a discriminator (with BatchNorm buffers)
    and its optimizer registered beside it."""
    mg.manual_seed(0)
    gen = nn.Linear(4, 4).to(device).to(dtype)
    disc = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.3), nn.Linear(3, 1))
    disc.to(device).to(dtype)
    opt_g, opt_d = optim.Adam(gen.parameters(), lr=0.01), SECOND[second](disc.parameters())
    ex = mg.Executor(gen, opt_g)
    ex.register_state("disc", disc)
    ex.register_state("opt_d", opt_d)
    return gen, disc, opt_g, opt_d, ex


def _step(parts, x):
    gen, disc, opt_g, opt_d, ex = parts

    def closure():
        opt_d.zero_grad()
        loss = (disc(gen(x).detach()) ** 2).mean()
        loss.backward()
        return loss

    opt_d.step(closure)
    opt_g.zero_grad()
    loss = disc(gen(x)).mean()
    loss.backward()
    opt_g.step()
    ex.step()
    return loss.numpy().tobytes()


def _weights(parts):
    return [p.numpy().tobytes() for m in parts[:2] for p in m.state_dict().values()]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("second", sorted(SECOND))
def test_a_registered_optimizer_and_model_resume_bit_for_bit(tmp_path, second, dtype):
    x = mg.randn(8, 4, generator=mg.Generator().manual_seed(1)).to(dtype=getattr(mg, dtype))
    parts = _gan(second, getattr(mg, dtype))
    for _ in range(3):
        _step(parts, x)
    path = Snapshot.from_executor(parts[4]).save(tmp_path / "s.mgsnap")
    want = [_step(parts, x) for _ in range(3)], _weights(parts)
    again = _gan(second, getattr(mg, dtype))
    _step(again, x)  # a different state to overwrite
    Snapshot.load(path).restore_into(again[4])
    assert ([_step(again, x) for _ in range(3)], _weights(again)) == want


def test_on_the_strict_device_and_through_an_asynchronous_save(tmp_path):
    x = mg.randn(8, 4, generator=mg.Generator().manual_seed(1)).to("strict")
    parts = _gan("adam_amsgrad", mg.float32, "strict")
    manager = SnapshotManager(tmp_path)
    _step(parts, x)
    handle = manager.save_snapshot(parts[4], blocking=False)
    want = [_step(parts, x) for _ in range(2)], _weights(parts)  # writes while the save may be in flight
    handle.wait()
    again = _gan("adam_amsgrad", mg.float32, "strict")
    manager.load_latest().restore_into(again[4])
    assert isinstance(again[3].state[next(iter(again[3].state))]["exp_avg"], mg.Tensor)
    assert ([_step(again, x) for _ in range(2)], _weights(again)) == want


class _Holder:
    """A registered object whose state uses every kind a state dict may hold."""

    def __init__(self, state):
        self.state = state

    def state_dict(self):
        return self.state

    def load_state_dict(self, state):
        self.state = state


def _kinds():
    return {"ints": {0: mg.tensor(1.5), 7: (1, 2.0, None)}, "betas": (0.9, 0.999), "step": mg.tensor(3),
            "half": mg.arange(6, dtype=mg.float16).reshape(2, 3).t(), "flags": mg.tensor([True, False]),
            "c": mg.tensor([1 + 2j], dtype=mg.complex64), "big": 2**64 - 1, "arr": np.arange(3, dtype=">i4"),
            "empty": mg.zeros(0, 3), "w": mg.ones(2, requires_grad=True)}


def test_every_kind_of_value_comes_back_as_it_was(tmp_path):
    ex = mg.Executor()
    ex.register_state("h", _Holder(_kinds()))
    path = Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    other = mg.Executor()
    holder = other.register_state("h", _Holder(None))
    Snapshot.load(path).restore_into(other)
    got, want = holder.state, _kinds()
    assert list(got["ints"]) == [0, 7] and got["ints"][7] == (1, 2.0, None) and got["betas"] == (0.9, 0.999)
    assert got["big"] == 2**64 - 1 and got["w"].requires_grad
    for k in ("step", "half", "flags", "c", "empty"):
        assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
        assert got[k].numpy().tobytes() == want[k].numpy().tobytes()
    assert got["arr"].dtype == np.int32 and got["arr"].tolist() == [0, 1, 2]
    fresh = Snapshot.load(path).restore()  # a new executor keeps the decoded state
    assert fresh.restored_object_states["h"]["state"]["ints"][0].item() == 1.5


def test_plain_states_are_stored_as_before_and_rank_files_carry_trees(tmp_path):
    ex = mg.Executor()
    ex.register_state("counter", _Holder({"seen": 10, "names": ["a"]}))
    ex.register_state("opt", optim.SGD([mg.ones(2, requires_grad=True)], lr=0.1, momentum=0.9))
    ex.objects["opt"].param_groups[0]["params"][0].grad = mg.ones(2)
    ex.objects["opt"].step()
    entries = capture_objects(ex)
    assert entries["counter"] == {"type": "_Holder", "state": {"seen": 10, "names": ["a"]}}
    assert set(entries["opt"]) == {"type", "tree", "arrays"}
    manager = SnapshotManager(tmp_path)  # a 2-rank snapshot made by hand: each rank's objects in its file
    files = []
    for r in range(2):
        name = rank_file_name(4, "ab12cd34", r, 2)
        files.append([name, write_rank_state(tmp_path, name, 4, r, 2, mg.get_rng_state(), capture_objects(ex))])
    meta = {RANK_FILES_KEY: json.dumps(files), WORLD_KEY: "2"}
    manager.save_snapshot(ex, 4, metadata=meta, _local=True, _rank_files=[f[0] for f in files])
    other = mg.Executor()
    other.register_state("counter", _Holder(None))
    opt = other.register_state("opt", optim.SGD([mg.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9))
    manager.load_latest(_rank=(1, 2)).restore_into(other)
    buf = opt.state[opt.param_groups[0]["params"][0]]["momentum_buffer"]
    assert isinstance(buf, mg.Tensor) and buf.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("damage", [
    lambda a: a.update(dtype="<x9"), lambda a: a.update(shape=[3]), lambda a: a.update(shape=[-1]),
    lambda a: a.update(data="text"), lambda a: a.pop("shape")])
def test_a_malformed_inline_array_is_a_snapshot_error(tmp_path, damage):
    from minigrad_ckpt.snapshot.object_tree import object_entry, object_state

    entry = object_entry("X", {0: mg.ones(2)})
    damage(next(iter(entry["arrays"].values())))
    with pytest.raises(SnapshotError):
        object_state(entry)


class _History:
    """A registered object whose ``state_dict()`` hands out its own live lists and dicts (as a
    losses history or a metrics tracker does) and whose ``load_state_dict`` keeps what it gets."""

    def __init__(self):
        self.losses, self.best = [1.0], {"epoch": [0], "values": {"acc": [0.5]}}

    def state_dict(self):
        return {"losses": self.losses, "best": self.best}

    def load_state_dict(self, state):
        self.losses, self.best = state["losses"], state["best"]

    def grow(self, k):
        self.losses.append(float(k))
        self.best["epoch"].append(k)
        self.best["values"]["acc"].append(k / 10)


_CALL_STATE = {"losses": [1.0], "best": {"epoch": [0], "values": {"acc": [0.5]}}}


def test_a_snapshot_keeps_the_plain_state_of_its_call_not_the_objects_live_lists():
    """A snapshot captured, then the object appends to its lists: the snapshot holds the state of
    the call, and restoring it twice gives it back twice (the object keeps a copy, not the
    snapshot's own lists). Before, the header kept the object's lists: both were the later ones."""
    ex = mg.Executor()
    hist = ex.register_state("hist", _History())
    snap = Snapshot.from_executor(ex)
    hist.grow(1)
    assert snap.state["objects"]["hist"]["state"] == _CALL_STATE
    assert capture_objects(ex)["hist"]["state"]["losses"] == [1.0, 1.0]  # (rank files capture the same way)
    snap.restore_into(ex)
    hist.grow(2)
    snap.restore_into(ex)
    assert hist.state_dict() == _CALL_STATE


@pytest.mark.parametrize("hold", [True, False], ids=["writer-busy", "racing-the-writer"])
def test_an_asynchronous_save_keeps_the_plain_state_of_its_call(tmp_path, hold):
    import threading

    ex = mg.Executor()
    ex.add_tensor("w", mg.ones(3))
    hist = ex.register_state("hist", _History())
    manager = SnapshotManager(tmp_path)
    gate = threading.Event()
    if hold:
        manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, blocking=False)
    for k in range(3):
        hist.grow(k)
    gate.set()
    assert Snapshot.load(handle.result()).state["objects"]["hist"]["state"] == _CALL_STATE
