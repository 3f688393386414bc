"""Module's API against PyTorch 2.13's meanings: what a ported program sees of state dicts, traversal and
modes. The expected values are what torch 2.13 gives for the same calls (the torch expression is quoted
beside each); torch itself is not imported."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def test_state_dict_prefix_is_glued_on_as_given():
    # torch: list(nn.Sequential(nn.Linear(2, 2)).state_dict(prefix="a.")) == ['a.0.weight', 'a.0.bias']
    assert list(nn.Sequential(nn.Linear(2, 2)).state_dict(prefix="a.")) == ["a.0.weight", "a.0.bias"]


def test_state_dict_destination_and_keep_vars():
    lin = nn.Linear(2, 2)
    dest: OrderedDict = OrderedDict(x=mg.zeros(1))
    out = lin.state_dict(destination=dest, keep_vars=True)
    assert out is dest and list(dest) == ["x", "weight", "bias"]
    assert dest["weight"] is lin.weight  # torch: state_dict(keep_vars=True)["weight"] is lin.weight


def test_a_module_used_twice_is_saved_and_loaded_under_both_names():
    # torch: l = nn.Linear(2, 2); list(nn.Sequential(l, l).state_dict())
    #   == ['0.weight', '0.bias', '1.weight', '1.bias'], so a torch checkpoint of it has all four keys
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    result = seq.load_state_dict({"0.weight": w, "0.bias": mg.zeros(2), "1.weight": w, "1.bias": mg.zeros(2)})
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(lin.weight.numpy(), w.numpy())
    assert len(list(seq.parameters())) == 2  # parameters() still lists the shared ones once


def test_remove_duplicate_false_lists_every_path():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    # torch: [n for n, _ in seq.named_modules(remove_duplicate=False)] == ['', '0', '1']
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1"]
    # torch: [n for n, _ in seq.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight",
                                                                             "1.bias"]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    bn = nn.BatchNorm1d(2)
    assert len(list(nn.Sequential(bn, bn).named_buffers(remove_duplicate=False))) == 6


def test_load_state_dict_returns_pytorchs_named_pair():
    lin = nn.Linear(2, 2)
    # torch: r = lin.load_state_dict({"weight": torch.zeros(2, 2), "x": ...}, strict=False)
    #   r.missing_keys == ['bias'], r.unexpected_keys == ['x']
    result = lin.load_state_dict({"weight": mg.zeros(2, 2), "x": mg.zeros(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["x"]
    missing, unexpected = result
    assert (missing, unexpected) == (["bias"], ["x"])
    # torch: repr(lin.load_state_dict(lin.state_dict())) == '<All keys matched successfully>'
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_assign_puts_the_given_tensors_in_place():
    lin = nn.Linear(2, 2)
    lin.bias.requires_grad_(False)
    bn = nn.BatchNorm1d(2)
    w, b = mg.ones(2, 2, dtype="float64"), mg.zeros(2, dtype="float64")
    lin.load_state_dict({"weight": w, "bias": b}, assign=True)
    # torch: a Parameter wrapping the given tensor (its dtype kept), requires_grad as the old parameter's
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.dtype == np.float64
    assert lin.weight.requires_grad and not lin.bias.requires_grad
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    mean = mg.tensor([1.0, 2.0])
    bn.load_state_dict({**bn.state_dict(), "running_mean": mean}, assign=True)
    assert bn.running_mean is mean


def test_train_calls_each_childs_own_train():
    class FrozenNorm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bn = nn.BatchNorm1d(2)
            self.calls: list[bool] = []

        def train(self, mode: bool = True) -> FrozenNorm:
            self.calls.append(mode)
            super().train(mode)
            self.bn.eval()  # kept frozen whatever the parent asks
            return self

    child = FrozenNorm()
    net = nn.Sequential(nn.Linear(2, 2), child)
    net.train()
    # torch: the child's train override is called ([True]) and its batch norm stays in eval mode
    assert child.calls == [True] and child.training and not child.bn.training
    net.eval()
    assert child.calls == [True, False] and not net[0].training


def test_train_refuses_a_non_boolean_mode():
    # torch: nn.Linear(1, 1).train("x") raises ValueError('training mode is expected to be boolean')
    with pytest.raises(ValueError, match="boolean"):
        nn.Linear(1, 1).train("x")  # type: ignore[arg-type]


def test_parameter_dict_from_a_plain_dict_is_sorted_as_in_pytorch():
    # torch: list(nn.ParameterDict({"b": p1, "a": p2})) == ['a', 'b']; an OrderedDict keeps its order
    p1, p2 = nn.Parameter(mg.ones(1)), nn.Parameter(mg.ones(2))
    pd = nn.ParameterDict({"b": p1, "a": p2})
    assert list(pd) == ["a", "b"] and list(pd.parameters()) == [p2, p1]
    assert list(nn.ParameterDict(OrderedDict(b=p1, a=p2))) == ["b", "a"]
    assert list(nn.ParameterDict([("b", p1), ("a", p2)])) == ["b", "a"]
