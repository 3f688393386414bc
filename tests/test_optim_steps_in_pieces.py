"""Optimizers step a large CPU parameter a piece at a time (``Optimizer.piecewise_rule``,
``tensor.update_in_chunks``), with the same bits as the whole-array rule they stand in for.

Each case runs the same steps twice: with pieces, and with the pieces switched off (the piece size
made larger than any array, so every parameter takes ``update_one`` on its whole arrays), and
compares parameters and state byte for byte.  A counter checks the pieces were really taken."""

from __future__ import annotations

import io
import itertools
import sys
import threading

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager

tensor_module = sys.modules["minigrad_ckpt.tensor"]
optimizer_module = sys.modules["minigrad_ckpt.optim.optimizer"]
SHAPES = [(600, 500), (270_000,), (5,), (3, 7)]  # two large (pieces), two small (whole arrays)


@pytest.fixture
def pieces_taken(monkeypatch):
    counted = []
    real = optimizer_module.update_in_chunks

    def counting(rule, written, read):
        took = real(rule, written, read)
        counted.append(took)
        return took

    monkeypatch.setattr(optimizer_module, "update_in_chunks", counting)
    return counted


def _steps(make, dtype, pieces, monkeypatch, shapes=SHAPES, steps=4, complex_too=False):
    rs = np.random.RandomState(0)
    params = [nn.Parameter(mg.tensor(rs.randn(*s).astype(dtype))) for s in shapes]
    if complex_too:
        params.append(nn.Parameter(mg.tensor((rs.randn(300, 300) + 1j * rs.randn(300, 300)).astype(np.complex128))))
    opt = make(params)
    with monkeypatch.context() as m:
        if not pieces:
            m.setattr(tensor_module, "_CHUNK_BYTES", 1 << 50)
        for _ in range(steps):
            for p in params:
                p.grad = mg.tensor(rs.randn(*p.shape).astype(p.dtype) if p.dtype.kind != "c" else
                                   (rs.randn(*p.shape) + 1j * rs.randn(*p.shape)).astype(p.dtype))
            opt.step()
    state = [v.numpy().tobytes() for s in opt.state.values() for v in s.values() if isinstance(v, mg.Tensor)]
    return [p.detach().numpy().tobytes() for p in params] + state


ADAMS = [dict(cls=cls, amsgrad=a, maximize=m, weight_decay=w)
         for cls, a, m, w in itertools.product((optim.Adam, optim.AdamW), (False, True), (False, True), (0, 0.1))]
RMSPROPS = [dict(cls=optim.RMSprop, centered=c, momentum=mo, maximize=m, weight_decay=w)
            for c, mo, m, w in itertools.product((False, True), (0, 0.9), (False, True), (0, 0.01))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", ADAMS + RMSPROPS,
                         ids=lambda c: "-".join(f"{k}={v}" if k != "cls" else v.__name__ for k, v in c.items()))
def test_pieces_step_the_same_bits_as_whole_arrays(config, dtype, monkeypatch, pieces_taken):
    kw = dict(config)
    cls = kw.pop("cls")

    def make(ps):
        return cls(ps, lr=0.01, **kw)

    assert _steps(make, dtype, True, monkeypatch) == _steps(make, dtype, False, monkeypatch)
    assert any(pieces_taken), "no parameter was stepped in pieces"


def test_a_complex_parameter_steps_through_its_real_view_in_pieces(monkeypatch, pieces_taken):
    def make(ps):
        return optim.Adam(ps, lr=0.01, weight_decay=0.1, amsgrad=True)

    assert _steps(make, np.float64, True, monkeypatch, complex_too=True) == _steps(
        make, np.float64, False, monkeypatch, complex_too=True)
    assert sum(pieces_taken) == 3 * 4  # the two large real ones and the complex one, each step


def test_tensor_hyper_parameters_take_the_whole_arrays(monkeypatch, pieces_taken):
    def make(ps):
        return optim.Adam(ps, lr=mg.tensor(0.01), betas=(mg.tensor(0.9), mg.tensor(0.999)))

    assert _steps(make, np.float32, True, monkeypatch) == _steps(make, np.float32, False, monkeypatch)
    assert not any(pieces_taken)


def test_a_gradient_of_other_strides_takes_the_whole_arrays(pieces_taken):
    w = np.random.RandomState(2).randn(600, 500).astype(np.float32)
    out = []
    for transposed in (False, True):
        p = nn.Parameter(mg.tensor(w))
        opt = optim.Adam([p], lr=0.1)
        for _ in range(2):
            p.grad = mg.tensor(w.T.copy()).T if transposed else mg.tensor(w)
            opt.step()
        out.append(p.numpy().tobytes())
    assert pieces_taken == [True, True, False, False] and out[0] == out[1]


