"""PyTorch's lazy layers: ``nn.LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``, ``LazyBatchNorm*``,
``LazyInstanceNorm*``, their ``UninitializedParameter`` s and ``LazyModuleMixin``.

Before, docs/from-pytorch.md listed them as not offered, and d2l's RNN and attention chapters (which
build every model from them, with the optimizer made before the first forward) stopped at the first
model.  The answers asserted here are torch 2.13's (probed in /tmp, pasted as literals).
"""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn, optim
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.nn.modules.lazy import LazyModuleMixin
from minigrad_ckpt.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

UNINITIALIZED = "Attempted to use an uninitialized parameter in"
NO_SHAPE = "Can't access the shape of an uninitialized parameter or buffer"


def _numbers(model: nn.Module) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in model.parameters()]


# ------------------------------------------------------------------ the uninitialized tensors
def test_an_uninitialized_parameter_refuses_use_as_pytorchs_does():
    p = UninitializedParameter()
    assert repr(p) == str(p) == "<UninitializedParameter>" and isinstance(p, nn.Parameter) and is_lazy(p)
    assert nn.UninitializedParameter is UninitializedParameter and nn.UninitializedBuffer is UninitializedBuffer
    # torch 2.13: methods and operators are ValueError, the shape a RuntimeError, properties answer
    assert isinstance(nn.LazyLinear(3), nn.Linear) and callable(p.numel)  # (refused when called, as PyTorch's)
    for use in (p.numel, p.sum, p.detach, p.clone, p.zero_, lambda: p + 1, lambda: len(p), lambda: p.view(-1),
                lambda: nn.init.zeros_(p), lambda: p.requires_grad_(False)):
        with pytest.raises(ValueError, match=UNINITIALIZED):
            use()
    with pytest.raises(RuntimeError, match=NO_SHAPE):
        p.shape  # noqa: B018
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter"):
        p.share_memory_()
    assert (p.dtype, p.requires_grad, p.grad, p.is_leaf, tuple(p.size())) == (mg.float32, True, None, True, (0,))
    assert p.double().dtype == mg.float64 and not is_lazy(p.double())


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
def test_materialize_turns_the_same_object_into_a_parameter(dtype):
    p = UninitializedParameter(requires_grad=False, dtype=dtype)
    same = p
    p.materialize((2, 3))
    assert p is same and type(p) is nn.Parameter and not is_lazy(p)
    assert (p.shape, p.dtype, p.requires_grad) == ((2, 3), dtype, False)
    q = UninitializedParameter()
    q.materialize([4], dtype=mg.float64)  # given dtype wins (torch 2.13)
    assert type(q) is nn.Parameter and q.dtype == mg.float64 and q.shape == (4,)
    b = UninitializedBuffer()
    assert (repr(b), b.requires_grad, b.persistent, isinstance(b, nn.Buffer)) == ("<UninitializedBuffer>", False,
                                                                               True, True)
    b.materialize((3,))
    assert type(b) is mg.Tensor and b.shape == (3,) and isinstance(b, nn.Buffer)


def test_deepcopy_of_an_uninitialized_parameter_stays_uninitialized():
    p = UninitializedParameter(dtype=mg.float64)
    d = copy.deepcopy(p)
    assert type(d) is UninitializedParameter and d is not p and d.dtype == mg.float64 and d.requires_grad


