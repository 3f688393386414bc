"""``nn.Module``: registration, traversal, state dicts, modes, conversion, hooks, containers."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.act = nn.ReLU()
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(8, 2)
        self.scale = nn.Parameter(mg.ones(1))
        self.register_buffer("steps", mg.zeros((), dtype="int64"))
        self.register_buffer("scratch", mg.zeros(3), persistent=False)
        self.not_registered = mg.ones(2)  # a plain Tensor attribute is neither parameter nor buffer

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.bn(self.fc1(x))))) * self.scale


def values(module: nn.Module) -> dict[str, np.ndarray]:
    return {k: v.numpy().copy() for k, v in module.state_dict().items()}


def assert_same_values(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# --------------------------------------------------------------- registration
def test_registration_and_named_parameters_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch", "bn.running_mean", "bn.running_var",
                                                   "bn.num_batches_tracked"]
    assert len(list(net.buffers())) == 5
    assert [n for n, _ in net.named_children()] == ["fc1", "bn", "act", "drop", "fc2"]
    assert list(net.children())[0] is net.fc1
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "bn", "act", "drop", "fc2"]
    assert len(list(net.modules())) == 6
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert "not_registered" not in dict(net.named_parameters()) and "not_registered" not in net.state_dict()


def test_reassigning_and_deleting_attributes():
    net = Net()
    net.fc1 = nn.Linear(4, 8, bias=False)
    assert "fc1.bias" not in dict(net.named_parameters())
    net.scale = None  # a parameter slot set to None disappears from parameters but stays a slot
    assert "scale" not in dict(net.named_parameters()) and net.scale is None
    del net.fc2
    assert "fc2" not in dict(net.named_children())
    with pytest.raises(AttributeError, match="fc2"):
        net.fc2
    net.steps = mg.ones((), dtype="int64")  # assigning a Tensor to a buffer name replaces the buffer
    assert net.state_dict()["steps"].item() == 1


def test_tying_a_parameter_keeps_its_place_as_in_pytorch():
    # word_language_model's `self.decoder.weight = self.encoder.weight`: PyTorch 2.13 keeps
    # decoder.weight where it was -- list(m.state_dict()) is the order below (made with torch).
    # The order moved it after decoder.bias, so a state dict's order and parameters() differed.
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(5, 3)
            self.decoder = nn.Linear(3, 5)
            self.decoder.weight = self.encoder.weight

    m = Tied()
    assert list(m.state_dict()) == ["encoder.weight", "decoder.weight", "decoder.bias"]
    assert [n for n, _ in m.named_parameters()] == ["encoder.weight", "decoder.bias"]
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Sigmoid())
    seq[0] = nn.Tanh()  # a module replaced in place stays first (a TypeError before: no __setitem__)
    assert [type(c).__name__ for c in seq] == ["Tanh", "ReLU", "Sigmoid"]
    del seq[0]  # torch renumbers: list(seq._modules) == ['0', '1']
    assert list(seq._modules) == ["0", "1"] and type(seq[0]).__name__ == "ReLU"
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    layers[-1] = nn.Sigmoid()
    assert [type(c).__name__ for c in layers] == ["ReLU", "Sigmoid"]


def test_a_registered_name_takes_only_its_own_kind_as_in_pytorch():
    # torch: lin.weight = torch.zeros(2, 2) raises "cannot assign 'torch.FloatTensor' as parameter
    # 'weight' (torch.nn.Parameter or None expected)"; here the weight became a plain attribute
    # and silently left parameters() and the state dict.
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="as parameter 'weight'"):
        lin.weight = mg.zeros(2, 2)
    with pytest.raises(TypeError, match="as parameter 'weight'"):
        lin.weight = 3
    seq = nn.Sequential(nn.Linear(2, 2))
    with pytest.raises(TypeError, match="as child module '0'"):
        setattr(seq, "0", 5)
    bn = nn.BatchNorm1d(2)
    with pytest.raises(TypeError, match="as buffer 'running_mean'"):
        bn.running_mean = 5
    assert list(lin.state_dict()) == ["weight", "bias"]


def test_assignment_before_super_init_is_a_clear_error():
    class Bad(nn.Module):
        def __init__(self) -> None:
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_register_errors():
    m = nn.Module()
    with pytest.raises(TypeError):
        m.register_parameter("w", mg.ones(2))
    with pytest.raises(TypeError):
        m.register_buffer("b", np.ones(2))
    with pytest.raises(KeyError):
        m.register_buffer("a.b", mg.ones(2))
    with pytest.raises(NotImplementedError, match="forward"):
        m(1)


def test_parameter_wraps_tensor_without_copy():
    t = mg.randn(3)
    p = nn.Parameter(t)
    assert p.requires_grad and p.is_leaf
    assert np.shares_memory(p.numpy(), t.numpy())
    assert not nn.Parameter(mg.ones(2), requires_grad=False).requires_grad
    assert "Parameter containing" in repr(p)


def test_shared_parameters_appear_once():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight
    seq = nn.Sequential(a, nn.Tanh(), b)
    params = list(seq.parameters())
    assert len(params) == 3
    assert sum(p is a.weight for p in params) == 1
    # state_dict still has every key (as in PyTorch) and loads into both
    sd = seq.state_dict()
    assert "0.weight" in sd and "2.weight" in sd
    new = mg.randn(3, 3)
    sd["0.weight"] = new
    sd["2.weight"] = new
    seq.load_state_dict(sd)
    np.testing.assert_array_equal(b.weight.numpy(), new.numpy())
    # gradients accumulate into the one shared parameter
    seq(mg.randn(2, 3)).sum().backward()
    assert a.weight.grad is b.weight.grad


def test_shared_submodule_appears_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.modules())) == 2
    assert len(list(seq.parameters())) == 2


# ---------------------------------------------------------------- state dicts
def test_state_dict_contents():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "bn.running_mean",
                        "bn.running_var", "bn.num_batches_tracked", "fc2.weight", "fc2.bias"]
    assert "scratch" not in sd  # non-persistent
    assert not any(v.requires_grad for v in sd.values())
    assert sd["bn.num_batches_tracked"].dtype == np.int64
    # detached but sharing memory, like PyTorch
    assert np.shares_memory(sd["fc1.weight"].numpy(), net.fc1.weight.numpy())


def test_load_state_dict_round_trip():
    mg.manual_seed(0)
    a = Net()
    a.train()
    a(mg.randn(5, 4))  # moves BatchNorm running stats
    mg.manual_seed(1)
    b = Net()
    missing, unexpected = b.load_state_dict(a.state_dict())
    assert missing == [] and unexpected == []
    assert_same_values(values(a), values(b))
    # copies, not aliases
    assert not np.shares_memory(a.fc1.weight.numpy(), b.fc1.weight.numpy())


def test_load_state_dict_accepts_numpy_arrays_and_keeps_dtype():
    m = nn.Linear(2, 3, dtype="float64")
    sd = {"weight": np.arange(6, dtype=np.float32).reshape(3, 2), "bias": np.ones(3, dtype=np.float32)}
    m.load_state_dict(sd)
    assert m.weight.dtype == np.float64
    np.testing.assert_array_equal(m.weight.numpy(), sd["weight"])


def test_load_state_dict_keeps_parameter_identity():
    m = nn.Linear(2, 3)
    w = m.weight
    opt_param = list(m.parameters())[0]
    m.load_state_dict(nn.Linear(2, 3).state_dict())
    assert m.weight is w is opt_param


@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_shape_mismatch_names_key_and_both_shapes_and_loads_nothing(strict):
    net = Net()
    before = values(net)
    sd = {k: v.numpy() + 1 for k, v in Net().state_dict().items()}
    sd["fc2.weight"] = np.zeros((3, 8), dtype=np.float32)
    with pytest.raises(RuntimeError) as exc:
        net.load_state_dict(sd, strict=strict)
    msg = str(exc.value)
    assert "fc2.weight" in msg and "(2, 8)" in msg and "(3, 8)" in msg and "Net" in msg
    assert_same_values(before, values(net))  # no half-loading


def test_strict_load_names_missing_and_unexpected_keys_and_loads_nothing():
    net = Net()
    before = values(net)
    sd = {k: v.numpy() + 1 for k, v in Net().state_dict().items()}
    del sd["fc1.bias"]
    del sd["bn.running_var"]
    sd["fc3.weight"] = np.zeros((2, 2))
    with pytest.raises(RuntimeError) as exc:
        net.load_state_dict(sd)
    msg = str(exc.value)
    assert "Missing key(s) in state_dict" in msg and "fc1.bias" in msg and "bn.running_var" in msg
    assert "Unexpected key(s) in state_dict" in msg and "fc3.weight" in msg
    assert_same_values(before, values(net))


def test_all_problems_reported_together():
    net = Net()
    sd = {k: v.numpy() for k, v in net.state_dict().items()}
    del sd["scale"]
    sd["extra"] = np.zeros(1)
    sd["fc1.weight"] = np.zeros((1, 1))
    with pytest.raises(RuntimeError) as exc:
        net.load_state_dict(sd)
    msg = str(exc.value)
    assert "scale" in msg and "extra" in msg and "fc1.weight" in msg


def test_non_strict_load_returns_missing_and_unexpected_and_loads_the_rest():
    net = Net()
    before = values(net)
    src = Net()
    sd = {k: v.numpy() + 1 for k, v in src.state_dict().items()}
    del sd["fc1.bias"]
    sd["bogus"] = np.zeros(3)
    missing, unexpected = net.load_state_dict(sd, strict=False)
    assert missing == ["fc1.bias"] and unexpected == ["bogus"]
    np.testing.assert_array_equal(net.fc1.bias.numpy(), before["fc1.bias"])
    np.testing.assert_array_equal(net.fc1.weight.numpy(), sd["fc1.weight"])
    assert net.state_dict()["bn.num_batches_tracked"].item() == 1


def test_load_unconvertible_value_is_an_error_without_half_loading():
    m = nn.Linear(2, 2)
    before = values(m)
    with pytest.raises(RuntimeError, match="bias"):
        m.load_state_dict({"weight": np.ones((2, 2)), "bias": np.array(["a", "b"])})
    assert_same_values(before, values(m))


def test_load_non_array_value_is_an_error_without_half_loading():
    m = nn.Linear(2, 2)
    before = values(m)
    with pytest.raises(RuntimeError, match="bias"):
        m.load_state_dict({"weight": np.ones((2, 2)), "bias": "zeros"})
    assert_same_values(before, values(m))


# ------------------------------------------------------------------ modes
def test_train_eval_propagate_to_every_submodule():
    net = nn.Sequential(Net(), nn.ModuleList([nn.Dropout(), nn.Sequential(nn.Dropout())]))
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.train(False)
    assert not any(m.training for m in net.modules())


def test_eval_mode_changes_behaviour():
    mg.manual_seed(0)
    net = Net()
    x = mg.randn(6, 4)
    net.eval()
    a, b = net(x).numpy(), net(x).numpy()
    np.testing.assert_array_equal(a, b)  # no dropout, running stats
    assert net.bn.num_batches_tracked.item() == 0
    net.train()
    c = net(x).numpy()
    assert net.bn.num_batches_tracked.item() == 1
    assert not np.allclose(a, c)


# ------------------------------------------------------------- conversion
@pytest.mark.parametrize("convert, dtype", [
    (lambda m: m.to(mg.float64), np.float64),
    (lambda m: m.to(dtype="float64"), np.float64),
    (lambda m: m.double(), np.float64),
    (lambda m: m.double().float(), np.float32),
])
def test_dtype_conversion_keeps_parameter_identity(convert, dtype):
    net = Net()
    params_before = list(net.parameters())
    opt = mg.optim.SGD(net.parameters(), lr=0.1)
    net(mg.randn(3, 4)).sum().backward()
    assert convert(net) is net
    assert all(a is b for a, b in zip(params_before, net.parameters()))
    for name, t in net.state_dict().items():
        if name.endswith("num_batches_tracked") or name == "steps":
            assert t.dtype == np.int64, name
        else:
            assert t.dtype == dtype, name
    for p in net.parameters():
        assert p.grad.dtype == dtype
    # the optimizer built before the conversion still updates the live parameters
    w = net.fc1.weight.numpy().copy()
    opt.step()
    assert not np.array_equal(w, net.fc1.weight.numpy())
    assert net(mg.randn(3, 4, dtype=dtype)).dtype == dtype


def test_to_cpu_is_a_no_op_keeping_identity():
    m = nn.Linear(2, 2)
    w = m.weight
    assert m.to("cpu") is m and m.weight is w and m.cpu() is m


def test_zero_grad():
    net = Net()
    net(mg.randn(3, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.zero_grad()  # no grads: fine


def test_requires_grad_():
    net = Net()
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first():
    seen = []
    nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU())).apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


# ------------------------------------------------------------------ hooks
def test_forward_hooks_and_removal():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, inputs: calls.append(("pre", inputs[0].shape)))
    h2 = m.register_forward_hook(lambda mod, inputs, out: calls.append(("post", out.shape)))
    m(mg.ones(3, 2))
    assert calls == [("pre", (3, 2)), ("post", (3, 2))]
    h1.remove()
    h2.remove()
    h2.remove()  # twice is fine
    m(mg.ones(3, 2))
    assert len(calls) == 2


def test_hooks_can_replace_inputs_and_outputs():
    m = nn.Identity()
    m.register_forward_pre_hook(lambda mod, inputs: (inputs[0] * 2,))
    m.register_forward_hook(lambda mod, inputs, out: out + 1)
    assert m(mg.tensor(3.0)).item() == 7.0


# ------------------------------------------------------------------- repr
def test_repr_names_layers_and_nesting():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Conv2d(1, 4, 3), nn.Dropout(0.2)))
    r = repr(net)
    assert r.startswith("Sequential(")
    assert "(0): Linear(in_features=2, out_features=3, bias=True)" in r
    assert "(1): ReLU()" in r
    assert "(2): Sequential(" in r and "Conv2d(1, 4, kernel_size=(3, 3)" in r and "Dropout(p=0.2, inplace=False)" in r
    for name in ("BatchNorm1d(8", "LayerNorm((5,)", "Embedding(10, 3)", "GELU(approximate='tanh')",
                 "MultiheadAttention(", "TransformerBlock("):
        assert name in repr(nn.ModuleList([nn.BatchNorm1d(8), nn.LayerNorm(5), nn.Embedding(10, 3),
                                           nn.GELU("tanh"), nn.TransformerBlock(8, 2)])), name


# ------------------------------------------------------------- containers
def test_sequential_indexing_slicing_iteration():
    layers = [nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 3), nn.Tanh()]
    seq = nn.Sequential(*layers)
    assert len(seq) == 4
    assert seq[0] is layers[0] and seq[-1] is layers[3] and seq[-4] is layers[0]
    with pytest.raises(IndexError, match="out of range"):
        seq[4]
    with pytest.raises(IndexError):
        seq[-5]
    assert list(seq) == layers
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2
    assert head[0] is layers[0] and head[1] is layers[1]
    assert list(seq[::2]) == [layers[0], layers[2]]
    assert len(seq[5:]) == 0
    x = mg.randn(5, 2)
    np.testing.assert_allclose(seq(x).numpy(), seq[2:](seq[:2](x)).numpy(), rtol=1e-6)
    seq.append(nn.Sigmoid())
    assert len(seq) == 5 and isinstance(seq[-1], nn.Sigmoid)


def test_sequential_from_ordered_dict_and_type_errors():
    seq = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in seq.named_children()] == ["enc", "act"]
    assert "enc.weight" in seq.state_dict()
    assert seq[0] is seq.enc
    with pytest.raises(TypeError, match="argument 1"):
        nn.Sequential(nn.ReLU(), "relu")


def test_module_list():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh(), nn.Linear(2, 1)])
    assert len(ml) == 6 and isinstance(ml[-1], nn.Linear)
    assert len(list(ml.parameters())) == 8
    assert "5.bias" in ml.state_dict()
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    assert [type(m).__name__ for m in ml][3:] == ["ReLU", "Tanh", "Linear"]
    with pytest.raises(TypeError):
        ml.append(mg.ones(2))

    class Holder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = ml

    assert len(list(Holder().parameters())) == 8
    assert "layers.0.weight" in Holder().state_dict()


def test_module_dict():
    md = nn.ModuleDict({"enc": nn.Linear(2, 3), "dec": nn.Linear(3, 2)})
    md["act"] = nn.ReLU()
    assert len(md) == 3 and "enc" in md and "nope" not in md
    assert list(md) == ["enc", "dec", "act"] == list(md.keys())
    assert md["dec"].out_features == 2
    assert [type(v).__name__ for v in md.values()] == ["Linear", "Linear", "ReLU"]
    assert dict(md.items())["act"] is md["act"]
    assert sorted(md.state_dict()) == ["dec.bias", "dec.weight", "enc.bias", "enc.weight"]
    with pytest.raises(TypeError):
        md["x"] = 3
    with pytest.raises(KeyError):
        md["missing"]


def test_to_a_complex_dtype_casts_complex_parameters_too():
    """module.to(mg.complex128) cast the float parameters to complex128 and left a complex64
    one as it was (PyTorch casts both); a real dtype still leaves complex parameters complex."""
    class Net(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.z = mg.nn.Parameter(mg.tensor(np.array([1 + 2j], dtype=np.complex64)))
            self.w = mg.nn.Parameter(mg.tensor([1.0]))

    net = Net()
    z = net.z
    (mg.abs(net.z) ** 2 + net.w).sum().backward()
    net.to(mg.complex128)
    assert net.z is z and net.z.dtype == net.w.dtype == net.z.grad.dtype == np.complex128
    np.testing.assert_array_equal(net.z.numpy(), [1 + 2j])
    assert Net().to("float64").z.dtype == Net().double().z.dtype == np.complex64
