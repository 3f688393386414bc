"""An optimizer's param groups hold their hyper-parameters in PyTorch's order (torch 2.13's, listed below):
``state_dict()["param_groups"]``, a saved checkpoint, ``print(optimizer.param_groups)`` and a loop over
``group.items()`` show them as PyTorch's do.  Adam, AdamW, Adadelta, Adagrad, NAdam, RAdam, RMSprop and
Rprop had them in another order (Adam: ``foreach`` before ``maximize``; RMSprop: ``momentum`` fifth)."""

import pytest

import minigrad_ckpt as mg

TORCH_ORDER = {  # list(torch.optim.<name>([p]).param_groups[0]), torch 2.13
    "Adam": ["params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach", "capturable",
             "differentiable", "fused", "decoupled_weight_decay"],
    "AdamW": ["params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach", "capturable",
              "differentiable", "fused", "decoupled_weight_decay"],
    "Adadelta": ["params", "lr", "rho", "eps", "weight_decay", "maximize", "capturable", "foreach", "differentiable"],
    "Adagrad": ["params", "lr", "lr_decay", "eps", "weight_decay", "initial_accumulator_value", "foreach", "maximize",
                "differentiable", "fused"],
    "NAdam": ["params", "lr", "betas", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay", "maximize",
              "foreach", "capturable", "differentiable"],
    "RAdam": ["params", "lr", "betas", "eps", "weight_decay", "maximize", "foreach", "capturable",
              "decoupled_weight_decay", "differentiable"],
    "RMSprop": ["params", "lr", "momentum", "alpha", "eps", "centered", "weight_decay", "capturable", "foreach",
                "maximize", "differentiable"],
    "Rprop": ["params", "lr", "etas", "step_sizes", "foreach", "maximize", "differentiable", "capturable"],
    "SGD": ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
            "differentiable", "fused"],
    "Adamax": ["params", "lr", "betas", "eps", "weight_decay", "foreach", "maximize", "differentiable", "capturable"],
}


@pytest.mark.parametrize("name", list(TORCH_ORDER))
def test_the_groups_keys_are_in_pytorchs_order(name):
    p, q = mg.nn.Parameter(mg.ones(2)), mg.nn.Parameter(mg.ones(1))
    opt = getattr(mg.optim, name)([p], lr=0.5)
    opt.add_param_group({"params": [q], "lr": 0.25})
    want = TORCH_ORDER[name]
    assert list(opt.defaults) == want[1:]
    assert [list(g) for g in opt.param_groups] == [want, want]
    saved = want[1:] + ["params"]  # (PyTorch's state_dict packs the parameters' ids last)
    assert [list(g) for g in opt.state_dict()["param_groups"]] == [saved, saved]
    (p.sum() + q.sum()).backward()
    opt.step()
    again = getattr(mg.optim, name)([p], lr=0.5)
    again.add_param_group({"params": [q]})
    again.load_state_dict(opt.state_dict())
    # (PyTorch's load takes the saved groups, the parameters put back last)
    assert [list(g) for g in again.param_groups] == [saved, saved] and again.param_groups[1]["lr"] == 0.25
