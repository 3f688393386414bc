"""An optimizer given NumPy numbers as hyper-parameters (``lr=np.float64(0.1)`` from a config, a
LambdaLR whose factor is ``np.cos(...)``) steps as with the Python numbers, as PyTorch's does (it
reads a NumPy float as a Python scalar): a float32 parameter's update stays float32 arithmetic.

The rules computed ``np.float64(lr) * g`` on the arrays, float64 under NumPy's promotion: other
roundings of a float32 parameter than with ``lr=0.1`` (a unit in the last place after a step), and a
float64 array on a float32-only device (the strict-f32 stand-in's StrictDeviceError).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.optim import lr_scheduler as lrs
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

OPTIMIZERS = [("SGD", {"momentum": 0.9}), ("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("Adagrad", {})]


def _run(name, kw, lr, device, schedule=None):
    rng = np.random.default_rng(0)
    w0, gs = rng.standard_normal(257).astype(np.float32), rng.standard_normal((4, 257)).astype(np.float32)
    w = mg.nn.Parameter(mg.tensor(w0, device=device))
    opt = getattr(mg.optim, name)([w], lr=lr, **kw)
    sched = None if schedule is None else lrs.LambdaLR(opt, schedule)
    for g in gs:
        w.grad = mg.tensor(g, device=device)
        opt.step()
        if sched is not None:
            sched.step()
    return w.detach().cpu().numpy()


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("name, kw", OPTIMIZERS)
def test_numpy_hyperparameters_step_as_python_numbers(name, kw, device):
    want = _run(name, kw, 0.1, device)
    got = _run(name, kw, np.float64(0.1), device)
    assert got.dtype == np.float32 and np.array_equal(got, want)
    cosine = _run(name, kw, 0.1, device, lambda e: 0.5 * (1 + np.cos(np.pi * e / 4)))
    plain = _run(name, kw, 0.1, device, lambda e: float(0.5 * (1 + np.cos(np.pi * e / 4))))
    assert np.array_equal(cosine, plain)


def test_the_group_keeps_what_the_user_put_there():
    w = mg.nn.Parameter(mg.ones(3))
    opt = mg.optim.SGD([w], lr=np.float64(0.5))
    w.grad = mg.ones(3)
    opt.step()
    assert type(opt.param_groups[0]["lr"]) is np.float64
    np.testing.assert_array_equal(w.detach().numpy(), np.full(3, 0.5, dtype=np.float32))