# ------------------------------------------------------------------ the layers
SIGNATURES = {  # torch 2.13's parameter names, in order
    "LazyLinear": ["out_features", "bias", "device", "dtype"],
    "LazyConv2d": ["out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias", "padding_mode",
                   "device", "dtype"],
    "LazyConvTranspose3d": ["out_channels", "kernel_size", "stride", "padding", "output_padding", "groups", "bias",
                            "dilation", "padding_mode", "device", "dtype"],
    "LazyBatchNorm1d": ["eps", "momentum", "affine", "track_running_stats", "device", "dtype", "bias"],
    "LazyInstanceNorm3d": ["eps", "momentum", "affine", "track_running_stats", "device", "dtype", "bias"],
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_constructors_take_pytorchs_arguments(name):
    assert list(inspect.signature(getattr(nn, name)).parameters) == SIGNATURES[name]


LAYERS = [  # (lazy, input shape, eager twin built with the inferred size)
    (lambda: nn.LazyLinear(3), (2, 5), lambda: nn.Linear(5, 3)),
    (lambda: nn.LazyConv1d(4, 3, padding=1), (2, 6, 7), lambda: nn.Conv1d(6, 4, 3, padding=1)),
    (lambda: nn.LazyConv2d(4, 3, groups=2), (2, 6, 5, 5), lambda: nn.Conv2d(6, 4, 3, groups=2)),
    (lambda: nn.LazyConv3d(2, 2), (1, 3, 3, 3, 3), lambda: nn.Conv3d(3, 2, 2)),
    (lambda: nn.LazyConvTranspose1d(2, 3, stride=2), (2, 3, 4), lambda: nn.ConvTranspose1d(3, 2, 3, stride=2)),
    (lambda: nn.LazyConvTranspose2d(4, 3, groups=2), (1, 6, 5, 5), lambda: nn.ConvTranspose2d(6, 4, 3, groups=2)),
    (lambda: nn.LazyConvTranspose3d(2, 2), (1, 3, 2, 2, 2), lambda: nn.ConvTranspose3d(3, 2, 2)),
    (lambda: nn.LazyBatchNorm1d(), (4, 3), lambda: nn.BatchNorm1d(3)),
    (lambda: nn.LazyBatchNorm2d(momentum=0.3), (4, 3, 2, 2), lambda: nn.BatchNorm2d(3, momentum=0.3)),
    (lambda: nn.LazyBatchNorm3d(), (2, 3, 2, 2, 2), lambda: nn.BatchNorm3d(3)),
    (lambda: nn.LazyInstanceNorm1d(), (2, 3, 4), lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True)),
    (lambda: nn.LazyInstanceNorm2d(), (2, 3, 4, 4),
     lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True)),
    (lambda: nn.LazyInstanceNorm3d(affine=False), (2, 3, 2, 2, 2),
     lambda: nn.InstanceNorm3d(3, track_running_stats=True)),
]


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
@pytest.mark.parametrize("case", range(len(LAYERS)))
def test_the_first_call_makes_the_eager_layer_with_its_initialization(case, dtype):
    make_lazy, shape, make_eager = LAYERS[case]
    x = mg.randn(*shape, dtype=dtype)
    mg.manual_seed(3)
    lazy = make_lazy().to(dtype)  # (the dtype set before the first call is the one the weights are made with)
    params = list(lazy.parameters())
    assert all(is_lazy(p) for p in params) and isinstance(lazy, LazyModuleMixin) and lazy.has_uninitialized_params()
    out = lazy(x)
    mg.manual_seed(3)
    with mg.device("cpu"):
        eager = make_eager()
    eager.to(dtype) if dtype == mg.float32 else None
    assert type(lazy) is type(eager) and not isinstance(lazy, LazyModuleMixin)
    assert all(a is b for a, b in zip(params, lazy.parameters())) and len(params) == len(list(eager.parameters()))
    assert repr(lazy) == repr(eager) and list(lazy.state_dict()) == list(eager.state_dict())
    assert not lazy._forward_pre_hooks and not hasattr(lazy, "_initialize_hook")
    for (name, a), b in zip(lazy.state_dict().items(), eager.state_dict().values()):
        assert a.shape == b.shape and a.dtype == (b.dtype if name == "num_batches_tracked" else dtype), name
    if dtype == mg.float32:  # the same draws from the generator as the eager layer's construction
        for (name, a), b in zip(lazy.named_parameters(), eager.parameters()):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy(), err_msg=name)
        eager.load_state_dict(lazy.state_dict())
        np.testing.assert_allclose(eager(x).detach().numpy(), out.detach().numpy(), rtol=1e-6)


def test_reprs_before_the_first_call_are_pytorchs():
    # torch 2.13's
    assert repr(nn.LazyLinear(4)) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert repr(nn.LazyConv2d(3, 3)) == "LazyConv2d(0, 3, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.LazyConvTranspose1d(2, 3)) == "LazyConvTranspose1d(0, 2, kernel_size=(3,), stride=(1,))"
    assert repr(nn.LazyBatchNorm2d()) == ("LazyBatchNorm2d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                          "track_running_stats=True)")


