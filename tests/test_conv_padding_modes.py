"""Conv1d/Conv2d's padding_mode ('reflect', 'replicate', 'circular'): PyTorch's answers.

The fixture is made offline by ``tests/data/make_torch_conv_padding_modes.py``: outputs and the
gradients of input, weight and bias, for numeric and ``'same'`` padding (even kernels, dilation).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import gradcheck, gradgradcheck

FIXTURE = np.load(Path(__file__).parent / "data" / "torch_conv_padding_modes.npz")
CASES = sorted({k.split(".")[0] for k in FIXTURE.files})
SPECS = {  # name -> (dims, kernel, padding, dilation, stride), as the fixture script builds them
    "2d_p1": (2, (3, 3), (1, 1), (1, 1), (1, 1)),
    "2d_p12": (2, (3, 2), (1, 2), (1, 1), (2, 1)),
    "2d_same_even": (2, (2, 3), "same", (1, 1), (1, 1)),
    "2d_same_dil": (2, (3, 2), "same", (2, 1), (1, 1)),
    "1d_p2": (1, (3,), (2,), (1,), (1,)),
    "1d_same_even": (1, (4,), "same", (1,), (1,)),
}


def _layer(key: str) -> nn.Module:
    mode, name = key.split("_", 1)
    dims, kernel, padding, dilation, stride = SPECS[name]
    if dims == 2:
        layer = nn.Conv2d(3, 2, kernel, stride=stride, padding=padding, dilation=dilation, padding_mode=mode,
                          dtype="float64")
    else:
        layer = nn.Conv1d(3, 2, kernel[0], stride=stride[0], padding=padding if padding == "same" else padding[0],
                          dilation=dilation[0], padding_mode=mode, dtype="float64")
    layer.weight.data.copy_(mg.tensor(FIXTURE[f"{key}.w"]))
    layer.bias.data.copy_(mg.tensor(FIXTURE[f"{key}.b"]))
    return layer


@pytest.mark.parametrize("key", CASES)
def test_padding_modes_give_pytorchs_values_and_gradients(key):
    layer = _layer(key)
    x = mg.tensor(FIXTURE[f"{key}.x"], requires_grad=True)
    y = layer(x)
    np.testing.assert_allclose(y.numpy(), FIXTURE[f"{key}.y"], rtol=1e-12, atol=1e-12)
    (y * mg.tensor(FIXTURE[f"{key}.up"])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), FIXTURE[f"{key}.gx"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.numpy(), FIXTURE[f"{key}.gw"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.bias.grad.numpy(), FIXTURE[f"{key}.gb"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_in_both_modes_and_second_order(mode):
    layer = nn.Conv2d(2, 1, (2, 3), padding="same", padding_mode=mode, dtype="float64")
    x = mg.tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 5)), requires_grad=True)
    assert gradcheck(lambda a: layer(a).tanh(), (x,), modes=("rev", "fwd"))
    assert gradgradcheck(lambda a: layer(a).tanh(), (x,))


def test_a_bad_padding_mode_and_strided_same_are_refused():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv1d(1, 1, 3, padding_mode="zero")
    with pytest.raises(ValueError, match="strided"):  # when built, as PyTorch's constructor
        nn.Conv2d(1, 1, 3, stride=2, padding="same", padding_mode="reflect")
    assert "padding_mode=circular" in repr(nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular"))  # torch's


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_modes_at_the_seams(mode):
    # checkpointed: the same gradients bit for bit; on the strict float32 stand-in device: the CPU's
    # float32 values; forward mode through mg.func.jvp equals the reverse-mode directional derivative
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt import checkpoint as ck

    rng = np.random.default_rng(2)
    mg.manual_seed(0)
    layer = nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode=mode)
    xs = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    grads = []
    for checkpointed in (False, True):
        x = mg.tensor(xs, requires_grad=True)
        layer.zero_grad()
        y = ck.checkpoint(layer, x) if checkpointed else layer(x)
        (y.tanh()).sum().backward()
        grads.append((x.grad.numpy().copy(), layer.weight.grad.numpy().copy()))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)
    strict = mg.device("strict-f32")
    on_strict = layer.to(strict)(mg.tensor(xs, device=strict))
    np.testing.assert_allclose(on_strict.numpy(), layer.to("cpu")(mg.tensor(xs)).numpy(), rtol=1e-6, atol=1e-6)
    v = rng.standard_normal(xs.shape).astype(np.float32)
    _, tangent = mg.func.jvp(lambda a: layer(a).sum(), (mg.tensor(xs),), (mg.tensor(v),))
    np.testing.assert_allclose(float(tangent.numpy()), float(np.sum(_grad_of_sum(layer, xs) * v)), rtol=1e-4)


def _grad_of_sum(layer, xs):
    x = mg.tensor(xs, requires_grad=True)
    layer(x).sum().backward()
    return x.grad.numpy()
