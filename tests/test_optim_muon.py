"""``mg.optim.Muon`` against PyTorch 2.13's ``torch.optim.Muon`` (``tests/data/make_torch_muon.py``): 30 steps
of three matrices under four configurations, in float64 (to 1e-12) and float32 (round-off), with a float
and a tensor lr; the momentum buffers; a state dict taken midway and loaded into a fresh optimizer goes on
bit for bit; PyTorch's state-dict layout, printout and errors (its words pasted below).

PyTorch runs the Newton-Schulz iteration in bfloat16, which NumPy has not: here it runs in the
parameter's dtype, so the fixture's trajectories are torch's Muon with that one function's bfloat16 cast
removed; the real (bfloat16) trajectory is stored too and stays within its round-off."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from optim_cases import assert_resumes_bit_for_bit

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = np.load(Path(__file__).parent / "data" / "torch_muon.npz")
CONFIGS = {  # the generator's keyword arguments
    "defaults": {"lr": 0.02},
    "plain_momentum": {"lr": 0.05, "nesterov": False, "weight_decay": 0.0},
    "match_rms_adamw": {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw", "momentum": 0.9},
    "own_iteration": {"lr": 0.01, "adjust_lr_fn": "original", "ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5),
                      "eps": 1e-3},
}
TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-5, atol=2e-6)}
STEPS = 30


def params(dtype):
    return [nn.Parameter(mg.tensor(DATA[f"start{i}"], dtype=dtype)) for i in range(3)]


def run(ps, opt, steps):
    for k in steps:
        for i, p in enumerate(ps):
            p.grad = mg.tensor(DATA[f"grad{k}_{i}"], dtype=p.dtype)
        opt.step()


def muon(ps, config, lr_kind="float"):
    kwargs = dict(CONFIGS[config])
    if lr_kind == "tensor":
        kwargs["lr"] = mg.tensor(kwargs["lr"])  # float32, as torch.tensor(0.02)
    return optim.Muon(ps, **kwargs)


@pytest.mark.parametrize("lr_kind", ["float", "tensor"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_thirty_steps_follow_pytorch(config, dtype, lr_kind):
    ps = params(getattr(mg, dtype))
    opt = muon(ps, config, lr_kind)
    prefix = f"{config}_{dtype}_{lr_kind}"
    run(ps, opt, range(STEPS // 2))
    for i, p in enumerate(ps):
        np.testing.assert_allclose(p.detach().numpy(), DATA[f"{prefix}_step{STEPS // 2}_{i}"], **TOL[dtype])
    run(ps, opt, range(STEPS // 2, STEPS))
    for i, p in enumerate(ps):
        assert p.dtype == getattr(mg, dtype)
        np.testing.assert_allclose(p.detach().numpy(), DATA[f"{prefix}_step{STEPS}_{i}"], **TOL[dtype])
        np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), DATA[f"{prefix}_step{STEPS}_buf{i}"],
                                   **TOL[dtype])


def test_pytorchs_bfloat16_iteration_differs_by_its_round_off_only():
    ps = params(mg.float64)
    run(ps, muon(ps, "defaults"), range(STEPS))
    for i, p in enumerate(ps):
        gap = np.abs(p.detach().numpy() - DATA[f"bf16_defaults_float64_step{STEPS}_{i}"]).max()
        assert 0 < gap < 1e-2  # 30 steps of lr 0.02 times bfloat16's 2**-8


def test_a_state_dict_taken_midway_goes_on_bit_for_bit(tmp_path):
    ps = params(mg.float64)
    opt = muon(ps, "defaults")
    run(ps, opt, range(15))
    mg.save({"params": [p.detach().clone() for p in ps], "opt": opt.state_dict()}, tmp_path / "ckpt.pt")
    run(ps, opt, range(15, STEPS))
    saved = mg.load(tmp_path / "ckpt.pt")
    resumed = [nn.Parameter(t) for t in saved["params"]]
    opt2 = optim.Muon(resumed)
    opt2.load_state_dict(saved["opt"])
    assert opt2.param_groups[0]["lr"] == 0.02
    run(resumed, opt2, range(15, STEPS))
    for p, q in zip(ps, resumed):
        assert p.detach().numpy().tobytes() == q.detach().numpy().tobytes()


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_pytorchs_state_dict_loaded_midway_goes_on_as_pytorch(config):
    prefix = f"{config}_float64_float"
    ps = [nn.Parameter(mg.tensor(DATA[f"{prefix}_step{STEPS // 2}_{i}"])) for i in range(3)]
    opt = muon(ps, config)
    group = {**opt.state_dict()["param_groups"][0]}
    opt.load_state_dict({"state": {i: {"momentum_buffer": DATA[f"{prefix}_step{STEPS // 2}_buf{i}"]}
                                   for i in range(3)}, "param_groups": [group]})
    run(ps, opt, range(STEPS // 2, STEPS))
    for i, p in enumerate(ps):
        np.testing.assert_allclose(p.detach().numpy(), DATA[f"{prefix}_step{STEPS}_{i}"], **TOL["float64"])


def test_state_dict_layout_and_printout_are_pytorchs():
    p = nn.Parameter(mg.randn(3, 4, dtype=mg.float64))
    opt = optim.Muon([p], lr=0.02)
    p.grad = mg.randn(3, 4, dtype=mg.float64)
    opt.step()
    sd = opt.state_dict()
    # torch 2.13: torch.optim.Muon([w], lr=0.02).state_dict() after one step
    assert sd["param_groups"] == [{"lr": 0.02, "weight_decay": 0.1, "momentum": 0.95, "nesterov": True,
                                   "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-07, "ns_steps": 5,
                                   "adjust_lr_fn": None, "params": [0]}]
    assert list(sd["param_groups"][0]) == ["lr", "weight_decay", "momentum", "nesterov", "ns_coefficients", "eps",
                                           "ns_steps", "adjust_lr_fn", "params"]
    assert list(sd["state"][0]) == ["momentum_buffer"] and sd["state"][0]["momentum_buffer"].dtype == mg.float64
    assert repr(opt) == ("Muon (\nParameter Group 0\n    adjust_lr_fn: None\n    eps: 1e-07\n    lr: 0.02\n"
                         "    momentum: 0.95\n    nesterov: True\n    ns_coefficients: (3.4445, -4.775, 2.0315)\n"
                         "    ns_steps: 5\n    weight_decay: 0.1\n)")


def test_param_groups_keep_their_own_hyper_parameters():
    a, b = nn.Parameter(mg.ones(2, 3, dtype=mg.float64)), nn.Parameter(mg.ones(4, 2, dtype=mg.float64))
    opt = optim.Muon([{"params": [a]}, {"params": [b], "lr": 0.0, "weight_decay": 0.0}], lr=0.1)
    a.grad, b.grad = mg.ones(2, 3, dtype=mg.float64), mg.ones(4, 2, dtype=mg.float64)
    opt.step()
    assert (b.detach().numpy() == 1).all() and (a.detach().numpy() < 1).all()


def test_a_snapshot_resumes_bit_for_bit(tmp_path):
    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4, bias=False), nn.Tanh(), nn.Linear(4, 2, bias=False)).double()
        opt = optim.Muon(model.parameters(), lr=0.02)
        return model, opt, mg.Executor(model, opt)

    def train(model, opt, ex, n):
        out = []
        for _ in range(n):
            opt.zero_grad()
            loss = ((model(mg.randn(5, 3, dtype=mg.float64)) - 0.5) ** 2).mean()
            loss.backward()
            opt.step()
            ex.step()
            out.append(loss.item())
        return out

    assert_resumes_bit_for_bit(tmp_path, build, train)


# torch 2.13's errors, word for word
@pytest.mark.parametrize("kwargs, message", [
    ({"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
    ({"momentum": -0.5}, "momentum should be >= 0 but is: -0.5"),
    ({"weight_decay": -0.1}, "weight decay should be >= 0 but is: -0.1"),
    ({"adjust_lr_fn": "x"}, "Adjust learning rate function x is not supported"),
    ({"lr": mg.tensor([0.1, 0.2])}, "Tensor lr must be 1-element"),
])
def test_bad_hyper_parameters_are_refused_in_pytorchs_words(kwargs, message):
    with pytest.raises(ValueError) as e:
        optim.Muon([nn.Parameter(mg.zeros(2, 2))], **kwargs)
    assert str(e.value) == message


def test_only_two_dimensional_parameters():
    with pytest.raises(ValueError) as e:
        optim.Muon([nn.Parameter(mg.zeros(2, 2)), nn.Parameter(mg.zeros(3))])
    assert str(e.value) == "Muon only supports 2D parameters whereas we found a parameter with size: torch.Size([3])"
    opt = optim.Muon([nn.Parameter(mg.zeros(2, 2))])  # a group added later is checked at the step, as PyTorch's
    bias = nn.Parameter(mg.zeros(3))
    opt.add_param_group({"params": [bias]})
    bias.grad = mg.ones(3)
    with pytest.raises(ValueError, match="^Param gradient must be a 2D matrix$"):
        opt.step()


def test_a_one_element_tensor_lr_of_any_shape_is_taken():
    p = nn.Parameter(mg.ones(2, 3))
    optim.Muon([p], lr=mg.tensor([[0.001]]))


@pytest.mark.parametrize("kwargs, message", [
    ({"ns_steps": 100}, "Number of steps must be less than 100 for computational efficiency"),
    ({"ns_coefficients": (1.0, 2.0)}, "Coefficients must be a tuple of exactly 3 values"),
])
def test_bad_iterations_are_refused_at_the_step(kwargs, message):
    p = nn.Parameter(mg.ones(2, 3))
    opt = optim.Muon([p], **kwargs)
    p.grad = mg.ones(2, 3)
    with pytest.raises(ValueError) as e:
        opt.step()
    assert str(e.value) == message


def test_complex_parameters_are_refused_at_the_step():
    p = nn.Parameter(mg.ones(2, 3, dtype=mg.complex128))
    opt = optim.Muon([p])
    p.grad = mg.ones(2, 3, dtype=mg.complex128)
    with pytest.raises(RuntimeError, match="^Muon does not support complex parameters$"):
        opt.step()


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("lr_kind", ["float", "tensor"])
def test_device_parameters_step_as_on_the_cpu(device, lr_kind):
    # a CPU tensor lr beside device parameters, as torch takes lr=torch.tensor(0.02) beside GPU ones
    def steps(dev):
        ps = [nn.Parameter(mg.tensor(DATA[f"start{i}"], dtype=mg.float32, device=dev)) for i in range(3)]
        opt = muon(ps, "defaults", lr_kind)
        for k in range(3):
            for i, p in enumerate(ps):
                p.grad = mg.tensor(DATA[f"grad{k}_{i}"], dtype=mg.float32, device=dev)
            opt.step()
        assert all(p.device == mg.device(dev) for p in ps)
        return [p.detach().to("cpu").numpy() for p in ps]

    for got, want in zip(steps(device), steps("cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_an_infinite_gradient_steps_silently_to_torchs_nans():
    # torch 2.13: Muon([w], lr=0.1), w = ones(2, 3), grad [[inf, 1, 1], [1, 1, 1]]: w all NaN, the buffer
    # [[inf, 0.05, 0.05], [0.05, 0.05, 0.05]]
    w = nn.Parameter(mg.ones(2, 3))
    opt = optim.Muon([w], lr=0.1)
    w.grad = mg.tensor([[math.inf, 1.0, 1.0], [1.0, 1.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        opt.step()
    assert np.isnan(w.detach().numpy()).all()
    np.testing.assert_allclose(opt.state[w]["momentum_buffer"].numpy(), [[math.inf, 0.05, 0.05], [0.05] * 3], rtol=1e-6)


def test_added_groups_keep_pytorchs_key_order_through_a_state_dict():
    want = ["params", "lr", "weight_decay", "momentum", "nesterov", "ns_coefficients", "eps", "ns_steps",
            "adjust_lr_fn"]  # list(torch.optim.Muon([p]).param_groups[0]), torch 2.13
    p, q = nn.Parameter(mg.ones(2, 2)), nn.Parameter(mg.ones(3, 2))
    opt = optim.Muon([p], lr=0.5)
    opt.add_param_group({"params": [q], "lr": 0.25})
    assert list(opt.defaults) == want[1:] and [list(g) for g in opt.param_groups] == [want, want]
    (p.sum() + q.sum()).backward()
    opt.step()
    again = optim.Muon([p], lr=0.5)
    again.add_param_group({"params": [q]})
    again.load_state_dict(opt.state_dict())
    assert again.param_groups[1]["lr"] == 0.25


def test_a_refused_one_dimensional_step_leaves_the_parameter_undecayed():
    # torch 2.13 checks a gradient's dimensions before its decoupled decay: the added group's (3,) parameter
    # stays ones after the refused step (the engine decayed it to 0.9999 first); a 2-D one before it in the
    # same group is stepped, as torch's loop steps it
    square = mg.ones((2, 2), requires_grad=True)
    opt = optim.Muon([mg.ones((2, 2), requires_grad=True)], lr=0.01, weight_decay=0.5)
    flat = mg.ones(3, requires_grad=True)
    opt.add_param_group({"params": [square, flat]})
    square.grad, flat.grad = mg.ones((2, 2)), mg.ones(3)
    with pytest.raises(ValueError, match="^Param gradient must be a 2D matrix$"):
        opt.step()
    np.testing.assert_array_equal(flat.detach().numpy(), np.ones(3))
    assert (square.detach().numpy() != 1).all()