def test_pytorchs_quirks_are_kept():
    # torch 2.13: a LazyInstanceNorm tracks running stats and is affine by default; a lazy norm with
    # nothing to infer becomes the eager one with num_features 0; the channel count must divide by groups
    norm = nn.LazyInstanceNorm1d()
    assert (norm.affine, norm.track_running_stats) == (True, True)
    assert [n for n, _ in norm.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    bare = nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
    bare(mg.randn(4, 3))
    assert type(bare) is nn.BatchNorm1d and bare.num_features == 0
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(mg.ones(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(mg.ones(5, 5))
    unbatched = nn.LazyConv2d(4, 3)
    unbatched(mg.ones(2, 5, 5))
    assert unbatched.in_channels == 2 and unbatched.weight.shape == (4, 2, 3, 3)


def test_a_model_before_its_first_call():
    net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
    assert [type(p).__name__ for p in net.parameters()] == ["UninitializedParameter"] * 4
    with pytest.raises(ValueError, match=UNINITIALIZED):  # torch 2.13: numel is refused
        sum(p.numel() for p in net.parameters())
    with pytest.raises(ValueError, match=UNINITIALIZED):
        net.requires_grad_(False)
    with pytest.raises(RuntimeError, match=NO_SHAPE):  # d2l's init applied before the dry run
        net.apply(lambda m: nn.init.xavier_uniform_(m.weight) if isinstance(m, nn.Linear) else None)
    d = copy.deepcopy(net)
    d(mg.ones(1, 3))
    assert type(d[0]) is nn.Linear and type(net[0]) is nn.LazyLinear and is_lazy(net[0].weight)
    net.double()
    net(mg.ones(2, 3, dtype=mg.float64))
    assert all(p.dtype == mg.float64 for p in net.parameters())
    assert sum(p.numel() for p in net.parameters()) == 4 * 3 + 4 + 2 * 4 + 2


def test_dtype_and_device_given_to_the_constructor_apply_at_materialize():
    m = nn.LazyLinear(3, dtype=mg.float64, device="strict")
    m(mg.ones(2, 4, dtype=mg.float64, device="strict"))
    assert m.weight.dtype == mg.float64 and m.weight.device.type == "strict"
    n = nn.LazyBatchNorm2d().to("strict")
    out = n(mg.randn(2, 3, 2, 2).to("strict"))
    assert n.running_mean.device.type == "strict" and out.device.type == "strict"


# ------------------------------------------------------------------ state dicts, files, snapshots
def test_state_dicts_of_lazy_modules(tmp_path):
    lazy = nn.LazyLinear(3)
    sd = lazy.state_dict()
    assert sd["weight"] is lazy.weight and repr(sd["bias"]) == "<UninitializedParameter>"
    full = nn.LazyLinear(3)
    full(mg.ones(1, 5))
    weight = lazy.weight
    # torch 2.13: loading a materialized state materializes with its shapes; the class stays lazy (and
    # in_features 0) until the first call
    assert list(lazy.load_state_dict(full.state_dict())) == [[], []]
    assert lazy.weight is weight and type(lazy) is nn.LazyLinear and lazy.in_features == 0
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), full.weight.detach().numpy())
    lazy(mg.ones(2, 5))
    assert type(lazy) is nn.Linear and lazy.in_features == 5
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), full.weight.detach().numpy())
    with pytest.raises(RuntimeError, match=NO_SHAPE):  # an uninitialized state into a materialized module
        full.load_state_dict(nn.LazyLinear(3).state_dict())
    # an uninitialized state saved and loaded stays uninitialized, and loads into a lazy module
    mg.save(nn.LazyBatchNorm1d().state_dict(), tmp_path / "lazy.pt")
    back = mg.load(tmp_path / "lazy.pt")
    assert [type(v).__name__ for v in back.values()] == ["UninitializedParameter", "UninitializedParameter",
                                                        "UninitializedBuffer", "UninitializedBuffer", "Tensor"]
    norm = nn.LazyBatchNorm1d()
    norm.load_state_dict(back)
    assert norm.has_uninitialized_params()
    norm(mg.randn(4, 3))
    assert type(norm) is nn.BatchNorm1d and norm.running_var.shape == (3,)
    from minigrad_ckpt.snapshot.format import SnapshotError
    from minigrad_ckpt.snapshot.object_tree import decode

    with pytest.raises(SnapshotError, match="uninitialized tensor is malformed"):  # (an untrusted file)
        decode({"t": "uninitialized", "ref": 0, "dtype": "object", "requires_grad": True, "parameter": 1}, {}, None, 0)
    mg.save(lazy.state_dict(), tmp_path / "full.pt")
    again = nn.LazyLinear(3)
    again.load_state_dict(mg.load(tmp_path / "full.pt"))
    np.testing.assert_array_equal(again.weight.detach().numpy(), full.weight.detach().numpy())


