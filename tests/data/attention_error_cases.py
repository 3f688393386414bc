"""Attention / padding calls whose inputs do not fit, written once against a namespace argument
(``torch`` or ``minigrad_ckpt``): make_attention_error_types.py records what torch raises for each,
tests/test_attention_error_types.py checks the engine raises an instance of it."""

# name: (function, [tensor shapes], keywords; "mask" in keywords is a zeros float mask of that shape,
# "dtypes" the tensors' dtype names, float32 when absent)
CASES = {
    "sdpa_head_dims_differ": ("sdpa", [[2, 3, 4], [2, 5, 3], [2, 5, 4]], {}),
    "sdpa_key_value_lengths_differ": ("sdpa", [[2, 3, 4], [2, 5, 4], [2, 6, 4]], {}),
    "sdpa_mask_and_is_causal": ("sdpa", [[2, 3, 4], [2, 5, 4], [2, 5, 4]], {"mask": [3, 5], "is_causal": True}),
    "sdpa_gqa_heads_not_a_multiple": ("sdpa", [[1, 3, 3, 4], [1, 2, 5, 4], [1, 2, 5, 4]], {"enable_gqa": True}),
    "sdpa_dtypes_differ": ("sdpa", [[2, 3, 4], [2, 5, 4], [2, 5, 4]], {"dtypes": ["float32", "float64", "float32"]}),
    "sdpa_query_one_dim": ("sdpa", [[4], [5, 4], [5, 4]], {}),
    "sdpa_key_one_dim": ("sdpa", [[3, 4], [4], [5, 4]], {}),
    "sdpa_mask_of_more_dims_than_the_scores": ("sdpa", [[2, 3, 4], [2, 5, 4], [2, 5, 4]], {"mask": [2, 2, 3, 5]}),
    "sdpa_mask_of_a_larger_batch": ("sdpa", [[1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 5, 4]], {"mask": [3, 2, 3, 5]}),
    "sdpa_mask_of_another_length": ("sdpa", [[2, 3, 4], [2, 5, 4], [2, 5, 4]], {"mask": [3, 4]}),
    "mha_2d_mask_shape": ("mha", [[3, 2, 8], [4, 2, 8], [4, 2, 8]], {"mask": [3, 5]}),
    "mha_3d_mask_shape": ("mha", [[3, 2, 8], [4, 2, 8], [4, 2, 8]], {"mask": [2, 3, 4]}),
    "pad_sequence_padding_side": ("pad_sequence", [[2, 3], [1, 3]], {"padding_side": "up"}),
}


def call(lib, fn: str, shapes: list, kw: dict) -> None:
    """Run one case with ``lib`` (``torch`` or ``minigrad_ckpt``)."""
    kw = dict(kw)
    dtypes = kw.pop("dtypes", ["float32"] * len(shapes))
    xs = [lib.zeros(tuple(s), dtype=getattr(lib, d)) for s, d in zip(shapes, dtypes)]
    if "mask" in kw:
        kw["attn_mask"] = lib.zeros(tuple(kw.pop("mask")))
    if fn == "sdpa":
        lib.nn.functional.scaled_dot_product_attention(*xs, **kw)
    elif fn == "mha":
        lib.nn.MultiheadAttention(8, 2)(*xs, **kw)
    else:
        lib.nn.utils.rnn.pad_sequence(xs, **kw)
