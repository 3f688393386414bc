"""``linear`` adds its bias into the product's own memory (one array fewer a call): the same bits as
``x @ w.T + b``, the inputs untouched, on the CPU and the strict device, for 1-, 2- and 3-D inputs, and
a jvp and a second derivative that still see the right values."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" devices)
from minigrad_ckpt.nn import functional as F


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("shape", [(5,), (4, 5), (2, 3, 5)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_linear_is_the_product_plus_the_bias_bit_for_bit(device, shape, dtype):
    rng = np.random.default_rng(1)
    x0, w0, b0 = (rng.standard_normal(s).astype(dtype) for s in (shape, (6, 5), (6,)))
    x, w, b = (mg.tensor(a.copy(), device=device, requires_grad=True) for a in (x0, w0, b0))
    y = F.linear(x, w, b)
    want = np.matmul(x0, w0.T) + b0
    got = y.detach().cpu().numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    for t, a in ((x, x0), (w, w0), (b, b0)):
        np.testing.assert_array_equal(t.detach().cpu().numpy(), a)
    y.sum().backward()
    np.testing.assert_array_equal(b.grad.cpu().numpy(), np.full(6, np.prod(shape[:-1]), dtype=dtype))


def test_linear_jvp_and_second_derivative():
    rng = np.random.default_rng(2)
    x0, w0, b0 = rng.standard_normal((3, 4)), rng.standard_normal((2, 4)), rng.standard_normal(2)
    tx = rng.standard_normal((3, 4))
    out, tangent = mg.func.jvp(lambda x: F.linear(x, mg.tensor(w0), mg.tensor(b0)).tanh(),
                               (mg.tensor(x0),), (mg.tensor(tx),))
    z = x0 @ w0.T + b0
    np.testing.assert_allclose(out.numpy(), np.tanh(z), rtol=1e-15)
    np.testing.assert_allclose(tangent.numpy(), (1 - np.tanh(z) ** 2) * (tx @ w0.T), rtol=1e-13)
    x = mg.tensor(x0, requires_grad=True)
    (g,) = mg.grad(F.linear(x, mg.tensor(w0), mg.tensor(b0)).tanh().sum(), [x], create_graph=True)
    (gg,) = mg.grad(g.sum(), [x])
    t = np.tanh(z)
    np.testing.assert_allclose(gg.numpy(), (-2 * t * (1 - t * t) * w0.sum(1)) @ w0, rtol=1e-12)