def test_a_materialized_lazy_model_snapshots_checkpoints_and_calls_functionally(tmp_path):
    from minigrad_ckpt.snapshot import Snapshot

    mg.manual_seed(0)
    model = nn.Sequential(nn.LazyLinear(6), nn.Tanh(), nn.LazyLinear(2))
    opt = optim.Adam(model.parameters(), lr=0.01)
    x, y = mg.randn(5, 4), mg.randn(5, 2)
    model(x)  # the dry run
    ex = mg.Executor(model, opt)

    def step() -> None:
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()

    step()
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    step()
    reference = _numbers(model)
    mg.manual_seed(1)
    model2 = nn.Sequential(nn.LazyLinear(6), nn.Tanh(), nn.LazyLinear(2))
    opt2 = optim.Adam(model2.parameters(), lr=0.01)
    model2(x)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(model2, opt2))
    model, opt = model2, opt2
    step()
    assert all(np.array_equal(a, b) for a, b in zip(_numbers(model2), reference))
    # functional_call and checkpoint on the materialized model
    weights = {k: v * 0 for k, v in model.state_dict().items()}
    assert float(mg.func.functional_call(model, weights, (x,)).abs().sum()) == 0.0
    leaf = x.clone().requires_grad_()
    checkpoint(model, leaf, use_reentrant=False).sum().backward()
    plain = x.clone().requires_grad_()
    model(plain).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), plain.grad.numpy(), rtol=1e-6)


# ------------------------------------------------------------------ d2l's way: optimizer first
def _lenet(lazy: bool, dtype) -> nn.Module:
    """d2l's LeNet with batch norm (chapter 8.5), small; the eager twin spells out the input sizes."""
    if lazy:
        return nn.Sequential(
            nn.LazyConv2d(4, kernel_size=3, padding=1), nn.LazyBatchNorm2d(), nn.Sigmoid(), nn.AvgPool2d(2),
            nn.LazyConv2d(6, kernel_size=3), nn.LazyBatchNorm2d(), nn.Sigmoid(), nn.Flatten(),
            nn.LazyLinear(10), nn.LazyBatchNorm1d(), nn.Sigmoid(), nn.LazyLinear(3)).to(dtype)
    return nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1, dtype=dtype), nn.BatchNorm2d(4, dtype=dtype), nn.Sigmoid(),
        nn.AvgPool2d(2), nn.Conv2d(4, 6, kernel_size=3, dtype=dtype), nn.BatchNorm2d(6, dtype=dtype), nn.Sigmoid(),
        nn.Flatten(), nn.Linear(6 * 2 * 2, 10, dtype=dtype), nn.BatchNorm1d(10, dtype=dtype), nn.Sigmoid(),
        nn.Linear(10, 3, dtype=dtype))


class _Trainer:
    """d2l's ``Trainer.fit``: the optimizer is made from ``model.parameters()`` *before* the first
    forward, then every batch is forward, loss, zero_grad, backward, step."""

    def __init__(self, model: nn.Module, make_optimizer) -> None:
        self.model, self.optim = model, make_optimizer(model.parameters())

    def fit(self, batches) -> list[float]:
        losses = []
        for x, y in batches:
            loss = nn.functional.cross_entropy(self.model(x), y)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()
            losses.append(float(loss))
        return losses


