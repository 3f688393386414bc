"""Optimizer behaviour PyTorch users rely on, checked against numbers PyTorch 2.13 (CPU) gave:
what ``Optimizer(params)`` and ``add_param_group`` accept and refuse, and what ``load_state_dict``
does with a state saved by a differently-built optimizer.  torch is not imported: its values are
pasted as literals, each with the torch program that made it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim


def test_a_frozen_parameter_is_accepted_and_never_stepped() -> None:
    # torch.optim.SGD(model.parameters()) with a frozen layer works: requires_grad is not checked
    model = nn.Linear(2, 1)
    model.weight.requires_grad_(False)
    weight, bias = model.weight.numpy().copy(), model.bias.numpy().copy()
    opt = optim.SGD(model.parameters(), lr=0.1)
    model(mg.ones(3, 2)).sum().backward()
    opt.step()
    assert np.array_equal(model.weight.numpy(), weight)
    np.testing.assert_allclose(model.bias.numpy(), bias - 0.1 * 3, rtol=1e-6)


def test_what_the_constructor_and_add_param_group_refuse_as_pytorch_does() -> None:
    a, b = mg.ones(3, requires_grad=True), mg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(a, lr=0.1)  # one tensor, not a list of them (its rows are not leaves)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {a, b}}], lr=0.1)
    opt = optim.SGD([a], lr=0.1)
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([b])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([a * 2], lr=0.1)
    kept = a * 2
    kept.retain_grad()  # a non-leaf that retains its gradient is accepted, as in PyTorch
    optim.SGD([kept], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([b, b], lr=0.1)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        optim.Adam([b], fused=True, foreach=True)


def test_the_group_dict_is_the_group_and_named_parameters_keep_their_names() -> None:
    a, b = mg.ones(3, requires_grad=True), mg.ones(2, requires_grad=True)
    group = {"params": [a]}
    opt = optim.SGD([group], lr=0.1)
    group["lr"] = 0.5  # PyTorch stores the dict it was given
    assert opt.param_groups[0]["lr"] == 0.5
    # torch.optim.Adam([("a", a), ("b", b)], lr=0.1); a.grad = ones; step(): state_dict's group has
    # "param_names": ["a", "b"] and "params": [0, 1]; its state is keyed 0 only
    opt = optim.Adam([("a", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["params"] == [a, b]
    a.grad = mg.ones(3)
    opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"][0]["param_names"] == ["a", "b"] and sd["param_groups"][0]["params"] == [0, 1]
    assert list(sd["state"]) == [0]
    with pytest.raises(ValueError, match="with/without names"):
        opt.add_param_group({"params": [mg.ones(1, requires_grad=True)]})


def test_loaded_state_takes_the_parameters_dtype() -> None:
    # p = torch.tensor([0.5, -1.25, 2.0], dtype=float64); Adam(lr=0.1), grads [0.3, -0.2, 0.1], [0.1, 0.4, -0.3];
    # q = p.float(); o2 = Adam([q], lr=0.1); o2.load_state_dict(o.state_dict()): exp_avg/exp_avg_sq float32,
    # then grads [0.2, 0.2, -0.5], [-0.7, 0.1, 0.3] give q =
    expected = np.array([0.23796620965003967, -1.2918401956558228, 2.051886558532715], dtype=np.float32)
    p = mg.tensor([0.5, -1.25, 2.0], dtype="float64", requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    for g in ([0.3, -0.2, 0.1], [0.1, 0.4, -0.3]):
        p.grad = mg.tensor(g, dtype="float64")
        opt.step()
    q = p.detach().float().requires_grad_()
    opt2 = optim.Adam([q], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.state[q]["exp_avg"].dtype == mg.float32 and opt2.state[q]["exp_avg_sq"].dtype == mg.float32
    for g in ([0.2, 0.2, -0.5], [-0.7, 0.1, 0.3]):
        q.grad = mg.tensor(g, dtype="float32")
        opt2.step()
    np.testing.assert_array_max_ulp(q.numpy(), expected, maxulp=2)


def test_adamw_stays_decoupled_after_loading_an_adam_state() -> None:
    # o = torch.optim.Adam([p], lr=0.1, weight_decay=0.5), p = [0.5, -1.25, 2.0] float64, one step with
    # grad [0.3, -0.2, 0.1]; o2 = AdamW([q], lr=0.1); o2.load_state_dict(o.state_dict()) keeps
    # decoupled_weight_decay=True (weight_decay 0.5 from the state); grads [0.2, 0.2, -0.5], [-0.7, 0.1, 0.3]:
    expected = [0.2822289597214548, -0.9636323212792551, 1.6480161679482037]
    p = mg.tensor([0.5, -1.25, 2.0], dtype="float64", requires_grad=True)
    opt = optim.Adam([p], lr=0.1, weight_decay=0.5)
    p.grad = mg.tensor([0.3, -0.2, 0.1], dtype="float64")
    opt.step()
    q = p.detach().clone().requires_grad_()
    opt2 = optim.AdamW([q], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.param_groups[0]["decoupled_weight_decay"] is True
    for g in ([0.2, 0.2, -0.5], [-0.7, 0.1, 0.3]):
        q.grad = mg.tensor(g, dtype="float64")
        opt2.step()
    np.testing.assert_allclose(q.numpy(), expected, rtol=1e-15, atol=0)


def test_a_stray_weight_decay_key_does_not_decay_an_optimizer_without_one() -> None:
    # torch.optim.Rprop has no weight_decay: a group's "weight_decay" key is kept and ignored
    def run(extra):
        p = mg.tensor([1.0, -2.0], dtype="float64", requires_grad=True)
        opt = optim.Rprop([{"params": [p], **extra}], lr=0.1)
        for g in ([0.5, 0.5], [0.5, -0.5]):
            p.grad = mg.tensor(g, dtype="float64")
            opt.step()
        return p.numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(run({"weight_decay": 0.5}), run({}))


def _three_steps(opt, p) -> list[float]:
    for g in ([0.5, 0.25, -1.0], [0.1, -0.3, 0.2], [-0.4, 0.6, 0.3]):
        p.grad = mg.tensor(g, dtype="float64")
        opt.step()
    return p.numpy().tolist()


def test_tensor_learning_rates_and_betas_step_as_pytorchs() -> None:
    # torch.set_default_dtype(float64); p = [1.0, -2.0, 0.5]; grads [0.5, 0.25, -1.0], [0.1, -0.3, 0.2],
    # [-0.4, 0.6, 0.3]; NAdam(lr=tensor(0.01), betas=(tensor(0.9), tensor(0.99))) and Rprop(lr=tensor(0.01))
    # (both raised TypeError 'operand Tensor does not support ufuncs' here)
    before = mg.get_default_dtype()
    mg.set_default_dtype("float64")
    try:
        p = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = optim.NAdam([p], lr=mg.tensor(0.01), betas=(mg.tensor(0.9), mg.tensor(0.99)))
        np.testing.assert_allclose(_three_steps(opt, p), [0.9931159498501644, -2.012301527261859, 0.5064139794540952],
                                   rtol=2e-16, atol=0)
        p = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
        assert _three_steps(optim.Rprop([p], lr=mg.tensor(0.01)), p) == [0.978, -2.0149999999999997, 0.505]
    finally:
        mg.set_default_dtype(before)


def test_step_and_state_dict_hooks_run_as_pytorchs() -> None:
    # the same program under torch (torch.optim.optimizer.register_optimizer_step_pre_hook/_post_hook) gives
    # step() -> 3.0 and calls [("gpre", 1, []), ("pre", 1, []), "closure", ("post", 1, ["closure"]),
    # ("gpost", 1, ["closure"])]; state_dict() keys [extra, param_groups, state] with pre-hooks ["b", "a"];
    # a load pre-hook's dict is loaded (lr 0.7), the caller's is untouched (0.1). (No hooks existed here.)
    from minigrad_ckpt.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
    p = mg.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    calls = []

    def closure():
        calls.append("closure")
        return mg.tensor(3.0)
    g1 = register_optimizer_step_pre_hook(lambda o, a, k: calls.append(("gpre", len(a), sorted(k))))
    g2 = register_optimizer_step_post_hook(lambda o, a, k: calls.append(("gpost", len(a), sorted(k))))
    try:
        opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", len(a), sorted(k))))
        opt.register_step_post_hook(lambda o, a, k: calls.append(("post", len(a), sorted(k))))
        opt.register_step_pre_hook(lambda o, a, k: ((a[0],), {"closure": closure}))
        assert opt.step().item() == 3.0
    finally:
        g1.remove()
        g2.remove()
    assert calls == [("gpre", 1, []), ("pre", 1, []), "closure", ("post", 1, ["closure"]), ("gpost", 1, ["closure"])]
    order = []
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_state_dict_pre_hook(lambda o: order.append("a"))
    opt.register_state_dict_pre_hook(lambda o: order.append("b"), prepend=True)
    sd = opt.state_dict()
    assert sorted(sd) == ["extra", "param_groups", "state"] and order == ["b", "a"]
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {**sd, "param_groups": [dict(sd["param_groups"][0], lr=0.7)]})
    handle = opt.register_load_state_dict_post_hook(lambda o: order.append("loaded"))
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.7 and sd["param_groups"][0]["lr"] == 0.1 and order[-1] == "loaded"
    handle.remove()
    opt.load_state_dict(sd)
    assert order.count("loaded") == 1


def test_a_step_that_calls_its_base_step_runs_the_hooks_once() -> None:
    class Logged(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)
    p = mg.ones(2, requires_grad=True)
    p.grad = mg.ones(2)
    opt = Logged([p], lr=0.5)
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    assert calls == ["post"] and p.tolist() == [0.5, 0.5]
    lbfgs = optim.LBFGS([p])  # an optimizer with its own step runs them too
    lbfgs.register_step_pre_hook(lambda o, a, k: calls.append("lbfgs"))
    lbfgs.step(lambda: (p ** 2).sum())
    assert calls == ["post", "lbfgs"]


def test_zero_grad_without_none_detaches_a_gradient_built_with_create_graph() -> None:
    # torch: (p ** 3).sum().backward(create_graph=True); opt.zero_grad(set_to_none=False) leaves p.grad zeros
    # with requires_grad False and no grad_fn (detach_), so the next backward accumulates a plain gradient
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    (p ** 3).sum().backward(create_graph=True)
    assert p.grad.requires_grad
    opt.zero_grad(set_to_none=False)
    assert not p.grad.requires_grad and p.grad.grad_fn is None and p.grad.tolist() == [0.0, 0.0]
    (p ** 2).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0] and not p.grad.requires_grad


@pytest.mark.parametrize("name, kwargs, expected", [
    ("Adam", {}, 0.6500508088085901), ("AdamW", {}, 0.6497108055394268), ("RAdam", {}, 0.6795625717525701),
    ("Adamax", {}, 0.6578827283184306), ("Adagrad", {}, 0.6624343258819687),
    ("Adadelta", {}, 0.6997917796116098), ("RMSprop", {}, 0.3232611896358065),
    ("RMSprop", {"momentum": 0.9}, -0.36156287824267663)])
def test_a_tensor_lr_steps_a_0d_float64_parameter_in_float64(name, kwargs, expected) -> None:
    # p = torch.tensor(np.array(0.7), requires_grad=True); opt = Optimizer([p], lr=torch.tensor(0.01), **kwargs);
    # five steps with grads 0.3, 0.4, ..., 0.7 (torch 2.13).  A 0-d parameter's m / denom is a NumPy scalar,
    # which the float32 lr tensor narrowed to float32 (2e-8 off a step); a (1,)-shaped one was always right.
    for shape in ((), (1,)):
        p = mg.tensor(np.full(shape, 0.7), requires_grad=True)
        opt = getattr(optim, name)([p], lr=mg.tensor(0.01), **kwargs)
        for step in range(5):
            p.grad = mg.tensor(np.full(shape, 0.3 + 0.1 * step))
            opt.step()
        assert p.dtype == mg.float64
        np.testing.assert_allclose(p.detach().numpy(), np.full(shape, expected), rtol=1e-15, atol=0)  # (RMSprop
        # with momentum: 3 ulps, another rounding order of torch's fused add)


@pytest.mark.parametrize("name, kwargs", [("AdamW", {}), ("SGD", {"momentum": 0.9}), ("Adam", {}),
                                          ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True})])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_one_element_tensor_lr_steps_a_0d_parameter(name, kwargs, dtype):
    # torch 2.13 takes an lr tensor of shape (1,) for a 0-d parameter as its one value (the decoupled
    # decay and SGD's step had widened the parameter to (1,): refused as a broadcast)
    found = []
    for lr_shape in ((), (1,)):
        p = mg.tensor(np.array(0.7, dtype=dtype), requires_grad=True)
        opt = getattr(optim, name)([p], lr=mg.tensor(np.full(lr_shape, 0.01, dtype="float32")), **kwargs)
        for step in range(4):
            p.grad = mg.tensor(np.array(0.3 + 0.1 * step, dtype=dtype))
            opt.step()
        assert p.shape == () and p.dtype == np.dtype(dtype)
        found.append(p.detach().numpy())
    np.testing.assert_array_equal(found[1], found[0])
