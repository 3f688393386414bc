"""Asynchronous snapshots capture by reference and copy on write: the call copies nothing, and
the snapshot still holds exactly the state of the call whatever the loop writes next.

Each test compares, bit for bit, the asynchronous snapshot (loaded back) with a blocking save
taken at the same point.  ``_held`` keeps the writer thread busy so that it has copied
nothing yet when the loop writes: every write then takes the copy-on-write path; without it
the writer and the loop race (both paths are tested)."""

from __future__ import annotations

import importlib
import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager

pytestmark = pytest.mark.msgpack
tensor_module = importlib.import_module("minigrad_ckpt.tensor")  # (mg.tensor is the function)


class _Net(nn.Module):
    """Linear, BatchNorm (buffers), Linear, and a complex parameter."""

    def __init__(self, ctype):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 2))
        self.z = nn.Parameter(mg.tensor(np.array([1 + 2j, -0.5 + 0.25j], dtype=ctype)))

    def __getitem__(self, i):
        return self.body[i]

    def forward(self, x):
        return (self.body(x) ** 2).sum() + (self.z * self.z.conj()).real.sum()


def _setup(device="cpu", dtype=np.float64):
    mg.manual_seed(0)
    model = _Net(np.complex128 if dtype == np.float64 else np.complex64).to(device)
    model.body.to(dtype)
    opt = optim.Adam(model.parameters(), lr=0.1)
    ex = mg.Executor(model, opt)
    ex.add_tensor("user", mg.tensor(np.arange(6.0).reshape(2, 3), dtype=dtype, device=device))
    _step(model, opt, ex, device, dtype)
    return model, opt, ex, model.z


def _step(model, opt, ex, device="cpu", dtype=np.float64):
    opt.zero_grad()
    x = mg.tensor(np.random.default_rng(ex.iteration).standard_normal((5, 4)), dtype=dtype, device=device)
    model(x).backward()
    opt.step()
    ex.step()


def _held(manager):
    """Keep ``manager``'s writer thread busy until the returned event is set."""
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    return gate


def _saved(path):
    snap = Snapshot.load(path)
    return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in snap.tensors.items()}, snap.state


def _assert_same_as_blocking(tmp_path, ex, mutate, hold: bool):
    """An asynchronous save, ``mutate()`` at once, against a blocking save of the same state."""
    reference = SnapshotManager(tmp_path / "blocking").save_snapshot(ex)
    manager = SnapshotManager(tmp_path / "async")
    gate = _held(manager) if hold else None
    handle = manager.save_snapshot(ex, blocking=False)
    try:
        mutate()
    finally:
        if gate is not None:
            gate.set()
    got = _saved(handle.result())
    want = _saved(reference)
    assert got[0].keys() == want[0].keys()
    for name in want[0]:
        assert got[0][name] == want[0][name], name
    assert got[1] == want[1]
    manager.wait()
    assert tensor_module._write_guard is None  # every array copied: writes pay nothing again


def _every_inplace_write(model, opt, ex, z):
    """Change every captured array, every way the engine can write in place."""
    w, b = model[0].weight, model[0].bias
    other = {k: v.numpy() * 0 + 3 for k, v in model.state_dict().items()}
    with mg.no_grad():
        w.add_(1.0)
        w.sub_(0.5)
        w.mul_(2.0)
        w.div_(3.0)
        w += 1.0
        w[0, 0] = 42.0
        b.copy_(mg.zeros_like(b))
        b.fill_(7.0)
        b.zero_()
        model[3].weight[0].add_(5.0)  # through a view
        ex.get_tensor("user")[1] = -1.0
        z.mul_(2.0)                   # complex, in place
    w.data -= 1.0                     # micrograd's update: the .data alias writes in place
    model[3].bias.data.add_(1.0)
    model[3].bias.data = model[3].bias.data * 2  # a new array: the old one is the snapshot's
    _step(model, opt, ex)          # an optimizer step: Adam's moments and every parameter, complex too
    _step(model, opt, ex)          # BatchNorm's running statistics, in train mode
    opt.zero_grad(set_to_none=False)
    model.load_state_dict({k: mg.tensor(v) for k, v in other.items()})
    opt.load_state_dict(opt.state_dict())


@pytest.mark.parametrize("hold", [True, False], ids=["writer-busy", "racing-the-writer"])
def test_every_inplace_write_after_the_call_leaves_the_snapshot_of_the_call(tmp_path, hold):
    model, opt, ex, z = _setup()
    _assert_same_as_blocking(tmp_path, ex, lambda: _every_inplace_write(model, opt, ex, z), hold)


