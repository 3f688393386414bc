"""MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR and ChainedScheduler: 16-epoch schedules
against PyTorch's, state dicts resumed bit for bit, construction errors.

Each schedule is written once over a namespace ``T`` (``mg`` here), so the same code ran offline with
``T = torch`` (torch 2.13) to make ``EXPECTED``: for each epoch, both groups' lr and then their momentum
(SGD's ``momentum``, Adam's ``betas[0]``), read before each ``step()``.  Their snapshot resume is
tested with the optimizers in ``tests/test_optim_state_and_devices.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _opt(T, kind="sgd", lr=0.1):  # noqa: N803  (T: the namespace, mg or torch)
    w, v = T.zeros(2, requires_grad=True), T.zeros(1, requires_grad=True)
    groups = [{"params": [w]}, {"params": [v], "lr": lr * 0.5}]
    return T.optim.SGD(groups, lr=lr, momentum=0.9) if kind == "sgd" else T.optim.Adam(groups, lr=lr)


def _every_other(e):
    return 0.9 if e % 2 else 0.95


CASES = {
    "multiplicative": lambda T, L: L.MultiplicativeLR(_opt(T), _every_other),
    "multiplicative_per_group": lambda T, L: L.MultiplicativeLR(_opt(T), [_every_other, lambda e: 0.8]),
    "constant": lambda T, L: L.ConstantLR(_opt(T), factor=0.25, total_iters=4),
    "constant_defaults": lambda T, L: L.ConstantLR(_opt(T, "adam")),
    "polynomial": lambda T, L: L.PolynomialLR(_opt(T), total_iters=7, power=2.0),
    "polynomial_defaults": lambda T, L: L.PolynomialLR(_opt(T)),
    "cyclic_triangular": lambda T, L: L.CyclicLR(_opt(T), 0.01, [0.1, 0.05], step_size_up=3, step_size_down=2),
    "cyclic_triangular2_adam": lambda T, L: L.CyclicLR(_opt(T, "adam"), 0.01, 0.1, step_size_up=2,
                                                       mode="triangular2", base_momentum=0.7, max_momentum=0.95),
    "cyclic_exp_range": lambda T, L: L.CyclicLR(_opt(T), [0.01, 0.02], 0.1, step_size_up=3, mode="exp_range",
                                                gamma=0.9, cycle_momentum=False),
    "cyclic_scale_fn_iterations": lambda T, L: L.CyclicLR(_opt(T), 0.01, 0.1, step_size_up=2,
                                                          scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations"),
    "chained": lambda T, L: (lambda o: L.ChainedScheduler([L.ConstantLR(o, factor=0.5, total_iters=3),
                                                           L.ExponentialLR(o, gamma=0.9),
                                                           L.PolynomialLR(o, total_iters=10)]))(_opt(T)),
    "sequential_polynomial_then_multiplicative": lambda T, L: (lambda o: L.SequentialLR(
        o, [L.PolynomialLR(o, total_iters=4), L.MultiplicativeLR(o, lambda e: 0.8)], milestones=[3]))(_opt(T)),
    "sequential_constant_then_polynomial": lambda T, L: (lambda o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.5, total_iters=2), L.PolynomialLR(o, total_iters=6, power=0.5)],
        milestones=[4]))(_opt(T, "adam")),
}


def _momentum(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def schedule(T, name, epochs=16):  # noqa: N803
    """Every epoch's ``[lr0, lr1, momentum0, momentum1]``, read before each step."""
    sched = CASES[name](T, T.optim.lr_scheduler)
    out = []
    for _ in range(epochs):
        groups = sched.optimizer.param_groups
        out.append([g["lr"] for g in groups] + [_momentum(g) for g in groups])
        assert sched.get_last_lr() == [g["lr"] for g in groups]
        sched.optimizer.step()
        sched.step()
    return out


