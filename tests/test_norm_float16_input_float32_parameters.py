"""PyTorch's mixed-precision norms: a float16 input beside float32 parameters and running statistics
(a float32 model fed half activations; PyTorch's test_nn checks BatchNorm, LayerNorm and GroupNorm
this way) is normalized in float32 and rounded once to float16, the statistics updated in float32.
The engine refused it as a dtype mismatch.  The reference is the same layer run on the input cast to
float32 (exact), its output rounded to float16: torch 2.13 agreed bitwise on the outputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

LAYERS = {
    "BatchNorm2d": lambda: nn.BatchNorm2d(4),
    "LayerNorm": lambda: nn.LayerNorm([3, 3]),
    "GroupNorm": lambda: nn.GroupNorm(2, 4),
    "InstanceNorm2d": lambda: nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
    "RMSNorm": lambda: nn.RMSNorm(3),
}


def _layer(name: str) -> nn.Module:
    mg.manual_seed(0)
    layer = LAYERS[name]()
    rng = np.random.default_rng(1)
    with mg.no_grad():
        for p in layer.parameters():
            p.copy_(mg.tensor(rng.random(p.shape).astype("float32") + 0.5))
    return layer


@pytest.mark.parametrize("name", sorted(LAYERS))
@pytest.mark.parametrize("training", [True, False])
def test_float16_input_to_a_float32_norm_is_normalized_in_float32(name, training):
    rng = np.random.default_rng(2)
    x16 = (rng.standard_normal((2, 4, 3, 3)) * 3 + 1).astype("float16")
    g16 = rng.standard_normal((2, 4, 3, 3)).astype("float16")
    half, wide = _layer(name).train(training), _layer(name).train(training)
    x, xr = mg.tensor(x16, requires_grad=True), mg.tensor(x16.astype("float32"), requires_grad=True)
    y, yr = half(x), wide(xr)
    y.backward(mg.tensor(g16))
    yr.backward(mg.tensor(g16.astype("float32")))
    assert y.dtype == mg.float16 and x.grad.dtype == mg.float16
    np.testing.assert_array_equal(y.numpy(), yr.numpy().astype("float16"))
    np.testing.assert_array_equal(x.grad.numpy(), xr.grad.numpy().astype("float16"))
    for (key, a), b in zip(half.state_dict().items(), wide.state_dict().values()):
        assert a.dtype == b.dtype, key  # parameters and statistics stay float32
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=key)
    for p, q in zip(half.parameters(), wide.parameters()):
        assert p.grad.dtype == mg.float32
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


@pytest.mark.parametrize("fn", ["batch_norm", "instance_norm"])
def test_functional_float32_running_statistics_of_a_float16_input(fn):
    x = mg.tensor(np.arange(24, dtype="float16").reshape(2, 3, 4))
    mean, var = mg.zeros(3), mg.ones(3)
    getattr(nn.functional, fn)(x, mean, var, None, None, True, 0.5)
    flat = np.arange(24.0).reshape(2, 3, 4)
    if fn == "batch_norm":
        batch_mean, batch_var = flat.mean((0, 2)), flat.var((0, 2), ddof=1)
    else:
        batch_mean, batch_var = flat.mean(2).mean(0), flat.var(2, ddof=1).mean(0)
    assert mean.dtype == var.dtype == mg.float32
    np.testing.assert_allclose(mean.numpy(), 0.5 * batch_mean, rtol=1e-6)
    np.testing.assert_allclose(var.numpy(), 0.5 + 0.5 * batch_var, rtol=1e-6)


def test_half_beside_float32_and_float16_parameters_is_still_refused():
    # PyTorch's mixed path needs every parameter float32 (its "expected ... same dtype" otherwise)
    x = mg.ones(2, 3, 4, dtype="float16")
    with pytest.raises(RuntimeError, match="float16"):
        nn.functional.batch_norm(x, mg.zeros(3), mg.ones(3), mg.ones(3, dtype="float16"), None, True)


@pytest.mark.parametrize("make", [lambda: nn.LayerNorm(4), lambda: nn.BatchNorm1d(4)])
def test_float64_input_to_a_float32_norm_is_still_refused(make):
    with pytest.raises(RuntimeError, match="float64 input"):
        make()(mg.ones(2, 4, dtype="float64"))