@pytest.mark.parametrize("hold", [True, False], ids=["writer-busy", "racing-the-writer"])
def test_a_recorded_write_through_a_view_leaves_the_snapshot_of_the_call(tmp_path, hold):
    # A write on the tape into a view of a captured tensor goes into the captured memory
    # (functional/shared_memory.py): the snapshot's copy-on-write guard must see it first.
    model, opt, ex, z = _setup()
    user = ex.get_tensor("user")
    bias = model[0].bias

    def mutate():
        row = user[1]
        row.copy_(bias[:3] * 2.0)  # a value that requires grad: recorded, through the view
        user[0, :2] *= bias[0]     # Python's view-then-setitem form
        expected = np.arange(6.0).reshape(2, 3)
        expected[1] = bias.detach().numpy()[:3] * 2.0
        expected[0, :2] *= bias.detach().numpy()[0]
        np.testing.assert_array_equal(user.detach().numpy(), expected)
        assert user.requires_grad and row.requires_grad

    _assert_same_as_blocking(tmp_path, ex, mutate, hold)


def test_float32_and_the_strict_device(tmp_path):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the device)

    for device, dtype in (("cpu", np.float32), ("strict", np.float64), ("strict-f32", np.float32)):
        model, opt, ex, z = _setup(device, dtype)

        def mutate(model=model, opt=opt, ex=ex, z=z, device=device, dtype=dtype):
            with mg.no_grad():
                model[0].weight.add_(1.0)
                ex.get_tensor("user")[0] = 9.0
            for _ in range(2):
                _step(model, opt, ex, device, dtype)

        _assert_same_as_blocking(tmp_path / device, ex, mutate, hold=True)


def test_writes_from_other_threads(tmp_path):
    model, opt, ex, z = _setup()

    def mutate():
        def worker(p):
            with mg.no_grad():
                for _ in range(50):
                    p.mul_(1.5)

        threads = [threading.Thread(target=worker, args=(p,)) for p in model.parameters()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    for hold in (True, False):
        _assert_same_as_blocking(tmp_path / str(hold), ex, mutate, hold)


def test_a_collective_write_into_a_parameter_is_guarded(tmp_path, monkeypatch):
    """MPI writes into the array behind the engine's back: dist.all_reduce / broadcast call
    prepare_write first (a world of one: the group's write is replaced by a visible one)."""
    pytest.importorskip("mpi4py")
    from minigrad_ckpt import distributed as dist

    model, opt, ex, z = _setup()
    group = dist.init_process_group()
    try:
        monkeypatch.setattr(group, "all_reduce", lambda arr, op="sum": arr.__setitem__(..., 11.0))
        monkeypatch.setattr(group, "broadcast", lambda arr, src=0: arr.__setitem__(..., 12.0))

        def mutate():
            dist.all_reduce(model[0].weight)
            dist.broadcast(model[3].weight)

        _assert_same_as_blocking(tmp_path, ex, mutate, hold=True)
        assert float(model[0].weight.sum()) == 11.0 * model[0].weight.size
    finally:
        dist.destroy_process_group()


def test_the_call_copies_nothing(tmp_path):
    """The stall is the capture of references: the call allocates a small fraction of the
    state (a copy at the call allocated all of it, for the first save)."""
    ex = mg.Executor()
    for i in range(8):
        ex.add_tensor(f"w{i}", mg.tensor(np.ones(1 << 17)))  # 8 MiB in all
    manager = SnapshotManager(tmp_path)
    gate = _held(manager)
    tracemalloc.start()
    try:
        handle = manager.save_snapshot(ex, 1, blocking=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gate.set()
    assert peak < (8 << 20) // 20, peak
    assert handle.result() == manager.path_for(1)


def test_a_failed_save_stops_guarding(tmp_path, monkeypatch):
    model, opt, ex, z = _setup()
    manager = SnapshotManager(tmp_path)
    import minigrad_ckpt.snapshot.manager as manager_module

    def refuse(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(manager_module.SnapshotManager, "_commit", refuse)
    handle = manager.save_snapshot(ex, blocking=False)
    with pytest.raises(OSError, match="disk full"):
        handle.wait()
    assert tensor_module._write_guard is None


_WRITES = {
    "add": lambda p: p.add_(0.5),
    "setitem": lambda p: p.__setitem__(0, 3.0),
    "data": lambda p: p.data.mul_(-1.0),
    "copy": lambda p: p.copy_(p * 0 + 2),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(sorted(_WRITES))), max_size=8),
       steps=st.integers(0, 2), hold=st.booleans())
def test_any_writes_after_the_call(tmp_path_factory, plan, steps, hold):
    model, opt, ex, z = _setup()
    params = list(model.parameters())

    def mutate():
        with mg.no_grad():
            for i, how in plan:
                _WRITES[how](params[i])
        for _ in range(steps):
            _step(model, opt, ex)

    _assert_same_as_blocking(tmp_path_factory.mktemp("cow"), ex, mutate, hold)


def test_a_forked_child_does_not_copy_for_its_parents_save(tmp_path):
    import multiprocessing

    model, opt, ex, z = _setup()
    manager = SnapshotManager(tmp_path)
    gate = _held(manager)
    handle = manager.save_snapshot(ex, blocking=False)
    assert tensor_module._write_guard is not None
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=lambda: queue.put(tensor_module._write_guard is None))
    child.start()
    try:
        assert queue.get(timeout=60) is True
    finally:
        child.join(60)
        gate.set()
    handle.wait()