# made offline: schedule(torch, name)
EXPECTED = {
    "chained": [
        [0.05, 0.025, 0.9, 0.9],
        [0.04050000000000001, 0.020250000000000004, 0.9, 0.9],
        [0.03240000000000001, 0.016200000000000006, 0.9, 0.9],
        [0.05103000000000001, 0.025515000000000006, 0.9, 0.9],
        [0.03936600000000001, 0.019683000000000006, 0.9, 0.9],
        [0.029524500000000013, 0.014762250000000006, 0.9, 0.9],
        [0.021257640000000008, 0.010628820000000004, 0.9, 0.9],
        [0.01434890700000001, 0.007174453500000005, 0.9, 0.9],
        [0.008609344200000002, 0.004304672100000001, 0.9, 0.9],
        [0.0038742048900000012, 0.0019371024450000006, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
    ],
    "constant": [
        [0.025, 0.0125, 0.9, 0.9],
        [0.025, 0.0125, 0.9, 0.9],
        [0.025, 0.0125, 0.9, 0.9],
        [0.025, 0.0125, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
    ],
    "constant_defaults": [
        [0.03333333333333333, 0.016666666666666666, 0.9, 0.9],
        [0.03333333333333333, 0.016666666666666666, 0.9, 0.9],
        [0.03333333333333333, 0.016666666666666666, 0.9, 0.9],
        [0.03333333333333333, 0.016666666666666666, 0.9, 0.9],
        [0.03333333333333333, 0.016666666666666666, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
    ],
    "cyclic_exp_range": [
        [0.01, 0.02, 0.9, 0.9],
        [0.03700000000000001, 0.04400000000000001, 0.9, 0.9],
        [0.0586, 0.06319999999999999, 0.9, 0.9],
        [0.07561000000000001, 0.07832000000000001, 0.9, 0.9],
        [0.04936600000000002, 0.05499200000000001, 0.9, 0.9],
        [0.027714699999999988, 0.03574639999999999, 0.9, 0.9],
        [0.01, 0.02, 0.9, 0.9],
        [0.02434890700000003, 0.032754584000000024, 0.9, 0.9],
        [0.03582803259999999, 0.042958251199999985, 0.9, 0.9],
        [0.04486784401000001, 0.05099363912, 0.9, 0.9],
        [0.03092070640599999, 0.03859618347199999, 0.9, 0.9],
        [0.019414317882700018, 0.028368282562400017, 0.9, 0.9],
        [0.01, 0.02, 0.9, 0.9],
        [0.017625597484986995, 0.026778308875543996, 0.9, 0.9],
        [0.023726075472976615, 0.03220095597597921, 0.9, 0.9],
        [0.028530201888518417, 0.03647129056757192, 0.9, 0.9],
    ],
    "cyclic_scale_fn_iterations": [
        [0.01, 0.01, 0.9, 0.9],
        [0.0325, 0.0325, 0.875, 0.875],
        [0.04, 0.04, 0.8666666666666667, 0.8666666666666667],
        [0.02125, 0.02125, 0.8875000000000001, 0.8875000000000001],
        [0.01, 0.01, 0.9, 0.9],
        [0.0175, 0.0175, 0.8916666666666667, 0.8916666666666667],
        [0.02285714285714286, 0.02285714285714286, 0.8857142857142858, 0.8857142857142858],
        [0.015625, 0.015625, 0.89375, 0.89375],
        [0.01, 0.01, 0.9, 0.9],
        [0.0145, 0.0145, 0.895, 0.895],
        [0.01818181818181818, 0.01818181818181818, 0.890909090909091, 0.890909090909091],
        [0.01375, 0.01375, 0.8958333333333334, 0.8958333333333334],
        [0.01, 0.01, 0.9, 0.9],
        [0.013214285714285715, 0.013214285714285715, 0.8964285714285715, 0.8964285714285715],
        [0.016, 0.016, 0.8933333333333333, 0.8933333333333333],
        [0.012812500000000001, 0.012812500000000001, 0.896875, 0.896875],
    ],
    "cyclic_triangular": [
        [0.01, 0.01, 0.9, 0.9],
        [0.039999999999999994, 0.02333333333333333, 0.8666666666666667, 0.8666666666666667],
        [0.06999999999999999, 0.03666666666666666, 0.8333333333333334, 0.8333333333333334],
        [0.09999999999999999, 0.049999999999999996, 0.8, 0.8],
        [0.055, 0.03, 0.8500000000000001, 0.8500000000000001],
        [0.01, 0.01, 0.9, 0.9],
        [0.04000000000000003, 0.023333333333333345, 0.8666666666666667, 0.8666666666666667],
        [0.06999999999999999, 0.03666666666666666, 0.8333333333333334, 0.8333333333333334],
        [0.09999999999999999, 0.049999999999999996, 0.8, 0.8],
        [0.05500000000000005, 0.03000000000000002, 0.85, 0.85],
        [0.01, 0.01, 0.9, 0.9],
        [0.04000000000000003, 0.023333333333333345, 0.8666666666666667, 0.8666666666666667],
        [0.06999999999999999, 0.03666666666666666, 0.8333333333333334, 0.8333333333333334],
        [0.09999999999999999, 0.049999999999999996, 0.8, 0.8],
        [0.05500000000000005, 0.03000000000000002, 0.85, 0.85],
        [0.01, 0.01, 0.9, 0.9],
    ],
    "cyclic_triangular2_adam": [
        [0.01, 0.01, 0.95, 0.95],
        [0.05500000000000001, 0.05500000000000001, 0.825, 0.825],
        [0.1, 0.1, 0.7, 0.7],
        [0.05500000000000001, 0.05500000000000001, 0.825, 0.825],
        [0.01, 0.01, 0.95, 0.95],
        [0.0325, 0.0325, 0.8875, 0.8875],
        [0.05500000000000001, 0.05500000000000001, 0.825, 0.825],
        [0.0325, 0.0325, 0.8875, 0.8875],
        [0.01, 0.01, 0.95, 0.95],
        [0.02125, 0.02125, 0.91875, 0.91875],
        [0.0325, 0.0325, 0.8875, 0.8875],
        [0.02125, 0.02125, 0.91875, 0.91875],
        [0.01, 0.01, 0.95, 0.95],
        [0.015625, 0.015625, 0.934375, 0.934375],
        [0.02125, 0.02125, 0.91875, 0.91875],
        [0.015625, 0.015625, 0.934375, 0.934375],
    ],
    "multiplicative": [
        [0.1, 0.05, 0.9, 0.9],
        [0.09000000000000001, 0.045000000000000005, 0.9, 0.9],
        [0.0855, 0.04275, 0.9, 0.9],
        [0.07695, 0.038475, 0.9, 0.9],
        [0.0731025, 0.03655125, 0.9, 0.9],
        [0.06579225, 0.032896125, 0.9, 0.9],
        [0.0625026375, 0.03125131875, 0.9, 0.9],
        [0.05625237375, 0.028126186875, 0.9, 0.9],
        [0.0534397550625, 0.02671987753125, 0.9, 0.9],
        [0.048095779556249996, 0.024047889778124998, 0.9, 0.9],
        [0.04569099057843749, 0.022845495289218747, 0.9, 0.9],
        [0.04112189152059374, 0.02056094576029687, 0.9, 0.9],
        [0.03906579694456405, 0.019532898472282026, 0.9, 0.9],
        [0.03515921725010765, 0.017579608625053825, 0.9, 0.9],
        [0.03340125638760227, 0.016700628193801133, 0.9, 0.9],
        [0.030061130748842042, 0.015030565374421021, 0.9, 0.9],
    ],
    "multiplicative_per_group": [
        [0.1, 0.05, 0.9, 0.9],
        [0.09000000000000001, 0.04000000000000001, 0.9, 0.9],
        [0.0855, 0.03200000000000001, 0.9, 0.9],
        [0.07695, 0.025600000000000008, 0.9, 0.9],
        [0.0731025, 0.02048000000000001, 0.9, 0.9],
        [0.06579225, 0.016384000000000006, 0.9, 0.9],
        [0.0625026375, 0.013107200000000006, 0.9, 0.9],
        [0.05625237375, 0.010485760000000005, 0.9, 0.9],
        [0.0534397550625, 0.008388608000000004, 0.9, 0.9],
        [0.048095779556249996, 0.006710886400000004, 0.9, 0.9],
        [0.04569099057843749, 0.005368709120000003, 0.9, 0.9],
        [0.04112189152059374, 0.0042949672960000025, 0.9, 0.9],
        [0.03906579694456405, 0.0034359738368000023, 0.9, 0.9],
        [0.03515921725010765, 0.002748779069440002, 0.9, 0.9],
        [0.03340125638760227, 0.002199023255552002, 0.9, 0.9],
        [0.030061130748842042, 0.0017592186044416017, 0.9, 0.9],
    ],
    "polynomial": [
        [0.1, 0.05, 0.9, 0.9],
        [0.07346938775510206, 0.03673469387755103, 0.9, 0.9],
        [0.05102040816326531, 0.025510204081632654, 0.9, 0.9],
        [0.03265306122448979, 0.016326530612244896, 0.9, 0.9],
        [0.018367346938775515, 0.009183673469387758, 0.9, 0.9],
        [0.008163265306122451, 0.004081632653061226, 0.9, 0.9],
        [0.0020408163265306146, 0.0010204081632653073, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
    ],
    "polynomial_defaults": [
        [0.1, 0.05, 0.9, 0.9],
        [0.08000000000000002, 0.04000000000000001, 0.9, 0.9],
        [0.060000000000000005, 0.030000000000000002, 0.9, 0.9],
        [0.04000000000000001, 0.020000000000000004, 0.9, 0.9],
        [0.02, 0.01, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
    ],
    "sequential_constant_then_polynomial": [
        [0.05, 0.025, 0.9, 0.9],
        [0.05, 0.025, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.1, 0.05, 0.9, 0.9],
        [0.09128709291752769, 0.045643546458763846, 0.9, 0.9],
        [0.08164965809277261, 0.040824829046386304, 0.9, 0.9],
        [0.07071067811865475, 0.035355339059327376, 0.9, 0.9],
        [0.057735026918962574, 0.028867513459481287, 0.9, 0.9],
        [0.0408248290463863, 0.02041241452319315, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
        [0.0, 0.0, 0.9, 0.9],
    ],
    "sequential_polynomial_then_multiplicative": [
        [0.1, 0.05, 0.9, 0.9],
        [0.07500000000000001, 0.037500000000000006, 0.9, 0.9],
        [0.05, 0.025, 0.9, 0.9],
        [0.04000000000000001, 0.020000000000000004, 0.9, 0.9],
        [0.03200000000000001, 0.016000000000000004, 0.9, 0.9],
        [0.025600000000000008, 0.012800000000000004, 0.9, 0.9],
        [0.02048000000000001, 0.010240000000000004, 0.9, 0.9],
        [0.016384000000000006, 0.008192000000000003, 0.9, 0.9],
        [0.013107200000000006, 0.006553600000000003, 0.9, 0.9],
        [0.010485760000000005, 0.005242880000000003, 0.9, 0.9],
        [0.008388608000000004, 0.004194304000000002, 0.9, 0.9],
        [0.006710886400000004, 0.003355443200000002, 0.9, 0.9],
        [0.005368709120000003, 0.0026843545600000016, 0.9, 0.9],
        [0.0042949672960000025, 0.0021474836480000013, 0.9, 0.9],
        [0.0034359738368000023, 0.0017179869184000011, 0.9, 0.9],
        [0.002748779069440002, 0.001374389534720001, 0.9, 0.9],
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_schedules_are_pytorchs(name):
    np.testing.assert_allclose(schedule(mg, name), EXPECTED[name], rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_state_dict_resumes_the_schedule_bit_for_bit(name):
    L = mg.optim.lr_scheduler
    want = schedule(mg, name, 12)
    first = CASES[name](mg, L)
    for _ in range(5):
        first.optimizer.step()
        first.step()
    saved_opt, saved = first.optimizer.state_dict(), first.state_dict()
    assert all(not callable(v) for v in saved.values())  # plain data: lambdas are code, not state
    second = CASES[name](mg, L)
    second.optimizer.load_state_dict(saved_opt)
    second.load_state_dict(saved)
    got = []
    for _ in range(5, 12):
        groups = second.optimizer.param_groups
        got.append([g["lr"] for g in groups] + [_momentum(g) for g in groups])
        second.optimizer.step()
        second.step()
    assert got == want[5:]


def test_construction_errors_are_clear():
    L = mg.optim.lr_scheduler
    with pytest.raises(ValueError, match="factor"):
        L.ConstantLR(_opt(mg), factor=1.5)
    with pytest.raises(ValueError, match="lr_lambdas"):
        L.MultiplicativeLR(_opt(mg), [_every_other])
    with pytest.raises(ValueError, match="mode"):
        L.CyclicLR(_opt(mg), 0.01, 0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="momentum"):
        L.CyclicLR(mg.optim.Rprop([mg.zeros(1, requires_grad=True)]), 0.01, 0.1)
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        o = _opt(mg)
        L.ChainedScheduler([L.ConstantLR(o), L.ReduceLROnPlateau(o)])
    with pytest.raises(ValueError, match="same optimizer"):
        L.ChainedScheduler([L.ConstantLR(_opt(mg)), L.ConstantLR(_opt(mg))])


# ------------------------------------------------ PyTorch's deprecated scheduler.step(epoch)
def _deprecated_step_schedules(L):  # noqa: N803  (L: the lr_scheduler module, mg's or torch's)
    return {
        "StepLR": lambda o: L.StepLR(o, step_size=2, gamma=0.5),
        "MultiStepLR": lambda o: L.MultiStepLR(o, milestones=[2, 4, 4], gamma=0.5),
        "ExponentialLR": lambda o: L.ExponentialLR(o, gamma=0.9),
        "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
        "LinearLR": lambda o: L.LinearLR(o, start_factor=0.25, total_iters=4),
        "ConstantLR": lambda o: L.ConstantLR(o, factor=0.5, total_iters=3),
        "PolynomialLR": lambda o: L.PolynomialLR(o, total_iters=4, power=2.0),
        "LambdaLR": lambda o: L.LambdaLR(o, lambda e: 1.0 / (1 + e)),
        "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, lambda e: 0.9),
        "CyclicLR": lambda o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
        "OneCycleLR": lambda o: L.OneCycleLR(o, max_lr=0.1, total_steps=20),
        "CosineAnnealingWarmRestarts": lambda o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    }


_EPOCHS = [None, None, 5, None, 2, None, 7]  # None: step(); a number: step(epoch)
# torch 2.13, the same code with torch for mg: SGD([zeros(1)], lr=0.1, momentum=0.9), the scheduler built
# as above, then for e in _EPOCHS: s.step() or s.step(e); the group's lr after each call, how many
# EPOCH_DEPRECATION_WARNINGs each call gave, and s.last_epoch at the end (7 for all). The closed forms
# (StepLR ... PolynomialLR) jump; the others evaluate get_lr() at the epoch; CosineAnnealingWarmRestarts has
# its own step(epoch), without the warning.
_DEPRECATED_STEP_EXPECTED = {
    "StepLR": [0.1, 0.05, 0.025, 0.0125, 0.05, 0.05, 0.0125],
    "MultiStepLR": [0.1, 0.05, 0.0125, 0.0125, 0.05, 0.05, 0.0125],
    "ExponentialLR": [0.09000000000000001, 0.08100000000000002, 0.05904900000000001, 0.053144100000000014,
                      0.08100000000000002, 0.07290000000000002, 0.04782969000000001],
    "CosineAnnealingLR": [0.08681980515339464, 0.05500000000000001, 0.023180194846605356, 0.055,
                          0.05500000000000001, 0.023180194846605363, 0.08681980515339464],
    "LinearLR": [0.043750000000000004, 0.06250000000000001, 0.1, 0.1, 0.0625, 0.08125, 0.1],
    "ConstantLR": [0.05, 0.05, 0.1, 0.1, 0.05, 0.1, 0.1],
    "PolynomialLR": [0.05625, 0.024999999999999998, 0.0, 0.0, 0.025, 0.00625, 0.0],
    "LambdaLR": [0.05, 0.03333333333333333, 0.016666666666666666, 0.014285714285714285, 0.03333333333333333,
                 0.025, 0.0125],
    "MultiplicativeLR": [0.09000000000000001, 0.08100000000000002, 0.07290000000000002, 0.06561000000000002,
                         0.05904900000000002, 0.05314410000000002, 0.04782969000000002],
    "CyclicLR": [0.040000000000000015, 0.06999999999999999, 0.03999999999999998, 0.01, 0.06999999999999999, 0.1,
                 0.040000000000000056],
    "OneCycleLR": [0.013167184270002533, 0.037167184270002526, 0.1, 0.09874640062350874, 0.037167184270002526,
                   0.06683281572999747, 0.09504846320134738],
    "CosineAnnealingWarmRestarts": [0.07500000000000001, 0.025000000000000012, 0.07500000000000001, 0.05,
                                    0.025000000000000012, 0.1, 0.025000000000000012],
}


@pytest.mark.parametrize("name", sorted(_DEPRECATED_STEP_EXPECTED))
def test_step_with_an_epoch_jumps_there_with_pytorchs_warning(name):
    import warnings

    from minigrad_ckpt.optim import lr_scheduler as L
    opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    sched = _deprecated_step_schedules(L)[name](opt)
    lrs, warned = [], []
    for e in _EPOCHS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step() if e is None else sched.step(e)
        warned.append(sum(str(w.message) == L.EPOCH_DEPRECATION_WARNING for w in caught))
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(lrs, _DEPRECATED_STEP_EXPECTED[name], rtol=1e-13, atol=1e-17)
    deprecated = name != "CosineAnnealingWarmRestarts"
    assert warned == [int(deprecated and e is not None) for e in _EPOCHS]
    assert sched.last_epoch == 7


def test_reduce_lr_on_plateau_step_with_an_epoch_sets_last_epoch_with_pytorchs_warning():
    """torch 2.13: ReduceLROnPlateau(SGD(lr=0.1), patience=1); step(1.0), step(2.0, 5), step(2.0),
    step(2.0, 9), step(0.5) give (lr, last_epoch) as below, the warning on the calls with an epoch."""
    import warnings

    from minigrad_ckpt.optim import lr_scheduler as L
    opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    sched = L.ReduceLROnPlateau(opt, patience=1)
    got = []
    for metric, epoch in [(1.0, None), (2.0, 5), (2.0, None), (2.0, 9), (0.5, None)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step(metric) if epoch is None else sched.step(metric, epoch)
        assert len(caught) == int(epoch is not None)
        got.append((opt.param_groups[0]["lr"], sched.last_epoch))
    assert got == [(0.1, 1), (0.1, 5), (0.010000000000000002, 6), (0.010000000000000002, 9),
                   (0.010000000000000002, 10)]
