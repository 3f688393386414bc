"""Optimizers by hand formula, parameter groups, state dicts, errors, gradient
clipping and LR schedules.  (10-step trainings against PyTorch are in
test_vs_torch_reference.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim

P0 = np.array([0.5, -1.0, 2.0])
G1 = np.array([0.1, -0.3, 0.7])
G2 = np.array([-0.2, 0.05, 0.4])


def param(value=P0) -> nn.Parameter:
    return nn.Parameter(mg.tensor(np.array(value, dtype=np.float64)))


def run(opt_cls, grads, **kwargs) -> list[np.ndarray]:
    """Step once per gradient; the parameter's value after every step."""
    p = param()
    opt = opt_cls([p], **kwargs)
    out = []
    for g in grads:
        p.grad = mg.tensor(g)
        opt.step()
        out.append(p.numpy().copy())
    return out


def close(a, b) -> None:
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


# ---------------------------------------------------------------------- SGD
def test_sgd_plain_and_weight_decay():
    p1, p2 = run(optim.SGD, [G1, G2], lr=0.1)
    close(p1, P0 - 0.1 * G1)
    close(p2, P0 - 0.1 * G1 - 0.1 * G2)
    (p1,) = run(optim.SGD, [G1], lr=0.1, weight_decay=0.01)
    close(p1, P0 - 0.1 * (G1 + 0.01 * P0))


def test_sgd_momentum_and_dampening():
    p1, p2 = run(optim.SGD, [G1, G2], lr=0.1, momentum=0.9, dampening=0.25)
    buf1 = G1  # first step: the buffer is the gradient itself (no dampening)
    close(p1, P0 - 0.1 * buf1)
    buf2 = 0.9 * buf1 + 0.75 * G2
    close(p2, p1 - 0.1 * buf2)


def test_sgd_nesterov_with_weight_decay():
    p1, p2 = run(optim.SGD, [G1, G2], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    d1 = G1 + 0.01 * P0
    buf1 = d1
    close(p1, P0 - 0.1 * (d1 + 0.9 * buf1))
    d2 = G2 + 0.01 * p1
    buf2 = 0.9 * buf1 + d2
    close(p2, p1 - 0.1 * (d2 + 0.9 * buf2))


def test_sgd_skips_parameters_without_grad():
    a, b = param(), param()
    opt = optim.SGD([a, b], lr=0.1, momentum=0.9)
    a.grad = mg.tensor(G1)
    opt.step()
    close(b.numpy(), P0)
    assert b not in opt.state


# --------------------------------------------------------------------- Adam
def adam_reference(grads, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decoupled=False, amsgrad=False):
    p = P0.copy()
    m = np.zeros(3)
    v = np.zeros(3)
    vmax = np.zeros(3)
    out = []
    for t, g in enumerate(grads, start=1):
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        vv = vmax if amsgrad else v
        p = p - lr * (m / (1 - b1**t)) / (np.sqrt(vv / (1 - b2**t)) + eps)
        out.append(p)
    return out


@pytest.mark.parametrize("kwargs", [
    {},
    {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6},
    {"lr": 0.01, "weight_decay": 0.1},
    {"lr": 0.01, "amsgrad": True},
    {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05},
])
def test_adam_two_steps_by_hand(kwargs):
    grads = [G1 * 10, G2, G1]  # a big gradient, then smaller ones (so amsgrad's max matters)
    got = run(optim.Adam, grads, **kwargs)
    b1, b2 = kwargs.get("betas", (0.9, 0.999))
    want = adam_reference(grads, lr=kwargs.get("lr", 1e-3), b1=b1, b2=b2, eps=kwargs.get("eps", 1e-8),
                          wd=kwargs.get("weight_decay", 0.0), amsgrad=kwargs.get("amsgrad", False))
    for a, b in zip(got, want):
        close(a, b)


@pytest.mark.parametrize("kwargs", [{"lr": 0.01}, {"lr": 0.01, "weight_decay": 0.2},
                                    {"lr": 0.01, "weight_decay": 0.2, "amsgrad": True}])
def test_adamw_decoupled_weight_decay_by_hand(kwargs):
    grads = [G1 * 10, G2, G1]
    got = run(optim.AdamW, grads, **kwargs)
    want = adam_reference(grads, lr=0.01, wd=kwargs.get("weight_decay", 0.01), decoupled=True,
                          amsgrad=kwargs.get("amsgrad", False))
    for a, b in zip(got, want):
        close(a, b)


def test_adam_and_adamw_differ_only_by_decay_rule():
    a = run(optim.Adam, [G1, G2], lr=0.01, weight_decay=0.0)
    w = run(optim.AdamW, [G1, G2], lr=0.01, weight_decay=0.0)
    close(a[-1], w[-1])
    assert optim.AdamW([param()]).defaults["weight_decay"] == 0.01
    assert optim.Adam([param()]).defaults["weight_decay"] == 0.0
    assert optim.Adam([param()]).defaults["betas"] == (0.9, 0.999)
    assert optim.SGD([param()], lr=0.1).defaults["momentum"] == 0.0


# ---------------------------------------------------------- parameter groups
def test_param_groups_with_their_own_lr_and_defaults():
    a, b = nn.Linear(3, 2, dtype="float64"), nn.Linear(2, 1, dtype="float64")
    opt = optim.SGD([{"params": a.parameters(), "lr": 0.5}, {"params": b.parameters(), "momentum": 0.9}], lr=0.01)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.01]
    assert [g["momentum"] for g in opt.param_groups] == [0.0, 0.9]
    before = {id(p): p.numpy().copy() for p in list(a.parameters()) + list(b.parameters())}
    b(a(mg.randn(4, 3, dtype="float64"))).sum().backward()
    opt.step()
    for p in a.parameters():
        close(p.numpy(), before[id(p)] - 0.5 * p.grad.numpy())
    for p in b.parameters():
        close(p.numpy(), before[id(p)] - 0.01 * p.grad.numpy())


