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


# ---------------------------------------------------------------- forward hooks
class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        if scale < 0:
            raise ValueError("negative scale")
        return x * scale


def test_forward_hooks_with_kwargs_see_and_may_replace_the_keyword_arguments():
    m, seen = Scaled(), []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "scale": 10.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append((len(args), dict(kwargs), out.tolist())),
                            with_kwargs=True)
    # torch: the pre-hook's (args, kwargs) replace the call's; the hook sees the kwargs forward got
    assert m(mg.tensor([1.0]), scale=3.0).tolist() == [10.0]
    assert seen == [(1, {"scale": 10.0}, [10.0])]


def test_forward_hook_prepend_and_always_call():
    m, order = Scaled(), []
    m.register_forward_hook(lambda mod, args, out: order.append("first"))
    m.register_forward_hook(lambda mod, args, out: order.append("prepended"), prepend=True)
    m(mg.ones(1))
    assert order == ["prepended", "first"]  # torch: prepend=True runs before the hooks already there
    called = []
    m.register_forward_hook(lambda mod, args, out: called.append(out), always_call=True)
    with pytest.raises(ValueError, match="negative"):
        m(mg.ones(1), scale=-1.0)
    assert called == [None]  # torch: an always_call hook runs with output None, then the error propagates


def test_an_always_call_hook_after_a_hook_that_raised_sees_the_output():
    # torch 2.13: forward returned, a forward hook raised -- the always_call hooks that had not run get the
    # output so far (forward's, or what an earlier hook returned; what one returns is the next one's), then
    # the hook's error propagates. The engine handed them None.
    m, seen = Scaled(), []

    def bad(mod, args, out):
        raise KeyError("hook")

    m.register_forward_hook(lambda mod, args, out: out * 3)
    m.register_forward_hook(bad)
    m.register_forward_hook(lambda mod, args, out: (seen.append(out.tolist()), out + 1)[1], always_call=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append((kwargs, out.tolist())), always_call=True,
                            with_kwargs=True)
    with pytest.raises(KeyError, match="hook"):
        m(mg.ones(1), scale=2.0)
    assert seen == [[6.0], ({"scale": 2.0}, [7.0])]


def test_hook_handle_is_a_context_manager():
    m, seen = Scaled(), []
    with m.register_forward_hook(lambda mod, args, out: seen.append(1)):
        m(mg.ones(1))
    m(mg.ones(1))
    assert seen == [1]  # torch: removed on leaving the with block


# ---------------------------------------------------------------- lookup and registration
def test_get_submodule_parameter_and_buffer_by_dotted_path():
    net = nn.Sequential(nn.Sequential(nn.Linear(1, 2)), nn.BatchNorm1d(3))
    assert net.get_submodule("0.0") is net[0][0] and net.get_submodule("") is net
    assert net.get_parameter("0.0.weight") is net[0][0].weight
    assert net.get_buffer("1.running_mean") is net[1].running_mean
    with pytest.raises(AttributeError):
        net.get_submodule("0.5")
    with pytest.raises(AttributeError):
        net.get_parameter("1.running_mean")  # a buffer, not a parameter


def test_registration_refuses_what_pytorch_refuses():
    m = nn.Module()
    with pytest.raises(TypeError):  # torch: TypeError("int is not a Module subclass")
        m.register_module("a", 3)  # type: ignore[arg-type]
    with pytest.raises(KeyError):  # torch: KeyError('module name can\'t contain ".", got: a.b')
        m.add_module("a.b", nn.ReLU())
    with pytest.raises(KeyError):
        m.register_parameter("w.x", nn.Parameter(mg.ones(1)))
    m.note = 3
    with pytest.raises(KeyError, match="already exists"):  # torch: KeyError("attribute 'note' already exists")
        m.register_buffer("note", mg.ones(1))
    m.register_parameter("w", nn.Parameter(mg.ones(1)))
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("w", mg.ones(1))
    m.register_buffer("b", mg.ones(1), persistent=False)
    m.register_buffer("b", mg.ones(1))  # torch: registering it again as persistent puts it in the state dict
    assert list(m.state_dict()) == ["w", "b"]


