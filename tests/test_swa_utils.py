"""``optim.swa_utils``: AveragedModel (SWA and EMA), SWALR and update_bn against PyTorch's.

Each run is written once over a namespace ``T`` (``mg`` here), so the same code ran offline with
``T = torch`` (torch 2.13) to make ``EXPECTED``: the lr before each step, then the averaged weight,
bias, BatchNorm running mean and variance and ``n_averaged``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

W = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]])
B = np.array([0.05, -0.1])
X = np.linspace(-1.0, 1.0, 24).reshape(8, 3)
Y = np.array([[0.5, -1.0], [2.0, 0.0], [1.5, -0.5], [0.25, 1.0], [0.0, 0.3], [1.0, 1.0], [-0.5, 0.2],
              [0.7, -0.7]])

CASES = {  # name -> (average, SWALR keyword arguments)
    "swa_cos": ("swa", {"swa_lr": 0.05, "anneal_epochs": 3}),
    "swa_linear": ("swa", {"swa_lr": 0.02, "anneal_epochs": 4, "anneal_strategy": "linear"}),
    "swa_no_anneal": ("swa", {"swa_lr": 0.03, "anneal_epochs": 0}),
    "ema_multi": ("ema_multi", {"swa_lr": 0.05, "anneal_epochs": 2}),
    "ema": ("ema", {"swa_lr": 0.05, "anneal_epochs": 2}),
    "swa_multi": ("swa_multi", {"swa_lr": 0.05, "anneal_epochs": 2}),
    "swa_buffers": ("swa_buffers", {"swa_lr": 0.05, "anneal_epochs": 2}),
}


def run(T, name):  # noqa: N803  (T: the namespace, mg or torch)
    average, sched_kwargs = CASES[name]
    S = T.optim.swa_utils  # noqa: N806
    lin, bn = T.nn.Linear(3, 2).double(), T.nn.BatchNorm1d(2).double()
    with T.no_grad():
        lin.weight.copy_(T.tensor(W))
        lin.bias.copy_(T.tensor(B))
    model = T.nn.Sequential(lin, bn)
    kwargs = {"ema": {"avg_fn": S.get_ema_avg_fn(0.9)}, "ema_multi": {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8)},
              "swa_multi": {"multi_avg_fn": S.get_swa_multi_avg_fn()},
              "swa_buffers": {"use_buffers": True}}.get(average, {})
    averaged = S.AveragedModel(model, **kwargs)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    swa_sched = S.SWALR(opt, **sched_kwargs)
    lrs = []
    for step in range(12):
        rows = np.arange(step, step + 4) % 8
        x, y = T.tensor(X[rows]), T.tensor(Y[rows])
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        if step >= 3:
            averaged.update_parameters(model)
            swa_sched.step()
    loader = [(T.tensor(X[:4]), 0), (T.tensor(X[4:]), 1)]
    S.update_bn(loader, averaged)
    m = averaged.module
    return (lrs + m[0].weight.detach().numpy().ravel().tolist() + m[0].bias.detach().numpy().tolist()
            + m[1].running_mean.numpy().tolist() + m[1].running_var.numpy().tolist() + [int(averaged.n_averaged)])


# made offline: run(torch, name)
EXPECTED = {
    "ema": [
        0.1, 0.1, 0.1, 0.1, 0.075, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.2996558441300773,
        -0.2003441558699228, 0.49965584413007713, 0.09348254409560369, 0.39348254409560357, -0.3065174559043963,
        0.05000000000000025, -0.09999999999999995, 0.06739130434782631, -0.13478260869565212, 0.04069135404812587,
        0.0036931585630906793, 9.0],
    "ema_multi": [
        0.1, 0.1, 0.1, 0.1, 0.075, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.2996438493753792,
        -0.20035615062462087, 0.4996438493753791, 0.09273338214508028, 0.3927333821450802, -0.3072666178549197,
        0.05000000000000025, -0.09999999999999992, 0.06739130434782632, -0.1347826086956521, 0.04068646495358468,
        0.003601734463842109, 9.0],
    "swa_buffers": [
        0.1, 0.1, 0.1, 0.1, 0.075, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.29964400437929767,
        -0.20035599562070242, 0.49964400437929757, 0.09271017246274622, 0.3927101724627461, -0.30728982753725376,
        0.05000000000000025, -0.09999999999999992, 0.0673913043478263, -0.1347826086956521, 0.040686528131728794,
        0.0035989203657846767, 9.0],
    "swa_cos": [
        0.1, 0.1, 0.1, 0.1, 0.08750000000000001, 0.06250000000000001, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
        0.2996391282186074, -0.20036087178139259, 0.49963912821860734, 0.09237463634663587, 0.3923746363466358,
        -0.3076253636533642, 0.05000000000000025, -0.09999999999999992, 0.06739130434782634, -0.13478260869565212,
        0.04068454067784157, 0.0035583605845267386, 9.0],
    "swa_linear": [
        0.1, 0.1, 0.1, 0.1, 0.08000000000000002, 0.06000000000000001, 0.04000000000000001, 0.02, 0.02, 0.02, 0.02,
        0.02, 0.2996435022462071, -0.2003564977537929, 0.49964350224620707, 0.09264091506555262,
        0.39264091506555254, -0.3073590849344474, 0.05000000000000025, -0.09999999999999992, 0.06739130434782635,
        -0.1347826086956521, 0.040686323467166156, 0.003590529670130225, 9.0],
    "swa_multi": [
        0.1, 0.1, 0.1, 0.1, 0.075, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.2996440043790656,
        -0.2003559956209345, 0.4996440043790655, 0.09271017244874777, 0.3927101724487477, -0.3072898275512522,
        0.05000000000000025, -0.09999999999999992, 0.0673913043478263, -0.1347826086956521, 0.0406865281316342,
        0.0035989203640877415, 9.0],
    "swa_no_anneal": [
        0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.2998257580636765,
        -0.2001742419363236, 0.49982575806367635, 0.09665756258202278, 0.39665756258202284, -0.3033424374179772,
        0.05000000000000003, -0.09999999999999946, 0.06739130434782611, -0.13478260869565165, 0.04076064297975498,
        0.004093340879712505, 9.0],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_averages_and_schedules_are_pytorchs(name):
    np.testing.assert_allclose(run(mg, name), EXPECTED[name], rtol=1e-13, atol=1e-15)


def test_the_average_is_a_buffer_the_state_dict_and_snapshots_carry():
    model = mg.nn.Linear(3, 2)
    averaged = mg.optim.swa_utils.AveragedModel(model)
    averaged.update_parameters(model)
    assert "n_averaged" in averaged.state_dict() and int(averaged.n_averaged) == 1
    with pytest.raises(ValueError, match="only one"):
        mg.optim.swa_utils.AveragedModel(model, avg_fn=lambda *a: a[0], multi_avg_fn=lambda *a: None)
    with pytest.raises(ValueError, match="decay"):
        mg.optim.swa_utils.get_ema_avg_fn(1.5)
