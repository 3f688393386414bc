"""``F.hardsigmoid`` is PyTorch's to the bit: the forward is its kernel's ``min(max(x + 3, 0), 6) / 6`` (the
engine's ``x * (1 / 6) + 0.5`` was an ulp off: float32 ``hardsigmoid(2.56169056892395)`` 0.9269484281539917,
torch 2.13's 0.9269483685493469), and the derivative is ``hardsigmoid_backward``'s float32 constant
``1.0f / 6.0f`` in every dtype: a float64 gradient is 0.1666666716337204, as torch's (the engine's exact
1/6 was 3e-8 off, beyond the 1e-10 a float64 port of MobileNetV3 is compared to).  Values from torch 2.13."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

TORCH_SIXTH = 0.1666666716337204  # float(torch.float32(1) / 6): hardsigmoid_backward's one_sixth


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_the_forward_is_pytorchs_division(device):
    x = mg.tensor(np.array([2.56169056892395, -2.1426775455474854, -2.814940929412842], dtype=np.float32),
                  device=device)  # (float32 values, exactly)
    np.testing.assert_array_equal(F.hardsigmoid(x).cpu().numpy(), np.array(
        [0.9269483685493469, 0.14288707077503204, 0.030843177810311317], dtype=np.float32))
    y = mg.tensor([-4.0, -3.0, 0.0, 3.0, 4.0, float("nan")], dtype=mg.float64, device=device)
    np.testing.assert_array_equal(nn.Hardsigmoid()(y).cpu().numpy(), [0.0, 0.0, 0.5, 1.0, 1.0, np.nan])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_the_derivative_is_pytorchs_float32_sixth_in_every_dtype(device, dtype):
    x = mg.tensor([-3.0, -1.0, 0.5, 3.0, 5.0, float("nan")], dtype=dtype, device=device, requires_grad=True)
    want = np.array([0, TORCH_SIXTH, TORCH_SIXTH, 0, 0, 0], dtype=np.float64).astype(x.dtype)
    g, = mg.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().cpu().numpy(), want)
    assert g.requires_grad  # on the input's graph, as PyTorch's hardsigmoid_backward(grad, self)
    _, t = mg.func.jvp(F.hardsigmoid, (x.detach(),), (mg.ones(6, dtype=dtype, device=device),))
    np.testing.assert_array_equal(t.cpu().numpy(), want)
    b = mg.func.vmap(mg.func.grad(lambda v: F.hardsigmoid(v).sum()))(x.detach().reshape(2, 3))
    np.testing.assert_array_equal(b.cpu().numpy().ravel(), want)


def test_in_place_and_under_a_checkpoint():
    x = mg.tensor([-1.0, 0.5, 2.0], dtype=mg.float64, requires_grad=True)
    y = x * 1
    F.hardsigmoid(y, inplace=True).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [TORCH_SIXTH] * 3)
    x.grad = None
    mg.checkpoint.checkpoint(F.hardsigmoid, x, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [TORCH_SIXTH] * 3)
