"""Every optimizer steps a 0-d parameter (a learned scalar: a temperature, a scale) as it steps a
one-element one, as PyTorch's do.  Before, Rprop raised ``TypeError: 'numpy.float64' object does not
support item assignment``: NumPy's arithmetic on 0-d arrays gives scalars, and its rule wrote the
sign factors in place (torch 2.13: ``Rprop([torch.tensor(0.5, requires_grad=True)])`` steps,
0.5 -> 0.45 after three steps of gradient ``cos(k + 1)`` at lr 0.1).

The expected numbers are the engine's own steps of a one-element parameter (compared with torch's
in tests/test_optim_added.py); the 0-d value above is torch's.
"""

from __future__ import annotations

import numpy as np
import pytest
from optim_cases import OPTIMIZERS as CASES

import minigrad_ckpt as mg
from minigrad_ckpt import optim
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

OPTIMIZERS = {**CASES, "Adafactor": lambda ps: optim.Adafactor(ps, lr=0.1)}
SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("cpu", mg.complex128), ("strict", mg.float64),
         ("strict-f32", mg.float32)]


def _stepped(name, shape, device, dtype, steps=5):
    p = mg.full(shape, 0.5, dtype=dtype, device=device).requires_grad_()
    opt = OPTIMIZERS[name]([p])
    for k in range(steps):
        def closure(k=k):
            p.grad = mg.full(shape, float(np.cos(k + 1.0)), dtype=dtype, device=device)
            return 1.0 / (k + 1)
        opt.step(closure)
    return p.detach().cpu().numpy().reshape(-1), opt


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("device, dtype", SEAMS, ids=str)
def test_a_0d_parameter_steps_as_a_one_element_one(name, device, dtype):
    if name == "Adafactor" and dtype == mg.complex128:
        pytest.skip("Adafactor refuses complex parameters, as PyTorch's")
    got, opt = _stepped(name, (), device, dtype)
    want, _ = _stepped(name, (1,), device, dtype)
    np.testing.assert_array_equal(got, want)
    assert all(v.shape == () for v in opt.state_dict()["state"][0].values() if isinstance(v, mg.Tensor)
               and name != "LBFGS")


def test_rprop_on_a_0d_parameter_is_torchs():
    got, _ = _stepped("Rprop", (), "cpu", mg.float64, steps=3)
    np.testing.assert_allclose(got, [0.45], rtol=1e-15)
