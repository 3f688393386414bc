"""The ``sdpa_kernel`` cases that ``make_torch_sdpa_kernel.py`` asks torch 2.13 and
``tests/test_sdpa_kernel.py`` asks the engine: the backends (an expression of ``B``, the
``SDPBackend`` enum) and a call of ``scaled_dot_product_attention`` inside the block, by name
(``CALLS``: an expression of ``F``, ``lib`` -- torch or minigrad_ckpt -- and ``q``, a (1, 2, 4, 8)
query)."""

CALLS = {
    "plain": "F.scaled_dot_product_attention(q, q, q)",
    "bool-mask": "F.scaled_dot_product_attention(q, q, q, attn_mask=lib.ones(4, 4, dtype=lib.bool, device=q.device))",
    "causal": "F.scaled_dot_product_attention(q, q, q, is_causal=True)",
    "dropout": "F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)",
    "float64": "F.scaled_dot_product_attention(q.double(), q.double(), q.double())",
    "3d": "F.scaled_dot_product_attention(q[0], q[0], q[0])",
    "gqa": "F.scaled_dot_product_attention(q, q[:, :1], q[:, :1], enable_gqa=True)",
    "value-head-dim": "F.scaled_dot_product_attention(q, q, q[..., :4])",
}

BACKENDS = [
    "B.MATH", "B.FLASH_ATTENTION", "B.EFFICIENT_ATTENTION", "B.CUDNN_ATTENTION", "B.OVERRIDEABLE", "B.ERROR",
    "[B.MATH, B.EFFICIENT_ATTENTION]", "[B.EFFICIENT_ATTENTION, B.FLASH_ATTENTION]", "[]", "[1]",
    "[B.MATH, 'x']", "'math'", "(B.MATH,)", "0",
]