OPTIMIZERS = {
    "SGD": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-3),
    "Adam": lambda ps: optim.Adam(ps, lr=0.01),
    "AdamW": lambda ps: optim.AdamW(ps, lr=0.01),
    "Adagrad": lambda ps: optim.Adagrad(ps, lr=0.05),  # (PyTorch's fails here: it reads shapes when built)
}


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_d2l_trainer_with_lazy_layers_steps_as_the_eager_program(opt, dtype):
    mg.manual_seed(7)
    batches = [(mg.randn(8, 1, 8, 8, dtype=dtype), mg.randint(0, 3, (8,))) for _ in range(4)]
    mg.manual_seed(11)
    lazy = _Trainer(_lenet(True, dtype), OPTIMIZERS[opt])
    held = list(lazy.optim.param_groups[0]["params"])
    assert all(is_lazy(p) for p in held)
    lazy_losses = lazy.fit(batches[:1])  # the first batch materializes the layers inside fit
    assert all(a is b for a, b in zip(held, lazy.model.parameters())) and not any(map(is_lazy, held))
    assert [type(m).__name__ for m in lazy.model][:2] == ["Conv2d", "BatchNorm2d"]
    mg.manual_seed(11)  # the same draws in the same order: the eager layers start from the same weights
    eager = _Trainer(_lenet(False, dtype), OPTIMIZERS[opt])
    eager_losses = eager.fit(batches[:1])
    assert lazy_losses == eager_losses
    for x, y in batches[1:]:  # step by step, bit for bit
        assert lazy.fit([(x, y)]) == eager.fit([(x, y)])
        assert all(np.array_equal(a, b) for a, b in zip(_numbers(lazy.model), _numbers(eager.model)))
    assert all(np.array_equal(a.detach().numpy(), b.detach().numpy())
               for a, b in zip(lazy.model.buffers(), eager.model.buffers()))
    assert all(p.dtype == dtype for p in lazy.model.parameters())


def test_d2l_apply_init_after_a_dry_run():
    """d2l's ``apply_init``: a dry forward, then ``net.apply(init)`` over the now eager layers."""
    net = nn.Sequential(nn.LazyConv2d(2, 3), nn.Flatten(), nn.LazyLinear(4))
    opt = optim.SGD(net.parameters(), lr=0.5)
    net(mg.ones(1, 1, 5, 5))

    def init_cnn(module: nn.Module) -> None:
        if type(module) in (nn.Linear, nn.Conv2d):
            nn.init.xavier_uniform_(module.weight)
            nn.init.zeros_(module.bias)

    net.apply(init_cnn)
    assert float(net[2].bias.abs().sum()) == 0.0 and net[2].weight.shape == (4, 18)
    net(mg.ones(1, 1, 5, 5)).sum().backward()
    before = net[2].bias.detach().numpy().copy()
    opt.step()
    np.testing.assert_allclose(net[2].bias.detach().numpy(), before - 0.5)


@pytest.mark.parametrize("how", ["checkpoint", "checkpoint_sequential"])
def test_a_first_call_inside_a_checkpoint_materializes_once_and_replays_bitwise(how):
    """The shapes are inferred (and the weights drawn) in the forward pass inside the segment; the
    replay in backward runs the eager layer it has become, with the dropout mask of the forward."""
    from minigrad_ckpt import checkpoint as ck

    def run(checkpointed):
        mg.manual_seed(0)
        net = mg.nn.Sequential(mg.nn.LazyLinear(5), mg.nn.Dropout(0.5), mg.nn.Tanh(), mg.nn.LazyLinear(3))
        x = mg.randn(4, 6, requires_grad=True)
        if not checkpointed:
            y = net(x)
        elif how == "checkpoint":
            y = ck.checkpoint(net, x)
        else:
            y = ck.checkpoint_sequential(net, 2, x)
        y.sum().backward()
        assert type(net[0]) is mg.nn.Linear and net[3].weight.shape == (3, 5)
        return [x.grad.numpy(), y.detach().numpy()] + [p.grad.numpy() for p in net.parameters()]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a, b)


def test_a_first_call_inside_a_transform_materializes_as_outside():
    """The first call may come inside mg.func.grad or jvp (the weights are drawn there, as a plain
    first call draws them); inside vmap it is PyTorch's refusal of a random draw in 'error' mode."""
    from minigrad_ckpt import func

    def fresh():
        mg.manual_seed(0)
        return mg.nn.Sequential(mg.nn.LazyLinear(4), mg.nn.Tanh(), mg.nn.LazyLinear(1))

    x = mg.randn(5, 3, dtype=mg.float64)
    net = fresh().double()
    g = func.grad(lambda inp: net(inp).sum())(x)
    plain = fresh().double()
    ref = x.clone().requires_grad_(True)
    plain(ref).sum().backward()
    assert type(net[0]) is mg.nn.Linear and g.shape == (5, 3)
    np.testing.assert_array_equal(g.numpy(), ref.grad.numpy())
    for a, b in zip(net.parameters(), plain.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    out, tangent = func.jvp(fresh().double(), (x,), (mg.ones_like(x),))
    assert out.shape == tangent.shape == (5, 1)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(fresh())(mg.randn(6, 5, 3))
