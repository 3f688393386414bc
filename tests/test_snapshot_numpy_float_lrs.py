"""A schedule computed with NumPy (``lambda e: 0.5 * (1 + np.cos(np.pi * e / n))``, a config's
``lr=np.float64(...)``) leaves NumPy floats in the scheduler's state and the optimizer's groups:
a snapshot of them saves and resumes.

The sections that keep a state "exactly" took a NumPy float for more than plain data, where the
object tree it is kept with takes it for a float (``np.float64`` is one) and keeps the plain form,
so every save raised ``KeyError: 'tree'`` from the scheduler's (and the optimizer's) capture.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as lrs
from minigrad_ckpt.snapshot import SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


def _build(device, dtype):
    mg.manual_seed(0)
    model = nn.Linear(3, 1).to(device=device, dtype=dtype)
    opt = optim.SGD(model.parameters(), lr=np.float64(0.1), momentum=0.9)
    sched = lrs.LambdaLR(opt, lambda e: 0.5 * (1 + np.cos(np.pi * e / 10)))  # NumPy floats as factors
    return model, opt, sched, mg.Executor(model, opt, scheduler=sched)


def _train(model, opt, sched, ex, n, dtype):
    losses = []
    for _ in range(n):
        x = mg.randn(4, 3, dtype=dtype).to(model.weight.device)
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        sched.step()
        ex.step()
        losses.append(float(loss.item()))
    return losses


@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                          ("strict-f32", mg.float32)])
def test_numpy_float_lrs_save_and_resume(tmp_path, device, dtype):
    model, opt, sched, ex = _build(device, dtype)
    _train(model, opt, sched, ex, 3, dtype)
    assert isinstance(opt.param_groups[0]["lr"], np.float64)  # (what the schedule leaves there)
    SnapshotManager(tmp_path).save_snapshot(ex)
    want = _train(model, opt, sched, ex, 4, dtype)

    model2, opt2, sched2, ex2 = _build(device, dtype)
    SnapshotManager(tmp_path).load_latest().restore_into(ex2)
    assert opt2.param_groups[0]["lr"] == sched.base_lrs[0] * 0.5 * (1 + np.cos(np.pi * 3 / 10))
    assert sched2.last_epoch == 3
    assert _train(model2, opt2, sched2, ex2, 4, dtype) == want