# ---------------------------------------------------------------- containers
def test_sequential_insert_extend_pop_and_add():
    def kinds(seq):
        return [(k, type(v).__name__) for k, v in seq._modules.items()]

    seq = nn.Sequential(nn.ReLU(), nn.Sigmoid())
    seq.insert(1, nn.Tanh())
    # torch: [('0', 'ReLU'), ('1', 'Tanh'), ('2', 'Sigmoid')]
    assert kinds(seq) == [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")]
    assert type(seq.pop(0)).__name__ == "ReLU" and kinds(seq) == [("0", "Tanh"), ("1", "Sigmoid")]
    seq.extend([nn.ReLU()])
    both = seq + nn.Sequential(nn.Identity())
    assert isinstance(both, nn.Sequential) and len(both) == 4 and len(seq) == 3
    seq += nn.Sequential(nn.Identity())
    assert kinds(seq)[-1] == ("3", "Identity")


def test_module_list_insert_pop_add_and_index_errors():
    ml = nn.ModuleList([nn.ReLU(), nn.Sigmoid()])
    ml.insert(1, nn.Tanh())
    assert [type(m).__name__ for m in ml] == ["ReLU", "Tanh", "Sigmoid"] and list(ml._modules) == ["0", "1", "2"]
    assert type(ml.pop(-1)).__name__ == "Sigmoid" and len(ml) == 2
    ml += [nn.Identity()]
    assert len(ml) == 3 and len(ml + nn.ModuleList([nn.ReLU()])) == 4
    with pytest.raises(IndexError, match="out of range"):  # torch: IndexError('index 5 is out of range')
        ml[5]


def test_module_dict_update_pop_del_clear_and_pairs():
    md = nn.ModuleDict([("b", nn.ReLU()), ("a", nn.Tanh())])  # torch: pairs keep their order: ['b', 'a']
    assert list(md) == ["b", "a"]
    md.update({"c": nn.Sigmoid()})
    assert list(md) == ["b", "a", "c"]
    assert type(md.pop("b")).__name__ == "ReLU"
    del md["a"]
    assert list(md) == ["c"] and [n for n, _ in md.named_children()] == ["c"]
    md.clear()
    assert len(md) == 0


def test_a_shared_child_is_visited_once_by_children_apply_and_train():
    lin = nn.Linear(1, 1)
    seq = nn.Sequential(lin, lin)
    # torch: [n for n, _ in seq.named_children()] == ['0']; seq.apply(f) calls f twice (lin, seq)
    assert [n for n, _ in seq.named_children()] == ["0"] and list(seq.children()) == [lin]
    calls: list[str] = []
    seq.apply(lambda m: calls.append(type(m).__name__))
    assert calls == ["Linear", "Sequential"]


def test_to_a_tensor_takes_its_dtype_and_device():
    # PyTorch's Module.to(tensor) form (test_nn.py's test_type: net.to(torch.DoubleTensor(1))); it used to
    # read the tensor as a dtype and raise "argument 'dtype' must be torch.dtype, not Tensor"
    lin = nn.Linear(2, 2)
    w, b = lin.weight, lin.bias
    assert lin.to(mg.zeros(1, dtype=mg.float64)) is lin
    assert lin.weight is w and lin.bias is b and w.dtype == np.float64 and b.dtype == np.float64
    lin.to(mg.zeros(1, dtype=mg.float16), non_blocking=True)
    assert w.dtype == np.float16
    # torch: TypeError('nn.Module.to only accepts floating point or complex dtypes, ...') for an integer tensor
    with pytest.raises(TypeError, match="floating point or complex"):
        lin.to(mg.zeros(1, dtype=mg.int64))
    # torch's to(tensor, non_blocking=False) has no dtype or device to give besides: a TypeError
    with pytest.raises(TypeError, match="invalid combination"):
        lin.to(mg.zeros(1), mg.float64)
    with pytest.raises(TypeError, match="invalid combination"):
        lin.to(mg.zeros(1), device="cpu")
    assert w.dtype == np.float16


def test_to_refuses_copy_as_pytorch():
    # torch: RuntimeError('.to() does not accept copy argument') (test_nn.py's test_to); was a TypeError
    lin = nn.Linear(1, 1)
    with pytest.raises(RuntimeError, match="does not accept copy argument"):
        lin.to("cpu", copy=True)
    assert lin.to("cpu", copy=False) is lin


def test_to_refuses_an_integer_dtype_and_takes_non_blocking():
    lin = nn.Linear(1, 1)
    # torch: TypeError('nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64')
    with pytest.raises(TypeError, match="floating point or complex"):
        lin.to(mg.int64)
    with pytest.raises(TypeError, match="floating point or complex"):
        lin.to(dtype="int32")
    assert lin.weight.dtype == np.float32
    assert lin.to("cpu", non_blocking=True) is lin


# ---------------------------------------------------------------- full backward hooks
def _linear_1_minus_2() -> nn.Linear:
    lin = nn.Linear(2, 1, dtype="float64")
    with mg.no_grad():
        lin.weight.copy_(mg.tensor([[1.0, -2.0]], dtype="float64"))
        lin.bias.zero_()
    return lin


def _as_lists(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_full_backward_hook_gets_pytorchs_grad_input_and_grad_output():
    lin, seen = _linear_1_minus_2(), []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((_as_lists(gi), _as_lists(go))))
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", requires_grad=True)
    (lin(x) * mg.tensor([[2.0], [3.0]], dtype="float64")).sum().backward()
    # torch: grad_input ([[2, -4], [3, -6]],), grad_output ([[2], [3]],)
    assert seen == [([[[2.0, -4.0], [3.0, -6.0]]], [[[2.0], [3.0]]])]
    assert x.grad.tolist() == [[2.0, -4.0], [3.0, -6.0]]


def test_full_backward_hook_without_input_grads_replacing_and_order():
    lin, seen = _linear_1_minus_2(), []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((_as_lists(gi), _as_lists(go))))
    lin(mg.tensor([[1.0, 2.0]], dtype="float64")).sum().backward()
    assert seen == [([None], [[[1.0]]])]  # torch: grad_input (None,) once grad_output is known
    lin = _linear_1_minus_2()
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = mg.tensor([[1.0, 2.0]], dtype="float64", requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[10.0, -20.0]] and lin.weight.grad.tolist() == [[1.0, 2.0]]  # torch's
    seq, order = nn.Sequential(_linear_1_minus_2(), nn.Tanh()), []
    seq[0].register_full_backward_hook(lambda m, gi, go: order.append("linear"))
    seq[1].register_full_backward_hook(lambda m, gi, go: order.append("tanh"))
    handle = seq.register_full_backward_hook(lambda m, gi, go: order.append("sequential"))
    seq(x).sum().backward()
    assert order == ["tanh", "linear", "sequential"]  # torch: innermost last layer first
    handle.remove()
    with mg.no_grad():
        seq(x)
    assert order == ["tanh", "linear", "sequential"]


