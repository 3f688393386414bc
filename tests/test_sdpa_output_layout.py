"""``scaled_dot_product_attention``'s output is laid out in memory as PyTorch's CPU kernel lays it
out, so the head-merging ``y.transpose(1, 2).view(B, L, H * E)`` of PyTorch's SDPA tutorial (its
``CausalSelfAttention``) works here too.  Found by porting that tutorial: the view raised
"view size is not compatible" because the output was row-major ``(B, H, L, E)``.  The strides are
torch 2.13's (CPU), recorded offline."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


def heads(x, h):
    """``(B, L, H*E)`` split into heads as the tutorial does: ``view(B, -1, H, E).transpose(1, 2)``."""
    b, n, d = x.shape
    return x.view(b, -1, h, d // h).transpose(1, 2)


def test_heads_split_from_a_projection_give_an_output_whose_heads_merge_by_view():
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((2, 5, 48)).astype(np.float32), requires_grad=True)
    q, k, v = (heads(t, 4) for t in x.chunk(3, -1))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert y.stride() == (80, 4, 16, 1)  # torch 2.13: (80, 4, 16, 1)
    merged = y.transpose(1, 2).view(2, -1, 16)
    expected = F.scaled_dot_product_attention(q.contiguous(), k.contiguous(), v.contiguous(), is_causal=True)
    np.testing.assert_allclose(merged.detach().numpy(), expected.transpose(1, 2).reshape(2, 5, 16).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    merged.pow(2).sum().backward()  # the gradient flows through the relaid output
    assert x.grad.shape == (2, 5, 48) and np.isfinite(x.grad.numpy()).all()


@pytest.mark.parametrize("dropout_p", [0.0, 0.5])
def test_a_row_major_query_or_dropout_gives_a_row_major_output(dropout_p):
    rng = np.random.default_rng(1)
    q, k, v = (mg.tensor(rng.standard_normal((2, 4, 5, 4)).astype(np.float32)) for _ in range(3))
    if dropout_p:  # PyTorch computes dropout step by step: row-major even for split heads
        q = heads(mg.tensor(rng.standard_normal((2, 5, 16)).astype(np.float32)), 4)
    y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
    assert y.stride() == (80, 20, 4, 1)  # torch 2.13: (80, 20, 4, 1) in both cases
