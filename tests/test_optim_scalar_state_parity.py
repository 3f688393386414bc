"""The scalars of an optimizer's state are PyTorch's 0-d tensors: ``state["step"]`` of every
optimizer that counts steps, ASGD's ``eta`` and ``mu``, NAdam's ``mu_product`` -- float32, or
float64 under a float64 default dtype, as ``torch.optim`` keeps them (``_get_scalar_dtype()``).
They were Python ints and floats, so ``state_dict()`` differed from PyTorch's in type and code
written for PyTorch's state (``state["step"].item()``) failed.

torch is not imported: its answers are pasted as literals, each with the torch program that
gave it (torch 2.13, CPU)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim

COUNTING = [
    (optim.Adam, {}), (optim.AdamW, {}), (optim.RMSprop, {}), (optim.Adagrad, {}), (optim.Adadelta, {}),
    (optim.Adamax, {}), (optim.NAdam, {}), (optim.RAdam, {}), (optim.ASGD, {"t0": 1}), (optim.Rprop, {}),
]
IDS = [cls.__name__ for cls, _ in COUNTING]
GRADS = ([0.3, -0.2, 0.1], [0.1, 0.4, -0.3], [-0.2, 0.2, 0.5])


def _stepped(cls, kw, steps, dtype=None):
    p = mg.tensor([0.5, -1.25, 2.0], dtype=dtype, requires_grad=True)
    opt = cls([p], lr=0.1, **kw)
    for g in GRADS[:steps]:
        p.grad = mg.tensor(g, dtype=p.dtype)
        opt.step()
    return p, opt


@pytest.mark.parametrize("cls,kw", COUNTING, ids=IDS)
def test_the_step_count_is_a_0d_float32_tensor_as_pytorchs(cls, kw):
    # p = torch.tensor([0.5, -1.25, 2.0], requires_grad=True); o = torch.optim.Adam([p], lr=0.1); two steps:
    # o.state[p]["step"] is tensor(2.) of torch.float32, and so in o.state_dict()["state"][0]["step"]
    p, opt = _stepped(cls, kw, 2)
    step = opt.state[p]["step"]
    assert isinstance(step, mg.Tensor) and step.shape == () and step.dtype == np.float32 and step.item() == 2.0
    saved = opt.state_dict()["state"][0]["step"]
    assert isinstance(saved, mg.Tensor) and saved.dtype == np.float32 and saved.item() == 2.0


@pytest.mark.parametrize("cls,kw", COUNTING, ids=IDS)
def test_under_a_float64_default_the_step_count_is_float64(cls, kw, float64_default):
    p, opt = _stepped(cls, kw, 2)
    assert opt.state[p]["step"].dtype == np.float64 and p.dtype == np.float64


def test_adagrad_has_its_step_tensor_before_the_first_step():
    # torch.optim.Adagrad([p]).state[p]["step"] is tensor(0.) at construction
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    step = optim.Adagrad([p]).state[p]["step"]
    assert isinstance(step, mg.Tensor) and step.item() == 0.0 and step.dtype == np.float32


def test_nadam_and_asgd_scalars_are_pytorchs_tensors():
    # NAdam([p], lr=0.1), two steps of GRADS: state["mu_product"] is tensor(0.2025991976261139) float32
    p, opt = _stepped(optim.NAdam, {}, 2)
    mu_product = opt.state[p]["mu_product"]
    assert isinstance(mu_product, mg.Tensor) and mu_product.dtype == np.float32
    assert mu_product.item() == 0.2025991976261139
    # ASGD([p], lr=0.1, t0=1), two steps: eta tensor(0.09999849647283554), mu tensor(1.) float32
    p, opt = _stepped(optim.ASGD, {"t0": 1}, 2)
    st = opt.state[p]
    assert isinstance(st["eta"], mg.Tensor) and st["eta"].dtype == np.float32
    assert st["eta"].item() == 0.09999849647283554 and st["mu"].item() == 1.0


def test_asgd_scalars_are_float64_under_a_float64_default(float64_default):
    # torch.set_default_dtype(torch.float64); the same run: eta tensor(0.09999850002624952, float64)
    p, opt = _stepped(optim.ASGD, {"t0": 1}, 2)
    assert opt.state[p]["eta"].dtype == np.float64 and opt.state[p]["eta"].item() == 0.09999850002624952


@pytest.mark.parametrize("cls,kw", COUNTING, ids=IDS)
def test_a_state_dict_of_plain_numbers_still_loads_and_continues(cls, kw):
    # mg's state dicts (and snapshots) before the scalars were tensors held ints and floats
    whole, _ = _stepped(cls, kw, 3)
    p, opt = _stepped(cls, kw, 2)
    saved = opt.state_dict()
    for st in saved["state"].values():
        for k in cls.scalar_state_keys:
            st[k] = int(st[k].item()) if k == "step" else st[k].item()
    q = mg.tensor(p.numpy(), requires_grad=True)
    opt2 = cls([q], lr=0.1, **kw)
    opt2.load_state_dict(saved)
    assert all(isinstance(opt2.state[q][k], mg.Tensor) for k in cls.scalar_state_keys)
    q.grad = mg.tensor(GRADS[2])
    opt2.step()
    np.testing.assert_array_equal(q.numpy(), whole.numpy())


@pytest.mark.parametrize("cls,kw", COUNTING, ids=IDS)
def test_a_round_trip_mid_run_continues_bit_for_bit_and_copies_the_scalars(cls, kw):
    whole, _ = _stepped(cls, kw, 3)
    p, opt = _stepped(cls, kw, 2)
    saved = opt.state_dict()
    q = mg.tensor(p.numpy(), requires_grad=True)
    opt2 = cls([q], lr=0.1, **kw)
    opt2.load_state_dict(saved)
    q.grad = mg.tensor(GRADS[2])
    opt2.step()
    np.testing.assert_array_equal(q.numpy(), whole.numpy())
    # mg's state_dict() is a copy (docs: safe to keep across steps), so loading it and stepping leaves it at 2;
    # torch 2.13's holds the live tensors and load_state_dict keeps its "step" as given, so there both
    # optimizers and the dict share one step tensor (it reads 3) -- an aliasing mg does not copy
    assert saved["state"][0]["step"].item() == 2.0
