"""An optimizer whose hyper-parameters are tensors (PyTorch's ``lr=torch.tensor(0.01)``, Adam's
``betas`` as tensors) resumes from a snapshot bit for bit, with its scheduler.  Before, the snapshot
held the tensor's number and ``restore_into`` refused it ("hyper-parameter 'lr' = 0.05 is not of the
kind the optimizer uses (tensor(0.1))"): a run that saved fine could never resume."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as L
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)

SCHEDULERS = {
    "none": lambda o: None,
    "step": lambda o: L.StepLR(o, 2, 0.5),
    "cosine": lambda o: L.CosineAnnealingLR(o, 5),
    "one_cycle": lambda o: L.OneCycleLR(o, max_lr=0.1, total_steps=20),
    "plateau": lambda o: L.ReduceLROnPlateau(o, patience=0),
}


def _build(scheduler, dtype, device):
    mg.manual_seed(0)
    model = nn.Linear(4, 2).to(device).to(dtype)
    hyper = {"lr": mg.tensor(0.05, dtype=dtype, device=device)}
    if scheduler == "none" and device == "cpu":  # (Adam with tensor betas fails on the strict device by itself)
        hyper["betas"] = (mg.tensor(0.9, dtype=dtype, device=device), mg.tensor(0.99, dtype=dtype, device=device))
    opt = optim.Adam(model.parameters(), **hyper)
    sched = SCHEDULERS[scheduler](opt)
    return model, opt, sched, mg.Executor(model, opt, sched)


def _step(parts, x):
    model, opt, sched, ex = parts
    opt.zero_grad()
    loss = (model(x) ** 2).mean()
    loss.backward()
    opt.step()
    if isinstance(sched, L.ReduceLROnPlateau):
        sched.step(loss.item())
    elif sched is not None:
        sched.step()
    ex.step()
    return loss.numpy().tobytes()


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
def test_tensor_hyperparameters_resume_bit_for_bit(tmp_path, scheduler, dtype, device):
    x = mg.randn(8, 4, generator=mg.Generator().manual_seed(1)).to(device).to(dtype)
    parts = _build(scheduler, dtype, device)
    for _ in range(3):
        _step(parts, x)
    path = Snapshot.from_executor(parts[3]).save(tmp_path / "s.mgsnap")
    want = [_step(parts, x) for _ in range(4)], [p.numpy().tobytes() for p in parts[0].parameters()]
    again = _build(scheduler, dtype, device)
    _step(again, x)
    Snapshot.load(path).restore_into(again[3])
    lr = again[1].param_groups[0]["lr"]
    assert isinstance(lr, mg.Tensor) and lr.dtype == dtype
    assert str(lr.device) == str(parts[1].param_groups[0]["lr"].device)
    assert ([_step(again, x) for _ in range(4)], [p.numpy().tobytes() for p in again[0].parameters()]) == want


def test_a_tensor_hyperparameter_of_another_shape_is_refused(tmp_path):
    parts = _build("none", mg.float64, "cpu")
    path = Snapshot.from_executor(parts[3]).save(tmp_path / "s.mgsnap")
    again = _build("none", mg.float64, "cpu")
    again[1].param_groups[0]["lr"] = mg.tensor([0.05, 0.05], dtype=mg.float64)
    with pytest.raises(mg.snapshot.SnapshotError, match="'lr'"):
        Snapshot.load(path).restore_into(again[3])
