"""Adam, NAdam and Adamax with tensor betas (float32 0-d tensors, as ``torch.tensor(0.9)`` makes them) step a
float64 parameter as PyTorch's do, bit for bit.  Two roundings PyTorch does not make were here:

- a 0-d parameter's moment update is NumPy scalar arithmetic, and a NumPy scalar times the 0-d tensor
  ``1 - b1`` is a float32 product (a Python-like scalar meets a tensor), so the float64 moments were
  rounded to float32 -- PyTorch weighs by ``1 - b1`` in the parameter's dtype, by ``1 - b2`` as a number;
- Adam divided ``sqrt(v)`` by the 0-d tensor ``sqrt(1 - b2^t)`` as ``array / Tensor``, which is
  ``reciprocal(tensor) * array`` (PyTorch's rule for a number on the left: rounded twice), where PyTorch
  divides by the tensor: every float64 parameter moved about 1e-8 (relative) away from PyTorch's.

Expected values: torch 2.13, the bit patterns (``float.hex``) after two steps of::

    ps = [torch.tensor(1.25, dtype=dt), torch.tensor([0.5, -1.5, 2.0], dtype=dt)]  # requires_grad
    opt = torch.optim.<Adam|NAdam>(ps, lr=0.01, betas=(torch.tensor(0.9), torch.tensor(0.99)))
    grads (0.3, [0.3, -0.7, 1.1]) then (-0.45, [0.2, 0.6, -1.3]); opt.step() after each
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
TORCH = {
    ("Adam", "float64"): ["0x1.3e12d5305c68bp+0", "0x1.ebd09fea60165p-2", "-0x1.7d60c2d9ee60cp+0",
                          "0x1.fdc966b7a63bep+0"],
    ("NAdam", "float64"): ["0x1.3f6e27e269485p+0", "0x1.eeb389a8a69cdp-2", "-0x1.7eea39d4099ddp+0",
                           "0x1.ff3babe50d916p+0"],
    ("Adam", "float32"): ["0x1.3e12d60000000p+0", "0x1.ebd0a00000000p-2", "-0x1.7d60c40000000p+0",
                          "0x1.fdc9660000000p+0"],
    ("NAdam", "float32"): ["0x1.3f6e260000000p+0", "0x1.eeb38c0000000p-2", "-0x1.7eea3a0000000p+0",
                           "0x1.ff3baa0000000p+0"],
}
# torch 2.13's state["exp_avg_sq"] of the 0-d float64 parameter after the two steps (either optimizer)
TORCH_EXP_AVG_SQ_0D = "0x1.7e34a174c4ccdp-9"


def _two_steps(name, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    ps = [mg.tensor(1.25, dtype=dtype, device=device, requires_grad=True),
          mg.tensor([0.5, -1.5, 2.0], dtype=dtype, device=device, requires_grad=True)]
    opt = getattr(mg.optim, name)(ps, lr=0.01, betas=(mg.tensor(0.9), mg.tensor(0.99)))
    for g0, g1 in ((0.3, [0.3, -0.7, 1.1]), (-0.45, [0.2, 0.6, -1.3])):
        ps[0].grad = mg.tensor(g0, dtype=dtype, device=device)
        ps[1].grad = mg.tensor(g1, dtype=dtype, device=device)
        opt.step()
    return ps, opt


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("name", ["Adam", "NAdam"])
def test_tensor_betas_step_a_parameter_as_pytorchs_bit_for_bit(name, device, dtype):
    ps, opt = _two_steps(name, device, dtype)
    got = [float(x).hex() for p in ps for x in p.numpy().reshape(-1).tolist()]
    assert got == TORCH[(name, str(dtype))]
    assert all(p.dtype == dtype for p in ps)
    if dtype == mg.float64:  # the 0-d parameter's moments stay float64 numbers, not float32 ones
        assert float(opt.state[ps[0]]["exp_avg_sq"].item()).hex() == TORCH_EXP_AVG_SQ_0D


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_adamax_tensor_betas_keep_a_0d_float64_parameters_average_in_float64(device):
    # torch 2.13: Adamax(ps, lr=0.01, betas=(torch.tensor(0.3), torch.tensor(0.99))), the two steps above;
    # the engine's 0-d exp_avg was the float32 number -0x1.020c4a0000000p-2
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    ps = [mg.tensor(1.25, dtype=mg.float64, device=device, requires_grad=True),
          mg.tensor([0.5, -1.5, 2.0], dtype=mg.float64, device=device, requires_grad=True)]
    opt = mg.optim.Adamax(ps, lr=0.01, betas=(mg.tensor(0.3), mg.tensor(0.99)))
    for g0, g1 in ((0.3, [0.3, -0.7, 1.1]), (-0.45, [0.2, 0.6, -1.3])):
        ps[0].grad = mg.tensor(g0, dtype=mg.float64, device=device)
        ps[1].grad = mg.tensor(g1, dtype=mg.float64, device=device)
        opt.step()
    assert float(opt.state[ps[0]]["exp_avg"].item()).hex() == "-0x1.020c4945a1cadp-2"
    assert float(ps[0].item()).hex() == "0x1.3f03f0404d95ap+0"
    assert [float(x).hex() for x in ps[1].numpy().tolist()] == ["0x1.ee1198384768ep-2", "-0x1.7e8c587b787d7p+0",
                                                                "0x1.fee8cb1b09a32p+0"]