def test_add_param_group_and_changing_lr_in_place():
    a, b = param(), param()
    opt = optim.SGD([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 1.0})
    assert len(opt.param_groups) == 2
    opt.param_groups[0]["lr"] = 0.0
    a.grad, b.grad = mg.tensor(G1), mg.tensor(G1)
    opt.step()
    close(a.numpy(), P0)
    close(b.numpy(), P0 - G1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_zero_grad():
    p = param()
    opt = optim.Adam([p])
    p.grad = mg.tensor(G1)
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and not p.grad.numpy().any()
    opt.zero_grad()
    assert p.grad is None
    opt.step()  # no gradient: nothing happens
    close(p.numpy(), P0)


# --------------------------------------------------------------- state dicts
def _train(model, opt, n, seed, sched=None):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = mg.tensor(rng.standard_normal((8, 4)))
        y = mg.tensor(rng.integers(0, 3, 8))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()


def _model():
    return nn.Sequential(nn.Linear(4, 8, dtype="float64"), nn.Tanh(), nn.Linear(8, 3, dtype="float64"))


@pytest.mark.parametrize("make", [
    lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
    lambda ps: optim.AdamW(ps, lr=0.01),
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
])
def test_state_dict_round_trip_continues_identically(make):
    mg.manual_seed(0)
    model = _model()
    opt = make(model.parameters())
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    _train(model, opt, 3, seed=1, sched=sched)
    saved_model = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    saved_opt = opt.state_dict()
    saved_sched = sched.state_dict()
    snapshot = {i: {k: (v.numpy().copy() if isinstance(v, mg.Tensor) else v) for k, v in s.items()}
                for i, s in saved_opt["state"].items()}
    _train(model, opt, 3, seed=2, sched=sched)
    # the saved state is a snapshot, not a view of the live state
    for i, s in saved_opt["state"].items():
        for k, v in s.items():
            if isinstance(v, mg.Tensor):
                np.testing.assert_array_equal(v.numpy(), snapshot[i][k])

    mg.manual_seed(99)
    model2 = _model()
    model2.load_state_dict(saved_model)
    opt2 = make(model2.parameters())
    opt2.load_state_dict(saved_opt)
    sched2 = optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5)
    sched2.load_state_dict(saved_sched)
    assert opt2.param_groups[0]["lr"] == saved_opt["param_groups"][0]["lr"]
    _train(model2, opt2, 3, seed=2, sched=sched2)
    for (k, a), b in zip(model.state_dict().items(), model2.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    assert sched2.get_last_lr() == sched.get_last_lr()


def test_state_dict_layout_like_torch():
    model = _model()
    opt = optim.Adam([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.1}])
    _train(model, opt, 1, seed=0)
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2, 3]]
    assert sd["param_groups"][1]["lr"] == 0.1
    assert set(sd["state"]) == {0, 1, 2, 3}
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert sd["state"][0]["step"] == 1


def test_load_state_dict_errors():
    model = _model()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    _train(model, opt, 1, seed=0)
    sd = opt.state_dict()
    other = optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters()}], lr=0.1)
    with pytest.raises(ValueError, match="parameter groups"):
        other.load_state_dict(sd)
    small = optim.SGD(model[0].parameters(), lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):  # PyTorch's words
        small.load_state_dict(sd)
    bad = opt.state_dict()
    bad["state"][0]["momentum_buffer"] = mg.zeros(5, 5, dtype="float64")
    with pytest.raises(ValueError, match="shape"):
        optim.SGD(model.parameters(), lr=0.1, momentum=0.9).load_state_dict(bad)


