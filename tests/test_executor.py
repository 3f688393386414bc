"""Executor: named tensors, stable names for model and optimizer state, iteration, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(self.drop(mg.tanh(self.bn(self.fc1(x)))))


def build(seed: int = 0, opt_cls=optim.Adam):
    mg.manual_seed(seed)
    model = Net()
    opt = opt_cls(model.parameters(), lr=0.01)
    return model, opt, mg.Executor(model, opt)


def train_step(model, opt):
    loss = (model(mg.randn(5, 3)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


MODEL_NAMES = ["model.fc1.weight", "model.fc1.bias", "model.bn.weight", "model.bn.bias",
               "model.bn.running_mean", "model.bn.running_var", "model.bn.num_batches_tracked",
               "model.fc2.weight", "model.fc2.bias"]
PARAMS = ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]


# ------------------------------------------------------------------ user tensors
def test_add_get_remove_tensor_roundtrip():
    ex = mg.Executor()
    assert len(ex.tensors) == 0
    arr = np.arange(6, dtype=np.int16).reshape(2, 3)
    t = ex.add_tensor("counts", arr)
    assert isinstance(t, mg.Tensor)
    assert ex.get_tensor("counts") is t
    assert t.dtype == np.int16 and t.shape == (2, 3)
    np.testing.assert_array_equal(t.numpy(), arr)
    u = mg.tensor([1.0, 2.0])
    assert ex.add_tensor("u", u) is u  # a Tensor is registered as is, not copied
    assert list(ex.tensors) == ["counts", "u"]
    ex.add_tensor("counts", np.zeros(1))  # re-adding replaces
    assert ex.get_tensor("counts").shape == (1,)
    ex.remove_tensor("counts")
    assert list(ex.tensors) == ["u"]
    with pytest.raises(KeyError, match="counts"):
        ex.get_tensor("counts")
    with pytest.raises(KeyError, match="counts"):
        ex.remove_tensor("counts")


def test_tensors_is_a_read_only_view():
    ex = mg.Executor()
    ex.add_tensor("a", np.ones(2))
    view = ex.tensors
    with pytest.raises(TypeError):
        view["b"] = mg.tensor([1.0])  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        del view["a"]  # type: ignore[attr-defined]
    assert list(ex.tensors) == ["a"]


@pytest.mark.parametrize("name", ["model.w", "optimizer.state.x", "optimizer.lr", "__tape__/0", "__tape__"])
def test_reserved_names_are_refused(name):
    ex = mg.Executor()
    with pytest.raises(ValueError, match="reserved"):
        ex.add_tensor(name, np.ones(1))
    assert len(ex.tensors) == 0


@pytest.mark.parametrize("name", ["", None, 3, b"bytes"])
def test_invalid_names_are_refused(name):
    with pytest.raises(ValueError):
        mg.Executor().add_tensor(name, np.ones(1))


def test_model_and_optimizer_names_cannot_be_removed_but_can_be_read():
    model, opt, ex = build()
    assert np.shares_memory(ex.get_tensor("model.fc1.weight").numpy(), model.fc1.weight.numpy())
    with pytest.raises(KeyError):
        ex.remove_tensor("model.fc1.weight")
    with pytest.raises(KeyError, match="no tensor named 'model.nope'"):
        ex.get_tensor("model.nope")
    assert "model.fc1.weight" in ex.tensors


# ------------------------------------------------------------------ structured names
def test_model_parameters_and_buffers_have_stable_names():
    model, opt, ex = build()
    assert list(ex.tensors) == MODEL_NAMES  # Adam has no state before its first step
    for name in MODEL_NAMES:
        np.testing.assert_array_equal(ex.get_tensor(name).numpy(), model.state_dict()[name[6:]].numpy())
    assert ex.get_tensor("model.bn.num_batches_tracked").dtype == np.int64


def test_optimizer_moments_are_named_after_parameters():
    model, opt, ex = build()
    train_step(model, opt)
    expected = MODEL_NAMES + [f"optimizer.state.{p}.{k}" for p in PARAMS for k in ("exp_avg", "exp_avg_sq")]
    assert sorted(ex.tensors) == sorted(expected)
    for p_name, p in model.named_parameters():
        m = ex.get_tensor(f"optimizer.state.{p_name}.exp_avg")
        assert m.shape == p.shape
        assert np.shares_memory(m.numpy(), opt.state[p]["exp_avg"].numpy())
    st = ex.optimizer_state()
    assert st["type"] == "Adam"
    assert st["param_groups"][0]["params"] == PARAMS
    assert st["scalars"]["fc1.weight"] == {"step": 1}


def test_names_do_not_depend_on_seed_or_instance():
    m1, o1, ex1 = build(seed=0)
    m2, o2, ex2 = build(seed=1234)
    train_step(m1, o1)
    train_step(m2, o2)
    assert list(ex1.tensors) == list(ex2.tensors)
    assert not np.array_equal(ex1.get_tensor("model.fc1.weight").numpy(), ex2.get_tensor("model.fc1.weight").numpy())


def test_sgd_momentum_buffers_are_named():
    mg.manual_seed(0)
    model = nn.Linear(2, 2)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ex = mg.Executor(model, opt)
    train_step_linear = (model(mg.randn(3, 2)) ** 2).sum()
    train_step_linear.backward()
    opt.step()
    names = [n for n in ex.tensors if n.startswith("optimizer.")]
    assert names and all(n.split(".")[2] in ("weight", "bias") for n in names)


def test_optimizer_without_model_uses_positional_names():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0], requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    ex = mg.Executor(None, opt)
    (a.sum() * b.sum()).backward()
    opt.step()
    assert sorted(n for n in ex.tensors) == sorted(
        f"optimizer.state.param{i}.{k}" for i in (0, 1) for k in ("exp_avg", "exp_avg_sq"))


def test_optimizer_holding_a_foreign_parameter_is_an_error():
    mg.manual_seed(0)
    model = nn.Linear(2, 2)
    stray = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="not in the model"):
        mg.Executor(model, optim.SGD([*model.parameters(), stray], lr=0.1))


# ------------------------------------------------------------------ iteration, tape
def test_iteration_and_step():
    ex = mg.Executor()
    assert ex.iteration == 0
    assert ex.step() == 1
    assert ex.step(5) == 6
    assert ex.iteration == 6
    ex.iteration = 100
    assert ex.step() == 101


def test_record_needs_a_tensor_with_a_tape():
    ex = mg.Executor()
    with pytest.raises(ValueError, match="tape"):
        ex.record(mg.tensor([1.0]))
    with pytest.raises(ValueError):
        ex.record(np.ones(2))  # type: ignore[arg-type]
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    ex.record(y)
    assert ex.tape is y


def test_repr_mentions_counts():
    model, opt, ex = build()
    r = repr(ex)
    assert "iteration=0" in r and "Net" in r and "Adam" in r
