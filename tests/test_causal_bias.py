"""PyTorch's ``mg.nn.attention.bias.causal_upper_left`` and ``causal_lower_right`` (absent before:
``mg.nn.attention`` was a module, not a package): the mask each stands for and attention with it as
``attn_mask``.

Expected: torch 2.13's masks and outputs on the same inputs (``tests/data/make_torch_causal_bias.py``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F  # noqa: N812
from minigrad_ckpt.nn.attention import bias
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

CASES = json.loads((Path(__file__).parent / "data" / "torch_causal_bias.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[f"{c['variant']}{c['size']}" for c in CASES])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict-f32", mg.float32)])
def test_bias_masks_and_attends_as_torch(case, device, dtype):
    b = getattr(bias, case["variant"])(*case["size"])
    assert b._materialize().tolist() == case["mask"] and b.shape == tuple(case["size"])
    q, k, v = (mg.tensor(case[n], dtype=dtype, device=device, requires_grad=True) for n in "qkv")
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=b)
    np.testing.assert_allclose(out.numpy(), case["out"], rtol=1e-5 if dtype == mg.float32 else 1e-12, atol=1e-6)
    out.sum().backward()
    assert all(np.isfinite(t.grad.numpy()).all() for t in (q, k, v))


def test_sizes_and_variants_are_torchs():
    # torch: causal_lower_right(4) -> AssertionError('causal_lower_right only supports 2D tensors')
    with pytest.raises(AssertionError, match="causal_lower_right only supports 2D tensors"):
        bias.causal_lower_right(4)
    assert int(bias.CausalVariant.UPPER_LEFT) == 1 and int(bias.CausalVariant.LOWER_RIGHT) == 2
    assert bias.causal_upper_left(2, 2).variant is bias.CausalVariant.UPPER_LEFT


def test_a_causal_bias_beside_is_causal_is_refused_in_pytorchs_words():
    """PyTorch's ValueError (its TestAttnBias.test_is_causal_and_mask_fails matches the words); the
    engine refused it as any mask beside is_causal=True, in other words."""
    q = mg.rand(2, 2, 8, 4)
    with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=bias.causal_upper_left(8, 8), is_causal=True)