def test_a_step_in_pieces_restamps_every_written_tensor():
    p = nn.Parameter(mg.ones(600, 500))
    opt = optim.Adam([p], lr=0.1)
    p.grad = mg.ones(600, 500)
    opt.step()  # (makes the state)
    st = opt.state[p]
    before = (p._version, st["exp_avg"]._version, st["exp_avg_sq"]._version)
    y = (p * p).sum()  # saves p for backward
    opt.step()
    after = (p._version, st["exp_avg"]._version, st["exp_avg_sq"]._version)
    assert all(a != b for a, b in zip(after, before))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_an_asynchronous_snapshot_keeps_the_values_before_a_step_in_pieces(tmp_path, pieces_taken):
    """The copy-on-write guard of an asynchronous snapshot sees each tensor a step in pieces writes
    (the parameter and the optimizer's moments): the writer thread is held busy, the step writes,
    the snapshot still has the values of the call."""
    mg.manual_seed(0)
    model = nn.Linear(600, 500)
    opt = optim.Adam(model.parameters(), lr=0.5)
    ex = mg.Executor(model, opt)
    for p in model.parameters():
        p.grad = mg.ones_like(p)
    opt.step()  # (makes the state: the next step is in pieces)
    before = model.weight.numpy().copy()
    moment = opt.state[model.weight]["exp_avg"].numpy().copy()
    manager = SnapshotManager(tmp_path / "async")
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, blocking=False)
    try:
        opt.step()
    finally:
        gate.set()
    saved = Snapshot.load(handle.result()).tensors
    manager.wait()
    assert pieces_taken == [True, True]  # the weight in pieces, both steps (the bias, small, is not offered)
    assert not np.array_equal(model.weight.numpy(), before)
    weight = next(v for k, v in saved.items() if k.endswith("weight") and "model" in k)
    np.testing.assert_array_equal(weight, before)
    assert any(v.shape == moment.shape and np.array_equal(v, moment) for k, v in saved.items() if "optim" in k)


def test_the_strict_device_steps_as_the_cpu():
    rs = np.random.RandomState(1)
    w, gs = rs.randn(600, 500).astype(np.float32), [rs.randn(600, 500).astype(np.float32) for _ in range(3)]
    out = []
    for device in ("cpu", "strict"):
        p = nn.Parameter(mg.tensor(w, device=device))
        opt = optim.AdamW([p], lr=0.01, amsgrad=True)
        for g in gs:
            p.grad = mg.tensor(g, device=device)
            opt.step()
        out.append(p.detach().cpu().numpy())
    assert out[0].tobytes() == out[1].tobytes()


@pytest.mark.parametrize("base", [optim.Adam, optim.AdamW, optim.RMSprop])
def test_a_subclass_with_its_own_update_one_takes_the_whole_arrays(base, pieces_taken):
    """``update_one`` is the extension point: a subclass that overrides it (a clipped gradient, here)
    inherits its base's ``piecewise_rule``, which knows nothing of the override -- a large parameter
    takes the subclass's rule, as a small one does (the pieces skipped the override)."""
    class Clipped(base):
        def update_one(self, p, g, state, group):
            super().update_one(p, np.clip(g, -0.1, 0.1), state, group)

    rs = np.random.RandomState(4)
    w = rs.randn(600, 500).astype(np.float32)
    gs = [rs.randn(600, 500).astype(np.float32) for _ in range(3)]
    out = []
    for opt_class in (Clipped, base):
        p = nn.Parameter(mg.tensor(w))
        opt = opt_class([p], lr=0.01)
        for g in gs:
            p.grad = mg.tensor(np.clip(g, -0.1, 0.1) if opt_class is base else g)
            opt.step()
        out.append(p.detach().numpy().tobytes())
    assert out[0] == out[1]
    assert pieces_taken == [True] * 3  # (the base in pieces; the subclass never asked for them)