def test_full_backward_hook_inside_a_checkpoint_fires_once_with_the_plain_gradients():
    def grads(checkpointed: bool) -> list:
        lin, seen = _linear_1_minus_2(), []
        lin.register_full_backward_hook(lambda m, gi, go: seen.append(_as_lists(gi)))
        x = mg.tensor([[0.5, 0.25]], dtype="float64", requires_grad=True)
        f = lambda t: mg.tanh(lin(t))  # noqa: E731
        y = mg.checkpoint.checkpoint(f, x) if checkpointed else f(x)
        y.sum().backward()
        return seen

    plain = grads(False)
    assert len(plain) == 1 and grads(True) == plain


# ---------------------------------------------------------------- extra state
class Counter(nn.Module):
    """A layer with state that is not a tensor (a step count), saved through get/set_extra_state."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(1, 1)
        self.steps = 0

    def get_extra_state(self):
        return {"steps": self.steps}

    def set_extra_state(self, state):
        self.steps = state["steps"]


def test_extra_state_goes_through_state_dicts_as_in_pytorch():
    net = nn.Sequential(Counter())
    net[0].steps = 5
    sd = net.state_dict()
    # torch: list(sd) == ['0._extra_state', '0.lin.weight', '0.lin.bias']; loading sets it back
    assert list(sd) == ["0._extra_state", "0.lin.weight", "0.lin.bias"] and sd["0._extra_state"] == {"steps": 5}
    fresh = nn.Sequential(Counter())
    assert repr(fresh.load_state_dict(sd)) == "<All keys matched successfully>" and fresh[0].steps == 5
    del sd["0._extra_state"]
    assert fresh.load_state_dict(sd, strict=False).missing_keys == ["0._extra_state"]
    # torch: a module without extra state reports the key as unexpected
    result = nn.Linear(1, 1).load_state_dict({"weight": mg.ones(1, 1), "bias": mg.ones(1), "_extra_state": 3},
                                             strict=False)
    assert result.unexpected_keys == ["_extra_state"]


def test_a_model_with_extra_state_snapshots_and_restores(tmp_path):
    from minigrad_ckpt.snapshot import Snapshot

    model = nn.Sequential(Counter())
    model[0].steps = 2
    ex = mg.Executor(model)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    ex2 = Snapshot.load(tmp_path / "s.mgsnap").restore()
    assert sorted(ex2.tensors) == ["model.0.lin.bias", "model.0.lin.weight"]
    np.testing.assert_array_equal(ex2.get_tensor("model.0.lin.weight").numpy(), model[0].lin.weight.numpy())
    other = nn.Sequential(Counter())
    other[0].steps = 9
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(other))
    np.testing.assert_array_equal(other[0].lin.weight.numpy(), model[0].lin.weight.numpy())
    assert other[0].steps == 2  # the snapshot's extra state (the header's model_extra), as torch.load + load_state_dict


def test_instance_norm_with_running_stats_has_pytorchs_state_dict():
    norm = nn.InstanceNorm1d(3, affine=True, track_running_stats=True)
    # torch: list(nn.InstanceNorm1d(3, affine=True, track_running_stats=True).state_dict())
    assert list(norm.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert norm.num_batches_tracked.dtype == np.int64 and norm.num_batches_tracked.shape == ()
    norm(mg.randn(2, 3, 4))
    assert int(norm.num_batches_tracked) == 0  # torch: tensor(0) after a training forward (never advanced)
    assert list(nn.InstanceNorm2d(3).state_dict()) == []


def test_module_list_repr_folds_repeated_modules_as_pytorch():
    blocks = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1), nn.ReLU(), nn.Sequential(nn.Tanh()),
                            nn.Sequential(nn.Tanh())])
    # torch: repr(nn.ModuleList([...the same five...]))
    assert repr(blocks) == ("ModuleList(\n  (0-1): 2 x Linear(in_features=1, out_features=1, bias=True)\n"
                            "  (2): ReLU()\n  (3-4): 2 x Sequential(\n    (0): Tanh()\n  )\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"
    # torch: repr(nn.Sequential(nn.ModuleList([nn.ReLU(), nn.ReLU()])))
    assert repr(nn.Sequential(nn.ModuleList([nn.ReLU(), nn.ReLU()]))) == \
        "Sequential(\n  (0): ModuleList(\n    (0-1): 2 x ReLU()\n  )\n)"


def test_layer_reprs_are_pytorchs():
    # each string is repr(<the same layer>) in torch 2.13
    assert repr(nn.Conv2d(2, 3, (3, 1), stride=2, padding=1, bias=False)) == \
        "Conv2d(2, 3, kernel_size=(3, 1), stride=(2, 2), padding=(1, 1), bias=False)"
    assert repr(nn.Conv2d(2, 3, 3)) == "Conv2d(2, 3, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.Conv1d(2, 4, 3, groups=2, dilation=2)) == \
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), dilation=(2,), groups=2)"
    assert repr(nn.Conv2d(2, 4, 3, padding="same", padding_mode="reflect")) == \
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, padding_mode=reflect)"
    assert repr(nn.Conv3d(2, 4, 3, groups=2)) == "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), groups=2)"
    assert repr(nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1)) == \
        "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"
    assert repr(nn.ConvTranspose3d(2, 3, 3, bias=False)) == \
        "ConvTranspose3d(2, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1), bias=False)"
    assert repr(nn.Dropout(0.3)) == "Dropout(p=0.3, inplace=False)"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)" and repr(nn.LogSoftmax(dim=-1)) == "LogSoftmax(dim=-1)"


def test_conv1d_keeps_its_sizes_as_one_element_tuples():
    conv = nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2)
    # torch: conv.kernel_size == (3,), stride (2,), padding (1,), dilation (2,); "same" stays a string
    assert (conv.kernel_size, conv.stride, conv.padding, conv.dilation) == ((3,), (2,), (1,), (2,))
    assert nn.Conv1d(2, 4, 3, padding="same").padding == "same"
    length = (10 + 2 * conv.padding[0] - conv.dilation[0] * (conv.kernel_size[0] - 1) - 1) // conv.stride[0] + 1
    assert conv(mg.randn(1, 2, 10)).shape == (1, 4, length)
    assert nn.Conv1d(2, 4, 3, padding="same", padding_mode="circular")(mg.randn(1, 2, 7)).shape == (1, 4, 7)


def test_deep_copied_parameters_start_without_gradients():
    import copy

    lin = nn.Linear(2, 1)
    lin(mg.ones(1, 2)).sum().backward()
    twin = copy.deepcopy(lin)
    # torch: copy.deepcopy(lin).weight.grad is None (Parameter.__deepcopy__ drops it); requires_grad kept
    assert twin.weight.grad is None and twin.weight.requires_grad and isinstance(twin.weight, nn.Parameter)
    assert lin.weight.grad is not None
    np.testing.assert_array_equal(twin.weight.numpy(), lin.weight.numpy())
    t = mg.ones(2, requires_grad=True)
    t.grad = mg.ones(2)
    assert copy.deepcopy(t).grad is not None  # torch: a plain tensor's deep copy keeps its .grad


def test_full_backward_pre_hook_sees_and_replaces_grad_output():
    lin = nn.Linear(2, 1)
    with mg.no_grad():
        lin.weight.fill_(0.5)
    seen, order = [], []
    lin.register_full_backward_hook(lambda m, gi, go: order.append(("full", go[0].tolist())))
    handle = lin.register_full_backward_pre_hook(
        lambda m, go: (seen.append(go[0].tolist()), order.append("pre"), (go[0] * 10,))[-1])
    x = mg.ones(3, 2, requires_grad=True)
    lin(x).sum().backward()
    # torch, the same module and hooks: seen == [[[1.0], [1.0], [1.0]]], x.grad all 5.0, weight.grad [[30, 30]];
    # the full backward hook runs after the pre-hook and sees the replaced grad_output
    assert seen == [[[1.0], [1.0], [1.0]]]
    assert x.grad.tolist() == [[5.0, 5.0]] * 3 and lin.weight.grad.tolist() == [[30.0, 30.0]]
    assert order == ["pre", ("full", [[10.0], [10.0], [10.0]])]
    handle.remove()
    x.grad = None
    lin(x).sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5]] * 3


def test_full_backward_pre_hook_on_a_module_of_several_outputs():
    class Two(nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    two = Two()
    two.register_full_backward_pre_hook(lambda m, go: (go[0] * 10, go[1]))
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    sum(y.sum() for y in two(x)).backward()
    assert x.grad.tolist() == [23.0, 23.0]  # torch 2.13: 2 * 10 + 3 (it was refused here before)


# A forward pre-hook that replaces the input: the full backward hook's grad_input is w.r.t. what
# forward got, as PyTorch's (it sets up the backward hook after the pre-hooks).  Expected values from
# torch 2.13: m = torch.nn.Tanh(); m.register_forward_pre_hook(lambda mod, i: (i[0] * 2,)); a full
# backward hook recording gi[0]; x = torch.tensor([0.5, -1.25], dtype=...); m(x).sum().backward().
_TANH_2X_GRAD_INPUT = {"float64": [0.41997434161402614, 0.02659222668316057],
                       "float32": [0.41997429728507996, 0.026592249050736427]}
_TANH_2X_X_GRAD = {"float64": [0.8399486832280523, 0.05318445336632114],
                   "float32": [0.8399485945701599, 0.053184498101472855]}


def _tanh_of_doubled_input(hook):
    m = mg.nn.Tanh()
    m.register_forward_pre_hook(lambda mod, i: (i[0] * 2,))
    m.register_full_backward_hook(hook)
    return m


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_full_backward_hook_grad_input_is_wrt_what_a_forward_pre_hook_gave(dtype):
    seen = []
    m = _tanh_of_doubled_input(lambda mod, gi, go: seen.append((gi[0].numpy().copy(), go[0].numpy().copy())))
    x = mg.tensor([0.5, -1.25], dtype=dtype, requires_grad=True)
    m(x).sum().backward()
    (grad_input, grad_output), = seen
    tol = 1e-13 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(grad_input, _TANH_2X_GRAD_INPUT[dtype], rtol=tol)
    np.testing.assert_allclose(grad_output, [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), _TANH_2X_X_GRAD[dtype], rtol=tol)
    assert x.grad.dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_full_backward_hook_replacing_grad_input_after_a_forward_pre_hook(dtype):
    # torch 2.13, the hook returning (gi[0] * 3,): x.grad
    expected = {"float64": [2.5198460496841566, 0.15955336009896343],
                "float32": [2.519845724105835, 0.15955349802970886]}[dtype]
    m = _tanh_of_doubled_input(lambda mod, gi, go: (gi[0] * 3,))
    x = mg.tensor([0.5, -1.25], dtype=dtype, requires_grad=True)
    m(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-13 if dtype == "float64" else 1e-6)


def test_full_backward_hook_after_a_forward_pre_hook_create_graph():
    # torch 2.13: grad(m(x).sum(), x, create_graph=True), then grad of the hook's gi[0].sum() w.r.t. x
    kept = []
    m = _tanh_of_doubled_input(lambda mod, gi, go: kept.append(gi[0]))
    x = mg.tensor([0.5, -1.25], dtype="float64", requires_grad=True)
    (g,) = mg.autograd.grad(m(x).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), _TANH_2X_X_GRAD["float64"], rtol=1e-13)
    np.testing.assert_allclose(kept[0].numpy(), _TANH_2X_GRAD_INPUT["float64"], rtol=1e-13)
    (g2,) = mg.autograd.grad(kept[0].sum(), [x])
    np.testing.assert_allclose(g2.numpy(), [-1.2794000168984492, 0.10494508426116081], rtol=1e-14)


def test_full_backward_hook_sees_the_forward_pre_hooks_kwargs():
    class Scale(mg.nn.Module):
        def forward(self, x, *, by=1.0):
            return x * by

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 2,), {"by": 5.0}), with_kwargs=True)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi[0].numpy().copy()))
    x = mg.tensor([1.0], dtype="float64", requires_grad=True)
    m(x, by=3.0).sum().backward()
    np.testing.assert_allclose(seen[0], [5.0])  # d(5 u)/du at u = 2x: torch gives 5 as well
    np.testing.assert_allclose(x.grad.numpy(), [10.0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer, shape", [(nn.InstanceNorm1d, (2, 3, 4)), (nn.InstanceNorm2d, (2, 3, 2, 2)),
                                          (nn.InstanceNorm3d, (2, 3, 2, 2, 2))])
def test_instance_norm_with_momentum_none_keeps_its_running_statistics(layer, shape, dtype):
    """PyTorch passes ``momentum if momentum is not None else 0.0``: training runs and the running
    statistics stay 0 and 1, the counter 0 (torch 2.13: ``InstanceNorm1d(3,
    track_running_stats=True, momentum=None)`` after two training calls). The output and gradient
    are the instance's own statistics', as with any momentum."""
    rng = np.random.default_rng(0)
    data = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    norm = layer(3, track_running_stats=True, momentum=None, affine=True, dtype=dtype)
    usual = layer(3, track_running_stats=True, affine=True, dtype=dtype)
    assert "momentum=None" in repr(norm)
    for _ in range(2):
        x, y = mg.tensor(data, requires_grad=True), mg.tensor(data, requires_grad=True)
        out = norm(x)
        out.backward(mg.tensor(data))
        usual(y).backward(mg.tensor(data))
        np.testing.assert_array_equal(out.numpy(), usual(mg.tensor(data)).numpy())
        np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())
    np.testing.assert_array_equal(norm.running_mean.numpy(), np.zeros(3, dtype))
    np.testing.assert_array_equal(norm.running_var.numpy(), np.ones(3, dtype))
    assert norm.num_batches_tracked.item() == 0
    norm.eval()  # evaluation normalizes with the (unchanged) running statistics
    np.testing.assert_allclose(norm(mg.tensor(data)).numpy(), data / np.sqrt(np.asarray(1 + 1e-5, dtype)),
                               rtol=1e-6)


@pytest.mark.parametrize("make", [lambda: nn.BatchNorm1d(3), lambda: nn.BatchNorm2d(3, dtype="float64"),
                                  lambda: nn.InstanceNorm1d(3, track_running_stats=True)])
def test_a_norm_state_dict_without_num_batches_tracked_loads_strictly(make):
    """PyTorch's ``_NormBase._load_from_state_dict`` fills in a missing ``num_batches_tracked``
    (from before its state format's version 2) with the module's own, unchanged. torch 2.13:
    ``bn.num_batches_tracked.fill_(7); bn.load_state_dict({k: v for k, v in sd.items() if k !=
    "num_batches_tracked"})`` gives <All keys matched successfully> and the counter stays 7; the
    same inside a Sequential."""
    source, norm = make(), make()
    with mg.no_grad():
        for t in source.state_dict().values():
            t.add_(1)
        norm.num_batches_tracked.fill_(7)
    older = {k: v for k, v in source.state_dict().items() if k != "num_batches_tracked"}
    result = norm.load_state_dict(older)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert norm.num_batches_tracked.item() == 7
    np.testing.assert_array_equal(norm.running_mean.numpy(), source.running_mean.numpy())
    model = nn.Sequential(nn.Linear(2, 3), make())
    model.load_state_dict({k: v for k, v in model.state_dict().items() if "num_batches" not in k})
    assert norm._version == 2  # torch: nn.BatchNorm1d._version, nn.InstanceNorm1d._version


def test_a_norm_state_dict_of_version_2_without_num_batches_tracked_is_refused():
    """With PyTorch's metadata saying version 2 the key is really missing (torch 2.13: RuntimeError
    'Missing key(s) in state_dict: "num_batches_tracked"'); without running statistics nothing is
    asked for."""
    bn = nn.BatchNorm1d(3)
    older = OrderedDict((k, v) for k, v in bn.state_dict().items() if k != "num_batches_tracked")
    older._metadata = {"": {"version": 2}}
    with pytest.raises(RuntimeError, match="num_batches_tracked"):
        bn.load_state_dict(older)
    no_stats = nn.BatchNorm1d(3, track_running_stats=False)
    assert list(no_stats.state_dict()) == ["weight", "bias"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        no_stats.load_state_dict({"weight": mg.ones(3)})


class _Add(nn.Module):
    def forward(self, x, y=0):
        return x + y


def test_hooks_of_every_module_as_pytorchs_register_module_hooks():
    """torch.nn.modules.module.register_module_forward_pre_hook / _forward_hook (with_kwargs, always_call) /
    _full_backward_pre_hook / _full_backward_hook: the same script ran with torch 2.13 gives these logs
    (before: no such functions, no mg.nn.modules)."""
    from minigrad_ckpt.nn.modules.module import register_module_forward_hook as global_forward_hook

    hooks = mg.nn.modules.module
    assert global_forward_hook is hooks.register_module_forward_hook and mg.nn.modules.Module is nn.Module
    log = []
    handles = [hooks.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
               hooks.register_module_forward_hook(lambda m, a, o: log.append(("gpost", type(m).__name__))),
               hooks.register_module_forward_hook(lambda m, a, kw, o: log.append(("gkw", sorted(kw))),
                                                  with_kwargs=True)]
    add = _Add()
    add.register_forward_pre_hook(lambda m, a: log.append(("pre",)))
    add.register_forward_hook(lambda m, a, o: log.append(("post",)))
    try:
        nn.Sequential(add)(mg.ones(1))
        add(mg.ones(1), y=mg.ones(1))
    finally:
        for h in handles:
            h.remove()
    add(mg.ones(1))
    assert log == [("gpre", "Sequential"), ("gpre", "_Add"), ("pre",), ("gpost", "_Add"), ("gkw", []), ("post",),
                   ("gpost", "Sequential"), ("gkw", []), ("gpre", "_Add"), ("pre",), ("gpost", "_Add"),
                   ("gkw", ["y"]), ("post",), ("pre",), ("post",)]
    with hooks.register_module_forward_hook(lambda m, a, o: o * 2):   # torch: [8.0] (two Adds and the Sequential)
        assert nn.Sequential(_Add(), _Add())(mg.ones(1)).tolist() == [8.0]
    with hooks.register_module_forward_pre_hook(lambda m, a: a[0] + 1):  # torch: [2.0]
        assert _Add()(mg.ones(1)).tolist() == [2.0]
    log.clear()
    lin = nn.Linear(2, 1)
    with hooks.register_module_full_backward_hook(lambda m, gi, go: log.append(("gbw", len(gi), len(go)))), \
            hooks.register_module_full_backward_pre_hook(lambda m, go: log.append(("gbwpre",))):
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("bw",)))
        lin(mg.ones(1, 2, requires_grad=True)).sum().backward()
    assert log == [("gbwpre",), ("gbw", 1, 1), ("bw",)]


def test_always_called_forward_hooks_run_whatever_raised():
    # torch: an always_call hook runs (output None) when a forward pre-hook raises, not only forward (before:
    # not run); what such a hook raises meanwhile is a warning, the call's own error is the one raised
    log = []
    add = _Add()
    add.register_forward_pre_hook(lambda m, a: 1 / 0)
    add.register_forward_hook(lambda m, a, o: log.append(o), always_call=True)
    with pytest.raises(ZeroDivisionError):
        add(mg.ones(1))
    assert log == [None]

    class Raises(nn.Module):
        def forward(self, x):
            raise ValueError("forward")

    def hook_raises(m, a, o):
        raise KeyError("hook")

    bad = Raises()
    bad.register_forward_hook(hook_raises, always_call=True)
    with pytest.warns(UserWarning, match="always_call=True"), pytest.raises(ValueError, match="forward"):
        bad(mg.ones(1))
    with mg.nn.modules.module.register_module_forward_hook(lambda m, a, o: log.append("global"), always_call=True):
        with pytest.raises(ValueError):
            Raises()(mg.ones(1))
    assert log == [None, "global"]


def test_sequential_repeats_and_parameter_dict_methods_as_pytorch():
    # torch: (s * 3) repeats the same module objects (shared weights); 2 * s too; s *= 3 in place;
    #        s * 0 ValueError, s * 1.5 TypeError (before: TypeError for all, no __mul__)
    a, b = nn.Linear(1, 1), nn.ReLU()
    s = nn.Sequential(a, b)
    m = s * 3
    assert len(m) == 6 and m[2] is a and m[5] is b and len(list(m.parameters())) == 2
    assert len(2 * s) == 4 and (2 * s)[2] is a
    s2 = nn.Sequential(a, b)
    s2 *= 3
    assert len(s2) == 6 and s2[4] is a and list(s2._modules) == ["0", "1", "2", "3", "4", "5"]
    with pytest.raises(ValueError, match="Non-positive"):
        s * 0
    with pytest.raises(TypeError):
        s * 1.5
    # torch: ParameterDict's popitem/setdefault/copy/fromkeys/|/|=/reversed/clear (before: AttributeError)
    p1, p2 = nn.Parameter(mg.ones(1)), nn.Parameter(mg.ones(2))
    pd = nn.ParameterDict(OrderedDict([("x", p1), ("y", p2)]))
    assert pd.popitem() == ("y", p2) and list(pd) == ["x"]
    pd["y"] = p2
    assert pd.setdefault("x", mg.zeros(3)) is p1 and pd.setdefault("z", mg.zeros(3)).shape == (3,)
    c = pd.copy()
    assert type(c) is nn.ParameterDict and c["x"] is p1 and list(c) == ["x", "y", "z"]
    assert list(pd.fromkeys(["k", "l"], mg.ones(1))) == ["k", "l"] and pd.fromkeys(["k"])["k"] is None
    assert list(pd | {"a": mg.ones(1)}) == ["x", "y", "z", "a"] and list({"a": mg.ones(1)} | pd) == ["a", "x", "y", "z"]
    pd |= {"w": mg.ones(1)}
    assert list(pd) == ["x", "y", "z", "w"] and list(reversed(pd)) == ["w", "z", "y", "x"]
    pd.clear()
    assert list(pd) == [] and list(pd.parameters()) == []
    # torch: pl = nn.ParameterList([ones(1)]); pl += [ones(2)] extends it in place (before: TypeError)
    pl = nn.ParameterList([mg.ones(1)])
    same = pl
    pl += [mg.ones(2)]
    assert pl is same and [p.shape for p in pl] == [(1,), (2,)] and isinstance(pl[1], nn.Parameter)


def test_apply_get_name_and_conversions_keep_the_gradient_tensor():
    # torch: m._apply(lambda t: t * 2): parameters and their grads keep their identity and take the
    #        value; buffers are replaced (m[1].running_mean is rm -> False); recurse=False only the module's own
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    w = m[0].weight
    w.grad = mg.ones(2, 2)
    g, rm = w.grad, m[1].running_mean
    assert m._apply(lambda t: t * 2) is m
    assert m[0].weight is w and w.grad is g and g.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert isinstance(w, nn.Parameter) and w.requires_grad and w.is_leaf
    assert m[1].running_mean is not rm and m[1].running_var.tolist() == [2.0, 2.0]
    m._apply(lambda t: t + 1, recurse=False)
    assert m[1].running_var.tolist() == [2.0, 2.0]
    assert m._get_name() == "Sequential" and m[1]._get_name() == "BatchNorm1d"
    m.register_buffer("nb", mg.ones(1), persistent=False)
    assert m._non_persistent_buffers_set == {"nb"}
    m._non_persistent_buffers_set.discard("nb")  # torch: now saved
    assert "nb" in m.state_dict()
    # torch: m.double() keeps the grad tensor (param.grad.data = ...): lin.weight.grad is g -> True
    lin = nn.Linear(1, 1)
    lin.weight.grad = mg.ones(1, 1)
    g = lin.weight.grad
    lin.double()
    assert lin.weight.grad is g and g.dtype == np.float64
    lin.type(mg.float32)
    assert lin.weight.grad is g and g.dtype == np.float32


def test_conversions_call_an_apply_override_as_pytorch():
    class Cached(nn.Module):
        """The PyTorch pattern for a tensor that is neither a parameter nor a buffer (a rotary cache)."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)
            self.cache = mg.ones(3)

        def _apply(self, fn, recurse=True):
            self.cache = fn(self.cache)
            return super()._apply(fn, recurse)

    # torch: m.double() -> m[1].cache float64, the Linear inside float64 and the same Parameter;
    #        m.half() -> float16; m.to(torch.float32) -> float32 (before: the cache stayed float32)
    m = nn.Sequential(nn.Linear(1, 1), Cached())
    w = m[1].lin.weight
    m.double()
    assert m[1].cache.dtype == np.float64 and m[1].lin.weight is w and w.dtype == np.float64
    assert m[0].weight.dtype == np.float64
    m.half()
    assert m[1].cache.dtype == np.float16 and m[0].bias.dtype == np.float16
    m.to(mg.float32)
    assert m[1].cache.dtype == np.float32 and m[1].lin.bias.dtype == np.float32


