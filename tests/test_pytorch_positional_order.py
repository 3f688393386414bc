"""Where PyTorch's positional arguments mean something other than NumPy's (or this engine's
old) order: ``F.scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal)`` (with
``enable_gqa``), and a bool third or fourth argument read as PyTorch's ``keepdim`` by
``nanmean``, ``quantile``/``nanquantile`` and ``special.logsumexp`` (NumPy's argument there is
a dtype, ``out`` or SciPy's weights, which a bool never is).  Expected values are PyTorch
2.13's, made offline with the expressions in the comments."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck

F = mg.nn.functional

# q, k, v: torch.tensor(...) of these; out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
# out.sum().backward() gives k.grad
Q = [[[[-0.8, -1.32], [-0.25, 0.42]], [[1.14, 0.11], [-0.55, -0.78]], [[0.75, 1.63], [0.27, -1.23]],
      [[-0.96, 1.6], [0.2, -1.73]]]]
K = [[[[-0.08, -1.16], [-0.63, -0.49], [-0.71, 0.55]], [[-0.06, -0.59], [0.41, 0.83], [-1.64, -0.26]]]]
V = [[[[-0.98, -0.17], [-1.29, 0.02], [-0.04, -0.3]], [[-1.05, -0.4], [-1.09, -1.36], [0.22, -1.11]]]]
OUT = [[[[-0.9573761885957813, -0.1199289582310422], [-0.6637033821207472, -0.16666090635064937]],
        [[-0.7953127693224423, -0.15344953588707555], [-0.8940196695726277, -0.12838402232509324]],
        [[-0.9843505879746843, -1.2240524221198614], [-0.6804656381149193, -0.7734264580039393]],
        [[-0.45841112566105235, -1.132090562823351], [-0.6605053951639922, -0.7250583492224603]]]]
K_GRAD = [[[[-0.013739601372213837, 0.03428473144262383], [0.02522046829706308, 0.06576786885258845],
            [-0.01148086692484935, -0.10005260029521254]],
           [[0.03325074839645761, 0.16815639529761484], [0.0869433902128867, -0.33110372222715156],
            [-0.12019413860934453, 0.1629473269295371]]]]


def _qkv(dtype="float64"):
    return [mg.tensor(a, dtype=dtype, requires_grad=True) for a in (Q, K, V)]


def test_grouped_query_attention_is_pytorchs():
    q, k, v = _qkv()
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    np.testing.assert_allclose(out.numpy(), OUT, rtol=1e-13)
    out.sum().backward()
    np.testing.assert_allclose(k.grad.numpy(), K_GRAD, rtol=1e-12, atol=1e-15)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), tuple(_qkv()),
                     modes=("rev", "fwd"))
    q32, k32, v32 = _qkv("float32")
    np.testing.assert_allclose(F.scaled_dot_product_attention(q32, k32, v32, enable_gqa=True).numpy(), OUT, rtol=1e-5)
    with pytest.raises(ValueError, match="enable_gqa needs the query's heads"):
        F.scaled_dot_product_attention(q[:, :3], k, v, enable_gqa=True)


def test_dropout_p_then_is_causal_positionally():
    q = mg.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 3)))
    causal = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q, None, 0.0, True).numpy(), causal.numpy())
    plain = F.scaled_dot_product_attention(q, q, q)
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q, None, 0.0).numpy(), plain.numpy())
    with pytest.raises(TypeError):
        F.scaled_dot_product_attention(q, q, q, None, 0.0, False, 0.5)  # scale is keyword-only, as torch's


def test_a_bool_keepdim_in_numpys_positions():
    x = mg.tensor([[1.0, np.nan], [3.0, 4.0]])
    # torch.nanmean(x, 0, True) -> [[2., 4.]]
    np.testing.assert_array_equal(mg.nanmean(x, 0, True).numpy(), [[2.0, 4.0]])
    y = mg.tensor([[1.0, 2.0], [3.0, 5.0]])
    # torch.quantile(y, 0.5, 0, True) -> [[2., 3.5]]
    np.testing.assert_array_equal(mg.quantile(y, 0.5, 0, True).numpy(), [[2.0, 3.5]])
    assert mg.nanquantile(y, 0.5, 1, True).shape == (2, 1)
    # torch.special.logsumexp(tensor([[0., 1.], [2., 3.]]), 0, True) -> [[2.1269281, 3.1269281]]
    np.testing.assert_allclose(mg.special.logsumexp(mg.tensor([[0.0, 1.0], [2.0, 3.0]]), 0, True).numpy(),
                               [[2.1269280910491943, 3.1269280910491943]], rtol=1e-6)
    # NumPy's positional meanings still hold where they are not bools
    assert mg.nanmean(x, 0, "float64").dtype == mg.float64
    np.testing.assert_allclose(mg.special.logsumexp(mg.tensor([0.0, 0.0]), 0, mg.tensor([1.0, 3.0])).item(),
                               np.log(4.0), rtol=1e-6)
