"""An optimizer's state of a complex parameter is kept as PyTorch keeps it: complex, in the
parameter's own shape (the update rule sees its real view).  It was kept as the real view
itself (shape ``p.shape + (2,)``, float), so a PyTorch state dict of a complex model did not
load, a snapshot of one did not restore, and ``opt.state[z]`` read differently from PyTorch's.
LBFGS flattened complex gradients as complex numbers (dot products without the real view's
meaning; a crash beside a real parameter) where PyTorch flattens their real views.

torch is not imported: its values are pasted as literals, each with the torch program that
made it (torch 2.13, CPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as lrs

Z0 = np.array([0.5 - 1.0j, -0.25 + 2.0j])
GRADS = [np.array([0.3 + 0.1j, -0.2 + 0.4j]), np.array([0.1 - 0.3j, 0.5 + 0.2j]), np.array([-0.4 + 0.2j, 0.1 + 0.1j])]

EVERY = [
    (optim.SGD, {"lr": 0.1, "momentum": 0.9}), (optim.Adam, {"lr": 0.1, "amsgrad": True}), (optim.AdamW, {"lr": 0.1}),
    (optim.RMSprop, {"lr": 0.1, "centered": True, "momentum": 0.3}), (optim.Adagrad, {"lr": 0.1}),
    (optim.Adadelta, {}), (optim.Adamax, {"lr": 0.1}), (optim.NAdam, {"lr": 0.1}), (optim.RAdam, {"lr": 0.1}),
    (optim.ASGD, {"lr": 0.1, "t0": 1}), (optim.Rprop, {"lr": 0.1}),
]
IDS = [cls.__name__ for cls, _ in EVERY]


def _stepped(cls, kw, steps, device="cpu"):
    z = mg.tensor(Z0, requires_grad=True, device=device)
    opt = cls([z], **kw)
    for g in GRADS[:steps]:
        z.grad = mg.tensor(g, device=device)
        opt.step()
    return z, opt


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("cls,kw", EVERY, ids=IDS)
def test_the_state_of_a_complex_parameter_is_complex_in_its_shape(cls, kw, device):
    z, opt = _stepped(cls, kw, 2, device)
    tensors = {k: v for k, v in opt.state[z].items() if isinstance(v, mg.Tensor) and v.ndim}
    assert tensors, "every optimizer here keeps a moment"
    for k, v in tensors.items():
        assert v.shape == z.shape and v.dtype == z.dtype, (k, v.shape, v.dtype)


@pytest.mark.parametrize("cls,kw", EVERY, ids=IDS)
def test_a_complex64_parameters_state_is_complex64(cls, kw):
    # torch.optim.<cls>([z64]): every moment of a complex64 parameter is complex64 (the float seam)
    z = mg.tensor(Z0.astype(np.complex64), requires_grad=True)
    opt = cls([z], **kw)
    for g in GRADS[:2]:
        z.grad = mg.tensor(g.astype(np.complex64))
        opt.step()
    assert z.dtype == np.complex64
    assert all(v.dtype == np.complex64 for v in opt.state[z].values() if isinstance(v, mg.Tensor) and v.ndim)


def test_adam_and_rprop_state_of_a_complex_parameter_equal_pytorchs():
    # z = torch.tensor([0.5-1j, -0.25+2j], dtype=complex128, requires_grad=True); o = Adam([z], lr=0.1);
    # two steps with grads [0.3+0.1j, -0.2+0.4j], [0.1-0.3j, 0.5+0.2j]: o.state[z] is complex128
    z, opt = _stepped(optim.Adam, {"lr": 0.1}, 2)
    st = opt.state[z]
    np.testing.assert_allclose(st["exp_avg"].numpy(), [0.037 - 0.021j, 0.032 + 0.056j], rtol=1e-13)
    np.testing.assert_allclose(st["exp_avg_sq"].numpy(), [9.991e-05 + 9.999e-05j, 2.8996e-04 + 1.9984e-04j],
                               rtol=1e-12)
    np.testing.assert_allclose(z.numpy(), [0.3128936121571956 - 1.0505810088799346j,
                                           -0.19422153021723293 + 1.806782041567113j], rtol=1e-13)
    # Rprop([z], lr=0.1), one step with the first grad: step_size (0.1+0.1j) (lr for both parts), prev = grad
    z, opt = _stepped(optim.Rprop, {"lr": 0.1}, 1)
    np.testing.assert_array_equal(opt.state[z]["step_size"].numpy(), [0.1 + 0.1j, 0.1 + 0.1j])
    np.testing.assert_array_equal(opt.state[z]["prev"].numpy(), GRADS[0])


@pytest.mark.parametrize("cls,kw", EVERY, ids=IDS)
def test_a_state_dict_in_pytorchs_complex_layout_loads_and_continues(cls, kw):
    # torch's state_dict of a complex parameter holds complex moments of the parameter's shape;
    # one made so (here: mg's own, now in that layout, re-built as plain complex arrays) loads and
    # the run continues exactly as the uninterrupted one
    whole, _ = _stepped(cls, kw, 3)
    z, opt = _stepped(cls, kw, 2)
    saved = opt.state_dict()
    torch_layout = {"param_groups": saved["param_groups"],
                    "state": {i: {k: mg.tensor(np.array(v.numpy())) if isinstance(v, mg.Tensor) else v
                                  for k, v in st.items()} for i, st in saved["state"].items()}}
    assert any(np.iscomplexobj(v.numpy()) for v in torch_layout["state"][0].values() if isinstance(v, mg.Tensor))
    z2 = mg.tensor(z.numpy(), requires_grad=True)
    opt2 = cls([z2], **kw)
    opt2.load_state_dict(torch_layout)
    z2.grad = mg.tensor(GRADS[2])
    opt2.step()
    np.testing.assert_array_equal(z2.numpy(), whole.numpy())


def test_a_state_dict_in_the_former_real_view_layout_still_loads():
    whole, _ = _stepped(optim.Adam, {"lr": 0.1}, 3)
    z, opt = _stepped(optim.Adam, {"lr": 0.1}, 2)
    saved = opt.state_dict()
    for st in saved["state"].values():  # the layout mg wrote before: the real view, (..., 2) floats
        for k in ("exp_avg", "exp_avg_sq"):
            st[k] = mg.tensor(mg.view_as_real(st[k]).numpy().copy())
    z2 = mg.tensor(z.numpy(), requires_grad=True)
    opt2 = optim.Adam([z2], lr=0.1)
    opt2.load_state_dict(saved)
    assert opt2.state[z2]["exp_avg"].dtype == np.complex128
    z2.grad = mg.tensor(GRADS[2])
    opt2.step()
    np.testing.assert_array_equal(z2.numpy(), whole.numpy())


def test_lbfgs_on_complex_parameters_equals_pytorchs():
    # z = tensor([0.5-1j, -0.25+2j], complex128); w = tensor([1., -2.], float64); t = tensor([0.3, -0.7]);
    # o = LBFGS([w, z], lr=0.5, max_iter=5, history_size=3); loss = ((w - t)**2).sum()
    #   + ((z.real * t).sum())**2 + (z.imag**2 * w.exp()).sum(); two o.step(closure):
    # (mg crashed: "unsupported operand type(s) for *: 'complex' and 'NoneType'")
    z = mg.tensor(Z0, requires_grad=True)
    w = mg.tensor([1.0, -2.0], dtype="float64", requires_grad=True)
    t = mg.tensor([0.3, -0.7], dtype="float64")
    opt = optim.LBFGS([w, z], lr=0.5, max_iter=5, history_size=3)

    def closure():
        opt.zero_grad()
        loss = ((w - t) ** 2).sum() + ((z.real * t).sum()) ** 2 + (z.imag ** 2 * w.exp()).sum()
        loss.backward()
        return loss
    for _ in range(2):
        opt.step(closure)
    np.testing.assert_allclose(w.numpy(), [0.29090017035391746, -0.6963120780259896], rtol=1e-10)
    np.testing.assert_allclose(z.numpy(), [0.32787501702353994 + 0.005283849831184423j,
                                           0.15162496027840683 + 0.01842455392778463j], rtol=1e-10)
    d = opt.state_dict()["state"][0]["d"]  # torch: the direction over the real views, float64 of size 6
    assert d.shape == (6,) and d.dtype == np.float64


class _ComplexModel(nn.Module):
    def __init__(self, seed: int) -> None:
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = nn.Parameter(mg.tensor(rng.standard_normal(3)))
        self.z = nn.Parameter(mg.tensor(rng.standard_normal(3) + 1j * rng.standard_normal(3)))

    def forward(self, t):
        return ((self.w - t) ** 2).sum() + (self.z.real * t).sum() ** 2 + (self.z.imag ** 2).sum()


SNAPSHOT_OPTIMIZERS = [*EVERY, (optim.LBFGS, {"lr": 0.05, "history_size": 3, "max_iter": 4})]


def _train(model, opt, sched, start, stop):
    for i in range(start, stop):
        t = mg.tensor(np.sin(np.arange(3.0) + i))

        def closure(t=t):
            opt.zero_grad()
            loss = model(t)
            loss.backward()
            return loss
        opt.step(closure)
        sched.step()


@pytest.mark.msgpack
@pytest.mark.parametrize("cls,kw", SNAPSHOT_OPTIMIZERS, ids=[c.__name__ for c, _ in SNAPSHOT_OPTIMIZERS])
def test_a_snapshot_resumes_an_optimizer_of_complex_parameters_bit_for_bit(cls, kw, tmp_path: Path):
    # the restore refused the complex parameter's moments ("a float64 moment of shape (3, 2) for a
    # parameter of shape (3,)")
    from minigrad_ckpt.snapshot import Snapshot

    def build(seed):
        model = _ComplexModel(seed)
        opt = cls(model.parameters(), **kw)
        return model, opt, lrs.StepLR(opt, 2, gamma=0.7)
    model, opt, sched = build(0)
    _train(model, opt, sched, 0, 6)
    want = [p.numpy().copy() for p in model.parameters()]
    model, opt, sched = build(0)
    _train(model, opt, sched, 0, 3)
    path = Snapshot.from_executor(mg.Executor(model, opt, sched), 3).save(tmp_path / "s.mgsnap")
    model2, opt2, sched2 = build(5)
    Snapshot.load(path).restore_into(mg.Executor(model2, opt2, sched2))
    _train(model2, opt2, sched2, 3, 6)
    for a, b in zip(want, model2.parameters()):
        np.testing.assert_array_equal(a, b.numpy())
