"""A snapshot keeps the dtype of an optimizer's 0-d scalar state when it is not the one a restore makes
by default: ``load_state_dict`` casts NAdam's ``mu_product`` and ASGD's ``eta``/``mu`` to a float64
parameter's dtype (PyTorch's rule), and NAdam then multiplies ``mu_product`` in float64.  The
snapshot stored the number and the restore rebuilt a float32 tensor (the default dtype's), so a run
resumed from it took the product in float32 again: not bitwise the run that never stopped."""

from __future__ import annotations

import copy

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot

pytestmark = pytest.mark.msgpack

OPTIMIZERS = {
    "NAdam": lambda ps: mg.optim.NAdam(ps, lr=0.05, momentum_decay=0.1),
    "ASGD": lambda ps: mg.optim.ASGD(ps, lr=0.05, t0=1.0, lambd=0.01),
}


def _fresh(name, dtype, seed):
    mg.manual_seed(seed)
    model = mg.nn.Linear(3, 2, dtype=dtype)
    return model, OPTIMIZERS[name](model.parameters())


def _train(model, opt, start, stop, dtype):
    for i in range(start, stop):
        x = mg.tensor([[0.5 - i, 1.0, -2.0], [0.25, i / 3, 1.5]], dtype=dtype)
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
        if i == 1:  # PyTorch's checkpoint idiom mid-run: the scalars take the parameters' dtype
            opt.load_state_dict(copy.deepcopy(opt.state_dict()))


def _bytes(model, opt):
    state = {f"{k}.{i}": v.numpy().tobytes() + v.dtype.name.encode() for i, st in enumerate(opt.state.values())
             for k, v in st.items()}
    return [p.detach().numpy().tobytes() for p in model.parameters()], state


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_keeps_the_scalar_states_dtype(name, dtype, tmp_path):
    model, opt = _fresh(name, dtype, 0)
    _train(model, opt, 0, 6, dtype)
    want = _bytes(model, opt)
    model, opt = _fresh(name, dtype, 0)
    _train(model, opt, 0, 3, dtype)
    path = Snapshot.from_executor(mg.Executor(model, opt), 3).save(tmp_path / "s.mgsnap")
    model2, opt2 = _fresh(name, dtype, 5)
    Snapshot.load(path).restore_into(mg.Executor(model2, opt2))
    _train(model2, opt2, 3, 6, dtype)
    assert _bytes(model2, opt2) == want
