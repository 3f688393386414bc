"""``scaled_dot_product_attention`` at the edges of its inputs, as PyTorch 2.13: integer inputs are
refused (PyTorch: "expected scalar type Float but found Long"; the engine computed them in float64),
and a head dimension of 0 gives every key the same weight (each score an empty sum, 0; the engine
divided by ``sqrt(0)``, a ZeroDivisionError)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_inputs_are_refused_as_pytorch(dtype):
    q = mg.ones(2, 3, 4, dtype=dtype)
    with pytest.raises(RuntimeError, match="floating-point"):
        F.scaled_dot_product_attention(q, q, q)
    with pytest.raises(TypeError):  # what is wrong is the dtype
        F.scaled_dot_product_attention(q, q, q)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
def test_head_dim_zero_weighs_every_key_alike_as_pytorch(dtype, device, causal):
    """PyTorch's answer for queries and keys of 0 features: the mean of the values (of the keys each
    query may see, with ``is_causal``), and the values' gradient spread evenly over them."""
    rng = np.random.default_rng(0)
    q, k = mg.zeros(2, 3, 0, dtype=dtype, device=device), mg.zeros(2, 4, 0, dtype=dtype, device=device)
    v = mg.tensor(rng.standard_normal((2, 4, 5)), dtype=dtype, device=device, requires_grad=True)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert out.shape == (2, 3, 5) and out.dtype == np.dtype(dtype)
    values = v.detach().numpy().astype(np.float64)
    if causal:  # query i sees keys 0..i
        want = np.stack([values[:, :i + 1].mean(axis=1) for i in range(3)], axis=1)
    else:
        want = np.broadcast_to(values.mean(axis=1, keepdims=True), (2, 3, 5))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    out.sum().backward()
    if not causal:
        np.testing.assert_allclose(v.grad.numpy(), np.full((2, 4, 5), 3 / 4), rtol=1e-6)
