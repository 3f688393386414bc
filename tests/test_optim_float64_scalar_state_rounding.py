"""NAdam and ASGD on float64 parameters, as torch 2.13 steps them (single-tensor path, CPU), under
either default dtype -- to a few units in the last place, parameters and every state entry.

Why this is pinned: float64 runs of the two libraries were seen to differ by about 1e-10 after
four NAdam or ASGD steps, where the other optimizers agree to round-off.  The cause is PyTorch's
own: NAdam's ``mu_product`` and ASGD's ``eta`` and ``mu`` are 0-d tensors of its *scalar* dtype,
float32 unless the default dtype is float64 -- whatever the parameters' dtype.  A float64
parameter under a float32 default is therefore stepped with float32-rounded scalars (a relative
1e-8 in ``1 - mu_product`` or ``eta``, 1e-10 in the parameters after a few steps); two runs agree
only when both libraries have the same default dtype.  (The other optimizers' only scalar is the
step count, exact in float32.)  A per-step comparison of every optimizer, flag and parameter
layout against torch found no formula or order-of-operations difference; what remains is torch's
fused multiply-adds (lerp, add with alpha, addcmul round once; NumPy rounds twice), under 1 ulp.

torch is not imported: its numbers are pasted below, from (torch 2.13, CPU)::

    torch.set_default_dtype(default)            # torch.float32, then torch.float64
    p = torch.tensor(P0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.NAdam([p], lr=0.1)        # or ASGD([p], lr=0.1, lambd=0.05, t0=0)
    for g in GRADS: p.grad = torch.tensor(g, dtype=torch.float64); opt.step()
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim

P0 = [0.5, -1.25, 2.0]
GRADS = ([0.3, -0.2, 0.1], [0.1, 0.4, -0.3], [-0.2, 0.2, 0.5], [0.25, -0.5, 0.125])
BUILD = {"NAdam": lambda p: optim.NAdam([p], lr=0.1), "ASGD": lambda p: optim.ASGD([p], lr=0.1, lambd=0.05, t0=0)}

# torch's parameter and state after the four steps, by default dtype and optimizer
TORCH = {
    "float32": {
        "NAdam": {"param": [0.3371997942326144, -1.2006651443644352, 1.8688581887364761],
                  "mu_product": 0.04107322916388512,
                  "exp_avg": [0.03696999999999999, -0.014179999999999988, 0.04048999999999999],
                  "exp_avg_sq": [0.00020217027991000018, 0.0004895202799600005, 0.0003651651199900003]},
        "ASGD": {"param": [0.44574059886054185, -1.215385486040471, 1.9185151158880815],
                 "eta": 0.09852577745914459, "mu": 0.25,
                 "ax": [0.4579166353102447, -1.2480018344704866, 1.9530036650121767]},
    },
    "float64": {
        "NAdam": {"param": [0.3371997957734133, -1.2006651454147756, 1.8688581893571587],
                  "mu_product": 0.04107323013752351,
                  "exp_avg": [0.03696999999999999, -0.014179999999999988, 0.04048999999999999],
                  "exp_avg_sq": [0.00020217027991000018, 0.0004895202799600005, 0.0003651651199900003]},
        "ASGD": {"param": [0.445740599849165, -1.215385488481453, 1.9185151156678453],
                 "eta": 0.09852577760521605, "mu": 0.25,
                 "ax": [0.4579166360646154, -1.2480018367190453, 1.953003665536743]},
    },
}


def _stepped(name):
    p = mg.tensor(P0, dtype=mg.float64, requires_grad=True)
    opt = BUILD[name](p)
    for g in GRADS:
        p.grad = mg.tensor(g, dtype=mg.float64)
        opt.step()
    got = {k: v.numpy() for k, v in opt.state[p].items() if k != "step"}
    got["param"] = p.detach().numpy()
    return got


def _ulps(got, want):
    """|got - want| in units of the last place of the larger magnitude in ``want``."""
    want = np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)) / np.spacing(np.max(np.abs(want))))


@pytest.mark.parametrize("name", sorted(BUILD))
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_float64_parameters_step_as_torchs_under_either_default_dtype(name, default):
    before = mg.get_default_dtype()
    mg.set_default_dtype(getattr(mg, default))
    try:
        got = _stepped(name)
    finally:
        mg.set_default_dtype(before)
    want = TORCH[default][name]
    assert set(got) == set(want)
    for key, value in want.items():
        assert _ulps(got[key], value) <= 2, (key, got[key], value)

