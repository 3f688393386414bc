"""PyTorch's ``mg.nn.attention.SDPBackend`` and ``sdpa_kernel(backends)`` (an AttributeError before):
the engine runs its one (math) implementation, and refuses, as PyTorch's CPU build, a call that no
enabled backend takes; bad arguments are PyTorch's AssertionError on entering the block.

Expected: torch 2.13 on the same blocks and calls (``tests/data/make_torch_sdpa_kernel.py``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F  # noqa: N812
from minigrad_ckpt.nn.attention import SDPBackend, sdpa_kernel
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from sdpa_kernel_cases import BACKENDS, CALLS  # noqa: E402

TORCH = json.loads((DATA / "torch_sdpa_kernel.json").read_text())
ERRORS = {"RuntimeError": RuntimeError, "AssertionError": AssertionError}


@pytest.mark.parametrize("backends", BACKENDS)
@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("strict", mg.float32)])
def test_sdpa_kernel_answers_as_torch(backends, call, device, dtype):
    want = TORCH[f"{backends} | {call}"]
    scope = {"B": SDPBackend, "F": F, "lib": mg, "q": mg.randn(1, 2, 4, 8, dtype=dtype, device=device)}
    if want["answer"] == "error":
        with pytest.raises(ERRORS[want["error"]]) as info, sdpa_kernel(eval(backends, scope)):
            eval(CALLS[call], scope)
        assert str(info.value) == want["message"]
        return
    with sdpa_kernel(eval(backends, scope)) as entered:
        out = eval(CALLS[call], scope)
    assert entered == want["entered"] and np.isfinite(out.numpy()).all()


def test_the_block_restores_the_backends_and_changes_no_numbers():
    q = mg.randn(1, 2, 4, 8, requires_grad=True)
    before = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION], set_priority=True):
            inside = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        with pytest.raises(RuntimeError, match="No viable backend"):
            F.scaled_dot_product_attention(q, q, q)
    assert np.array_equal(inside.numpy(), before.numpy())
    inside.sum().backward()  # the gradient flows as outside the block
    assert q.grad is not None and F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).shape == (1, 2, 4, 8)


def test_sdpbackend_is_torchs_enum():
    # torch: repr(SDPBackend.MATH) == '<SDPBackend.MATH: 0>', SDPBackend(1) is FLASH_ATTENTION
    assert repr(SDPBackend.MATH) == "<SDPBackend.MATH: 0>" and str(SDPBackend.MATH) == "SDPBackend.MATH"
    assert SDPBackend(1) is SDPBackend.FLASH_ATTENTION and SDPBackend.ERROR.value == -1
    assert list(SDPBackend.__members__) == ["ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION",
                                            "CUDNN_ATTENTION", "OVERRIDEABLE"]


@pytest.mark.parametrize("backend, need_weights, dropout, refused", [
    (SDPBackend.EFFICIENT_ATTENTION, True, 0.0, None), (SDPBackend.EFFICIENT_ATTENTION, True, 0.5, None),
    (SDPBackend.EFFICIENT_ATTENTION, False, 0.0, "No viable backend"),
    (SDPBackend.EFFICIENT_ATTENTION, False, 0.5, "No viable backend"),
    (SDPBackend.FLASH_ATTENTION, False, 0.0, None), (SDPBackend.FLASH_ATTENTION, False, 0.5, "No available kernel"),
])
def test_multihead_attention_without_weights_is_the_kernels_choice(backend, need_weights, dropout, refused):
    # torch 2.13 CPU: nn.MultiheadAttention(8, 2, dropout=p)(x, x, x, need_weights=...) inside sdpa_kernel(backend)
    # runs its math with the weights, scaled_dot_product_attention without them
    m, x = mg.nn.MultiheadAttention(8, 2, dropout=dropout), mg.randn(3, 2, 8)
    with sdpa_kernel(backend):
        if refused:
            with pytest.raises(RuntimeError, match=refused):
                m(x, x, x, need_weights=need_weights)
        else:
            assert m(x, x, x, need_weights=need_weights)[0].shape == (3, 2, 8)
