"""Adam and AdamW take one-element tensor betas of any shape, as PyTorch's do (its OptimizerInfo for
Adam steps ``betas=(torch.tensor([[[0.9]]]), torch.tensor([[0.99]]))``): PyTorch squeezes each to one
value.  Here a beta of more dimensions than the parameter broadcast the moment update to its own shape,
and the in-place update refused it (``BroadcastMismatch: output with shape [3] doesn't match the
broadcast shape [1, 3]``) on every vector and 0-d parameter.  Found by stepping torch's
``optim_db`` configurations against mg's optimizers.

Expected values: torch 2.13 (float32), after three steps of::

    p = torch.arange(1.0, 1.0 + n).reshape(shape).requires_grad_()
    opt = torch.optim.<Adam|AdamW>([p], lr=torch.tensor(0.1), amsgrad=True,
                                   betas=(torch.tensor([[[0.9]]]), torch.tensor([[0.99]])))
    each step: p.grad = p.detach() * 0.5 - 1.0; opt.step()
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim

TORCH = {
    ("Adam", (3,)): [1.298502802848816, 2.0, 2.7014975547790527],
    ("Adam", ()): [1.298502802848816],
    ("AdamW", (3,)): [1.295229196548462, 2.006237268447876, 2.6928725242614746],
    ("AdamW", ()): [1.295229196548462],
}


@pytest.mark.parametrize("name,shape", list(TORCH))
def test_one_element_betas_of_more_dimensions_than_the_parameter(name, shape):
    n = int(np.prod(shape, dtype=int))
    p = mg.arange(1.0, 1.0 + n).reshape(shape).requires_grad_()
    opt = getattr(optim, name)([p], lr=mg.tensor(0.1), amsgrad=True,
                               betas=(mg.tensor([[[0.9]]]), mg.tensor([[0.99]])))
    for _ in range(3):
        p.grad = p.detach() * 0.5 - 1.0
        opt.step()
    assert p.shape == shape
    # (to round-off: PyTorch's fused multiply-adds, docs/from-pytorch.md)
    np.testing.assert_allclose(p.detach().numpy().reshape(-1), TORCH[name, shape], rtol=1e-6, atol=0)
    assert opt.state[p]["exp_avg"].shape == shape


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_the_group_keeps_one_element_betas_0_d_as_pytorch_s_constructor_does(name):
    # torch 2.13: [b.shape for b in Adam(ps, betas=(tensor([[[0.9]]]), tensor([[0.99]]))).param_groups[0]["betas"]]
    # is [torch.Size([]), torch.Size([])] -- what its state_dict() shows
    opt = getattr(optim, name)([mg.zeros(3, requires_grad=True)], betas=(mg.tensor([[[0.9]]]), mg.tensor([[0.99]])))
    assert [b.shape for b in opt.state_dict()["param_groups"][0]["betas"]] == [(), ()]


def test_betas_of_more_dimensions_put_into_the_group_later_are_one_value_too():
    # PyTorch's step squeezes them again (its functional adam's _to_scalar)
    p = mg.arange(1.0, 4.0).requires_grad_()
    opt = optim.Adam([p], lr=mg.tensor(0.1), amsgrad=True)
    opt.param_groups[0]["betas"] = (mg.tensor([[[0.9]]]), mg.tensor([[0.99]]))
    for _ in range(3):
        p.grad = p.detach() * 0.5 - 1.0
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), TORCH["Adam", (3,)], rtol=1e-6, atol=0)