def test_layer_reprs_and_pool_strides_as_pytorch():
    # torch: a pooling layer's stride attribute is its kernel size when none is given (before: None) and
    #        AvgPool1d keeps 1-tuples; the reprs below are torch 2.13's (with numpy's dtype names)
    assert nn.MaxPool2d(2).stride == 2 and nn.AvgPool2d((2, 3)).stride == (2, 3) and nn.MaxPool3d(2, 1).stride == 1
    assert (nn.AvgPool1d(2).kernel_size, nn.AvgPool1d(2).stride, nn.AvgPool1d(2).padding) == ((2,), (2,), (0,))
    assert nn.LPPool2d(2, 3).stride is None  # torch keeps LPPool's None
    assert nn.Upsample(scale_factor=2).scale_factor == 2.0
    assert nn.Upsample(scale_factor=(2, 3)).scale_factor == (2.0, 3.0)
    want = {
        "MaxPool2d(2)": "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "MaxPool1d(3, 1, 1)": "MaxPool1d(kernel_size=3, stride=1, padding=1, dilation=1, ceil_mode=False)",
        "AvgPool1d(2)": "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))",
        "AvgPool2d(2)": "AvgPool2d(kernel_size=2, stride=2, padding=0)",
        "AdaptiveMaxPool2d(2)": "AdaptiveMaxPool2d(output_size=2)",
        "LayerNorm(4)": "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)",
        "LayerNorm((2, 3), 1e-5, False)": "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)",
        "Upsample(scale_factor=2)": "Upsample(scale_factor=2.0, mode='nearest')",
        "Upsample(size=4, mode='bilinear')": "Upsample(size=4, mode='bilinear')",
        "ZeroPad2d(1)": "ZeroPad2d((1, 1, 1, 1))",
        "ReflectionPad2d(1)": "ReflectionPad2d((1, 1, 1, 1))",
        "ConstantPad1d(2, 3.5)": "ConstantPad1d(padding=(2, 2), value=3.5)",
        "CosineSimilarity()": "CosineSimilarity()",
        "LocalResponseNorm(2)": "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)",
        "GLU()": "GLU(dim=-1)",
        "Softmin(1)": "Softmin(dim=1)",
        "Hardshrink()": "Hardshrink(0.5)",
    }
    got = {expr: repr(eval(f"nn.{expr}")) for expr in want}
    assert got == want


