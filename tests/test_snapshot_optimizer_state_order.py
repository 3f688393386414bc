"""A snapshot gives each parameter's optimizer state back in the order of its keys, as the run
that never stopped holds it -- and as PyTorch's ``load_state_dict`` of a ``torch.save``d state
dict does.

The moments are tensor entries of the file (sorted by name) and the numbers are the header's
``scalars``, so a restore rebuilt each state as numbers first, then tensors by name: Adadelta's
``['step', 'square_avg', 'acc_delta']`` came back ``['step', 'acc_delta', 'square_avg']``
(RMSprop's, Adafactor's and LBFGS's likewise).  The values were equal; ``state_dict()``, a
``mg.save`` of it and every loop over ``opt.state[p]`` after the resume were not.  torch 2.13's
orders (``opt.step()`` once, ``list(opt.state[p])``) are pasted below; torch is not imported.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack

# torch 2.13: list(torch.optim.<Name>([p], **kw).state[p]) after one step
TORCH_ORDER = {
    "Adadelta": ["step", "square_avg", "acc_delta"],
    "RMSprop": ["step", "square_avg", "momentum_buffer", "grad_avg"],  # momentum=0.5, centered=True
    "Adam": ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"],      # amsgrad=True
}
OPTIMIZERS = {
    "Adadelta": lambda ps: optim.Adadelta(ps),
    "RMSprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adam": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
    "Adafactor": lambda ps: optim.Adafactor(ps, lr=0.01),
    "LBFGS": lambda ps: optim.LBFGS(ps, history_size=2, max_iter=3),
}


def _build(name, seed=0, device="cpu", dtype=mg.float64):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(device=device, dtype=dtype)
    opt = OPTIMIZERS[name](model.parameters())
    return model, opt, mg.Executor(model, opt)


def _train(model, opt, ex, n):
    for _ in range(n):
        x = mg.randn(5, 3, dtype=model[0].weight.dtype).to(model[0].weight.device)

        def closure(x=x):
            opt.zero_grad()
            loss = ((model(x) - 0.5) ** 2).mean()
            loss.backward()
            return loss
        opt.step(closure)
        ex.step()


def _orders(opt):
    return [list(st) for st in opt.state.values()]


def _values(opt):
    return [{k: v.detach().cpu().numpy().tobytes() if isinstance(v, mg.Tensor) else repr(v) for k, v in st.items()}
            for st in opt.state.values()]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_resumed_optimizer_keeps_its_state_keys_in_order(tmp_path, name):
    model, opt, ex = _build(name)
    _train(model, opt, ex, 3)
    want = _orders(opt)
    if name in TORCH_ORDER:
        assert want[0] == TORCH_ORDER[name]
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    _train(model, opt, ex, 2)
    after = _orders(opt), _values(opt)
    model, opt, ex = _build(name, seed=5)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(ex)
    assert _orders(opt) == want
    assert [list(st) for st in opt.state_dict()["state"].values()] == want
    _train(model, opt, ex, 2)
    assert (_orders(opt), _values(opt)) == after


@pytest.mark.parametrize("device,dtype", [("strict", mg.float64), ("strict-f32", mg.float32), ("cpu", mg.float32)])
def test_on_the_strict_devices_in_float32_and_through_an_asynchronous_save(tmp_path, device, dtype):
    model, opt, ex = _build("RMSprop", device=device, dtype=dtype)
    _train(model, opt, ex, 2)
    want = _orders(opt)
    handle = SnapshotManager(tmp_path).save_snapshot(ex, blocking=False)
    _train(model, opt, ex, 1)  # the next step writes into the moments while the save is in flight
    handle.wait()
    model, opt, ex = _build("RMSprop", seed=5, device=device, dtype=dtype)
    Snapshot.load(handle.result()).restore_into(ex)
    assert _orders(opt) == want


def test_a_file_of_an_optimizer_in_the_natural_order_has_no_order_field(tmp_path):
    model, opt, ex = _build("Adam")  # the step, then the moments in name order: nothing to record
    _train(model, opt, ex, 1)
    assert "order" not in Snapshot.from_executor(ex).state["optimizer"]
    model, opt, ex = _build("Adadelta")
    _train(model, opt, ex, 1)
    order = Snapshot.from_executor(ex).state["optimizer"]["order"]
    assert order["0.weight"] == ["step", "square_avg", "acc_delta"]


def test_a_file_without_the_order_loads_as_before(tmp_path):
    model, opt, ex = _build("Adadelta")
    _train(model, opt, ex, 2)
    snap = Snapshot.from_executor(ex)
    del snap.state["optimizer"]["order"]  # as written before the field existed
    model, opt, ex = _build("Adadelta", seed=5)
    snap.restore_into(ex)
    assert _orders(opt)[0] == ["step", "acc_delta", "square_avg"]


@pytest.mark.parametrize("order", [["step", "square_avg"], ["step", "square_avg", "acc_delta", "acc_delta"],
                                   ["step", "square_avg", "nope"], "step", [1, 2, 3]])
def test_a_malformed_order_is_refused_and_changes_nothing(tmp_path, order):
    model, opt, ex = _build("Adadelta")
    _train(model, opt, ex, 2)
    snap = Snapshot.from_executor(ex)
    snap.state["optimizer"]["order"]["0.weight"] = order
    model, opt, ex = _build("Adadelta", seed=5)
    _train(model, opt, ex, 1)
    before = _values(opt), [p.detach().numpy().copy() for p in model.parameters()]
    with pytest.raises(SnapshotError, match="order"):
        snap.restore_into(ex)
    assert _values(opt) == before[0]
    assert all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before[1], model.parameters()))


def test_an_order_for_a_parameter_without_state_is_refused(tmp_path):
    model, opt, ex = _build("Adadelta")
    _train(model, opt, ex, 1)
    snap = Snapshot.from_executor(ex)
    snap.state["optimizer"]["order"]["no.such"] = ["step"]
    model, opt, ex = _build("Adadelta", seed=5)
    with pytest.raises(SnapshotError, match="order"):
        snap.restore_into(ex)