# -------------------------------------------------------------------- errors
@pytest.mark.parametrize("make, match", [
    # PyTorch's messages after the optimizer's name (torch.optim.SGD(p, lr=-0.1): "Invalid learning rate: -0.1")
    (lambda p: optim.SGD(p, lr=-0.1), "Invalid learning rate: -0.1"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD(p, lr=0.1, weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (lambda p: optim.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True), "Nesterov"),
    (lambda p: optim.Adam(p, lr=-1e-3), "Invalid learning rate: -0.001"),
    (lambda p: optim.Adam(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (lambda p: optim.Adam(p, weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.AdamW(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: optim.RMSprop(p, alpha=-0.5), "Invalid alpha value: -0.5"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda p: optim.Adagrad(p, initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (lambda p: optim.LBFGS(p, lr=-1), "Invalid learning rate: -1"),
])
def test_bad_hyper_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make([param()])


def test_bad_parameter_lists():
    with pytest.raises(ValueError, match="empty"):
        optim.SGD([], lr=0.1)
    optim.SGD([mg.ones(2)], lr=0.1)  # accepted, as PyTorch does (a frozen weight: it never has a gradient)
    p = param()
    with pytest.raises(ValueError, match="leaf"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="Tensor"):
        optim.SGD([np.ones(2)], lr=0.1)
    with pytest.raises(ValueError, match="more than one"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


# ------------------------------------------------------------ clip_grad_norm_
def _with_grads(*grads):
    ps = [param(np.zeros_like(g)) for g in grads]
    for p, g in zip(ps, grads):
        p.grad = mg.tensor(np.array(g, dtype=np.float64))
    return ps


def test_clip_grad_norm_returns_pre_clip_norm_and_clips():
    g1, g2 = np.array([3.0, 4.0]), np.array([12.0])
    ps = _with_grads(g1, g2)
    total = nn.utils.clip_grad_norm_(ps, max_norm=1.3)
    assert isinstance(total, mg.Tensor) and total.ndim == 0
    assert total.item() == pytest.approx(13.0, rel=1e-15)
    coef = 1.3 / (13.0 + 1e-6)
    close(ps[0].grad.numpy(), g1 * coef)
    close(ps[1].grad.numpy(), g2 * coef)
    new_norm = math.sqrt(sum((p.grad.numpy() ** 2).sum() for p in ps))
    assert new_norm == pytest.approx(1.3, rel=1e-6)


def test_clip_grad_norm_leaves_small_gradients_alone():
    ps = _with_grads([0.3, 0.4])
    assert nn.utils.clip_grad_norm_(ps, 1.0).item() == pytest.approx(0.5)
    close(ps[0].grad.numpy(), [0.3, 0.4])


def test_clip_grad_norm_inf_norm_single_tensor_and_missing_grads():
    ps = _with_grads([1.0, -5.0], [2.0])
    assert nn.utils.clip_grad_norm_(ps, 2.5, norm_type=math.inf).item() == 5.0
    close(ps[0].grad.numpy(), np.array([1.0, -5.0]) * 2.5 / (5.0 + 1e-6))
    (p,) = _with_grads([6.0, 8.0])
    assert nn.utils.clip_grad_norm_(p, 5.0).item() == pytest.approx(10.0)
    no_grad = param()
    assert nn.utils.clip_grad_norm_([no_grad, p], 100.0).item() == pytest.approx(5.0, rel=1e-6)
    assert nn.utils.clip_grad_norm_([param()], 1.0).item() == 0.0
    (q,) = _with_grads([1.0, 1.0])
    assert nn.utils.clip_grad_norm_([q], 1.0, norm_type=1).item() == pytest.approx(2.0)


def test_clip_grad_norm_nonfinite():
    (p,) = _with_grads([np.nan, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    (p,) = _with_grads([-3.0, 0.5, 2.0])
    nn.utils.clip_grad_value_([p], 1.0)
    close(p.grad.numpy(), [-1.0, 0.5, 1.0])


# --------------------------------------------------------------- schedulers
def _sched_lrs(make, n=8, lr=0.1):
    opt = optim.SGD([param()], lr=lr)
    sched = make(opt)
    lrs = [sched.get_last_lr()[0]]
    for _ in range(n):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    return lrs


def test_step_lr_by_hand():
    lrs = _sched_lrs(lambda o: optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5))
    close(lrs, [0.1 * 0.5 ** (e // 3) for e in range(9)])


def test_cosine_by_hand_within_t_max():
    lrs = _sched_lrs(lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.01))
    close(lrs, [0.01 + 0.09 * (1 + math.cos(math.pi * e / 8)) / 2 for e in range(9)])


def test_linear_lr_by_hand():
    lrs = _sched_lrs(lambda o: optim.lr_scheduler.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4))
    close(lrs, [0.1 * (0.25 + 0.75 * min(e, 4) / 4) for e in range(9)])


def test_scheduler_errors():
    opt = optim.SGD([param()], lr=0.1)
    with pytest.raises(ValueError):
        optim.lr_scheduler.StepLR(opt, step_size=0)
    with pytest.raises(ValueError):
        optim.lr_scheduler.CosineAnnealingLR(opt, T_max=0)
    with pytest.raises(ValueError):
        optim.lr_scheduler.LinearLR(opt, start_factor=0.0)
    with pytest.raises(TypeError, match="Optimizer"):
        optim.lr_scheduler.StepLR(object(), step_size=1)