def test_zero_grad_keeping_tensors_detaches_a_gradient_built_with_create_graph():
    # torch: after p.grad = torch.autograd.grad(loss, p, create_graph=True)[0], m.zero_grad(set_to_none=False)
    # and opt.zero_grad(set_to_none=False) leave p.grad zero, requires_grad False, grad_fn None (detach_)
    m = mg.nn.Linear(2, 1)
    loss = (m(mg.randn(3, 2)) ** 2).sum()
    grads = mg.autograd.grad(loss, list(m.parameters()), create_graph=True)
    opt = mg.optim.SGD(m.parameters(), lr=0.1)
    for zero in (lambda: m.zero_grad(set_to_none=False), lambda: opt.zero_grad(set_to_none=False)):
        for p, g in zip(m.parameters(), grads):
            p.grad = g * 1
        assert m.weight.grad.requires_grad
        zero()
        for p in m.parameters():
            assert not p.grad.requires_grad and p.grad.grad_fn is None
            assert not p.grad.numpy().any()


def test_detach_in_place_makes_a_leaf_and_refuses_views():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    y = w * w
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None and y.is_leaf
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        (w * 1)[0:1].detach_()


@pytest.mark.parametrize("view", ["mg.zeros(3)[0:2]", "mg.zeros(2, 3).t()", "mg.zeros(3, 1).expand(3, 4)",
                                  "mg.zeros(3).reshape(3)", "mg.zeros(3).detach()[0:2]",
                                  "mg.zeros(3, requires_grad=True)[1:]"])
def test_detach_in_place_refuses_a_view_off_the_tape_too(view):
    # torch 2.13: "Can't detach views in-place" for any view, of a tensor needing no gradient too (it
    # detached them here); a detached alias, view(dtype)'s reinterpretation and a base are not views
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        eval(view, {"mg": mg}).detach_()
    for alias in ["mg.zeros(3).detach()", "mg.zeros(3).view(mg.int32)", "mg.zeros(3, requires_grad=True).data"]:
        t = eval(alias, {"mg": mg})
        assert t.detach_() is t
    base = mg.zeros(3)
    view = base[0:1]
    assert base.detach_() is base and view.shape == (1,)