def test_a_rule_raising_after_some_pieces_restamps_every_written_tensor():
    """``update_in_chunks``'s rule can raise after some pieces are written (a Ctrl-C between two of them,
    an extension's rule): the tensors' memory changed, so their versions must too -- a value saved for
    backward before the call is stale, and backward must refuse it (it ran on the half-updated array)."""
    p, m = nn.Parameter(mg.ones(600, 500)), mg.zeros(600, 500)
    g = np.ones((600, 500), np.float32)
    calls = []

    def rule(p_piece, m_piece, g_piece):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(1)
        m_piece += g_piece
        p_piece -= g_piece

    y = (p * p).sum()  # saves p
    before = p._version, m._version
    with mg.no_grad(), pytest.raises(KeyboardInterrupt):
        tensor_module.update_in_chunks(rule, (p, m), (g,))
    assert p.detach().numpy().reshape(-1)[0] == 0  # (the first pieces were written)
    assert p._version != before[0] and m._version != before[1]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_an_optimizer_step_interrupted_between_pieces_restamps_the_parameter(monkeypatch):
    """The same through ``opt.step()``: Adam's rule interrupted after two pieces of the weight."""
    p = nn.Parameter(mg.ones(600, 500))
    opt = optim.Adam([p], lr=0.1)
    real = optim.Adam.piecewise_rule
    calls = []

    def interrupted(self, state, group):
        rule, tensors = real(self, state, group)

        def after_two(*arrays):
            if len(calls) == 2:
                raise KeyboardInterrupt
            calls.append(1)
            rule(*arrays)

        return after_two, tensors

    monkeypatch.setattr(optim.Adam, "piecewise_rule", interrupted)
    p.grad = mg.ones(600, 500)
    y = (p * p).sum()
    with pytest.raises(KeyboardInterrupt):
        opt.step()
    assert p.detach().numpy().reshape(-1)[0] != 1  # (the first pieces were stepped)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_state_sharing_memory_with_the_gradient_takes_the_whole_arrays(monkeypatch, pieces_taken):
    """A moment that is the gradient's own array (a user's state) is read at one offset while written
    at another if stepped in pieces: the whole arrays then, with the whole path's values."""
    def steps(pieces):
        rs = np.random.RandomState(5)
        p = nn.Parameter(mg.tensor(rs.randn(600, 500).astype(np.float32)))
        opt = optim.Adam([p], lr=0.1)
        with monkeypatch.context() as m:
            if not pieces:
                m.setattr(tensor_module, "_CHUNK_BYTES", 1 << 50)
            p.grad = mg.tensor(rs.randn(600, 500).astype(np.float32))
            opt.step()
            p.grad = mg.tensor(rs.randn(600, 500).astype(np.float32))
            opt.state[p]["exp_avg"] = p.grad
            opt.step()
        return p.detach().numpy().tobytes()

    assert steps(True) == steps(False)
    assert pieces_taken[:2] == [True, False]  # (with pieces: the first step in them, the second whole)


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW, optim.RMSprop])
def test_a_run_resumed_from_the_state_dict_goes_on_in_pieces_bit_for_bit(cls, pieces_taken):
    """Three steps, a save of model and optimizer (``state_dict`` through ``mg.save``/``mg.load``), a
    fresh model and optimizer loaded from it, three more steps: the same bytes as six steps straight."""
    rs = np.random.RandomState(5)
    w0 = rs.randn(600, 500).astype(np.float32)
    grads = [rs.randn(600, 500).astype(np.float32) for _ in range(6)]

    def fresh():
        p = nn.Parameter(mg.tensor(w0.copy()))
        return p, cls([p], lr=0.01, weight_decay=0.01)

    p, opt = fresh()
    for g in grads:
        p.grad = mg.tensor(g)
        opt.step()
    straight = p.numpy().tobytes()
    p, opt = fresh()
    for g in grads[:3]:
        p.grad = mg.tensor(g)
        opt.step()
    buf = io.BytesIO()
    mg.save({"p": p.detach(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    saved = mg.load(buf)
    q, opt2 = fresh()
    with mg.no_grad():
        q.copy_(saved["p"])
    opt2.load_state_dict(saved["opt"])
    for g in grads[3:]:
        q.grad = mg.tensor(g)
        opt2.step()
    assert q.numpy().tobytes() == straight
    assert all(pieces_taken)


def test_gradients_from_a_transform_step_in_pieces_as_those_of_backward(pieces_taken):
    """The functional style: ``mg.func.grad`` of a loss over the parameters (a closure over the data),
    the gradients set by hand, a step in pieces -- the same bytes as backward's gradients and step."""
    rs = np.random.RandomState(6)
    w0, x = rs.randn(600, 500).astype(np.float32), mg.tensor(rs.randn(3, 500).astype(np.float32))
    out = []
    for functional in (False, True):
        p = nn.Parameter(mg.tensor(w0.copy()))
        opt = optim.AdamW([p], lr=0.01, amsgrad=True)
        for _ in range(3):
            if functional:
                p.grad = mg.func.grad(lambda w: (x @ w.T).tanh().pow(2).sum())(p.detach())
            else:
                opt.zero_grad()
                (x @ p.T).tanh().pow(2).sum().backward()
            opt.step()
        out.append(p.detach().numpy().tobytes())
    assert out[0] == out[1] and pieces_taken == [True] * 6
