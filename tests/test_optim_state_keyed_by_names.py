"""An optimizer state dict whose parameters are named by something other than their index -- a
state dict re-keyed by parameter names (``{"state": {"w": ...}, "param_groups": [{"params": ["w"]}]}``)
-- loads as PyTorch 2.13's ``load_state_dict`` loads it: each saved id listed in a group is paired
with the parameter in its place, whatever the id is (PyTorch's ``id_map``).

Before, a string id was filed as a non-parameter entry (``opt.state["w"]``) and every parameter
started with empty state: the next step silently restarted Adam's moments.  PyTorch's numbers
(float64) are pasted below."""

import pytest

import minigrad_ckpt as mg

TORCH_LOADED_EXP_AVG_V = [0.09999999999999998, 0.5999999999999999, -0.19999999999999996]
TORCH_LOADED_EXP_AVG_SQ_W = [0.0010000000000000009, 0.0010000000000000009]
TORCH_AFTER_STEP_W = [0.8000000020000007, -2.199999997999999]
TORCH_AFTER_STEP_V = [0.10850196892274916, 2.6004781239084505, -0.6023748412468601]


def two_groups():
    a = mg.nn.Parameter(mg.tensor([1.0, -2.0], dtype=mg.float64))
    b = mg.nn.Parameter(mg.tensor([0.5, 3.0, -1.0], dtype=mg.float64))
    opt = mg.optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.2})
    return opt, a, b


def step(opt, a, b):
    opt.zero_grad()
    (a.sum() + (b ** 2).sum()).backward()
    opt.step()


def named_state_dict():
    opt, a, b = two_groups()
    step(opt, a, b)
    sd = opt.state_dict()
    groups = [dict(sd["param_groups"][0], params=["w"]), dict(sd["param_groups"][1], params=["v"])]
    return {"state": {"w": sd["state"][0], "v": sd["state"][1]}, "param_groups": groups}, a, b


def test_names_in_the_groups_pair_the_state_with_the_parameters():
    sd, a, b = named_state_dict()
    opt, a2, b2 = two_groups()
    with mg.no_grad():
        a2.copy_(a)
        b2.copy_(b)
    opt.load_state_dict(sd)
    assert all(isinstance(k, mg.Tensor) for k in opt.state)
    assert opt.state[b2]["exp_avg"].tolist() == TORCH_LOADED_EXP_AVG_V
    assert opt.state[a2]["exp_avg_sq"].tolist() == TORCH_LOADED_EXP_AVG_SQ_W
    step(opt, a2, b2)
    assert a2.tolist() == pytest.approx(TORCH_AFTER_STEP_W, rel=1e-14, abs=0)
    assert b2.tolist() == pytest.approx(TORCH_AFTER_STEP_V, rel=1e-14, abs=0)
    assert list(opt.state_dict()["state"]) == [0, 1]


def test_a_key_no_group_lists_is_still_kept_under_its_name():
    sd, _, _ = named_state_dict()
    sd["state"]["global_step"] = 7
    opt, a2, _ = two_groups()
    opt.load_state_dict(sd)
    assert opt.state["global_step"] == 7
    assert "exp_avg" in opt.state[a2]


def test_a_digit_string_still_names_the_index():
    opt, a, b = two_groups()
    step(opt, a, b)
    sd = opt.state_dict()
    sd["state"] = {str(k): v for k, v in sd["state"].items()}
    other, a2, _ = two_groups()
    other.load_state_dict(sd)
    assert other.state[a2]["exp_avg"].tolist() == opt.state[a]["exp_avg"].tolist()
