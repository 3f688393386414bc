"""``nn.MultiheadAttention`` and ``F.multi_head_attention_forward`` refuse what PyTorch refuses, with
PyTorch's ``AssertionError`` and words (PyTorch's own tests, test/nn/test_multihead_attention.py,
catch ``AssertionError`` and match these messages); the engine raised ``ValueError`` or nothing.
The error is a ``ValueError`` still (what the engine raised before).  Found running PyTorch's MHA
tests against the engine.  The messages are PyTorch 2.13's, pasted as literals."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional


def _mha(**kw):
    return mg.nn.MultiheadAttention(4, 4, **kw)


BATCHED, UNBATCHED = (4, 4, 4), (4, 4)

CASES = {  # name: (query, key, value shapes, key_padding_mask shape, attn_mask shape, PyTorch's message)
    "batched_key_2d": (BATCHED, (4, 4), BATCHED, None, None,
                       "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 3-D tensors "
                       "respectively"),
    "batched_value_2d": (BATCHED, BATCHED, (4, 4), None, None,
                         "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 3-D and 2-D "
                         "tensors respectively"),
    "batched_kpm_1d": (BATCHED, BATCHED, BATCHED, (4,), None,
                       "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found 1-D "
                       "tensor instead"),
    "batched_attn_mask_1d": (BATCHED, BATCHED, BATCHED, None, (4,),
                             "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 1-D "
                             "tensor instead"),
    "unbatched_key_3d": (UNBATCHED, BATCHED, UNBATCHED, None, None,
                         "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found 3-D and 2-D "
                         "tensors respectively"),
    "unbatched_value_3d": (UNBATCHED, UNBATCHED, BATCHED, None, None,
                           "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found 2-D and 3-D "
                           "tensors respectively"),
    "unbatched_kpm_2d": (UNBATCHED, UNBATCHED, UNBATCHED, (1, 8), None,
                         "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found 2-D "
                         "tensor instead"),
    "unbatched_attn_mask_1d": (UNBATCHED, UNBATCHED, UNBATCHED, None, (4,),
                               "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                               "1-D tensor instead"),
    "unbatched_attn_mask_3d_shape": (UNBATCHED, UNBATCHED, UNBATCHED, None, (5, 4, 4),
                                     "Expected `attn_mask` shape to be (4, 4, 4) but got "),
    "query_1d": ((4,), (4,), (4,), None, None,
                 "query should be unbatched 2D or batched 3D tensor but received 1-D query tensor"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("grad", [True, False])
def test_shape_refusal_is_pytorchs_assertion(name, grad):
    q, k, v, kpm, am, message = CASES[name]
    layer = _mha() if grad else _mha().eval()
    kw = {}
    if kpm is not None:
        kw["key_padding_mask"] = mg.zeros(kpm, dtype=mg.bool)
    if am is not None:
        kw["attn_mask"] = mg.zeros(am, dtype=mg.bool)
    with mg.set_grad_enabled(grad), pytest.raises(AssertionError, match=re.escape(message)) as info:
        layer(mg.zeros(q), mg.zeros(k), mg.zeros(v), **kw)
    assert isinstance(info.value, ValueError)  # what the engine raised before, still caught


def _forward(query, bias_kv=False, **kw):
    """F.multi_head_attention_forward with a (4 wide, 2 heads) layer's parameters, time-first."""
    layer = mg.nn.MultiheadAttention(4, 2, add_bias_kv=bias_kv)
    return F.multi_head_attention_forward(
        query, query, query, 4, 2, layer.in_proj_weight, layer.in_proj_bias, layer.bias_k, layer.bias_v, False, 0.0,
        layer.out_proj.weight, layer.out_proj.bias, **kw)


def test_static_key_beside_bias_k_is_refused():
    """bias_k is appended to the projected keys, which static_k replaces: the engine dropped bias_k
    silently and answered; PyTorch asserts."""
    q = mg.randn(3, 2, 4)
    with pytest.raises(AssertionError, match=re.escape("bias cannot be added to static key.")):
        _forward(q, bias_kv=True, static_k=mg.randn(4, 3, 2))
    with pytest.raises(AssertionError, match=re.escape("bias cannot be added to static value.")):
        _forward(q, bias_kv=True, static_v=mg.randn(4, 3, 2))


@pytest.mark.parametrize("which", ["static_k", "static_v"])
@pytest.mark.parametrize("shape,message", [((3, 3, 2), "size(0) of 4, but got 3"),
                                           ((4, 3, 3), "size(2) of 2, but got 3")])
def test_static_key_value_of_another_shape_is_refused(which, shape, message):
    q = mg.randn(3, 2, 4)
    good = {"static_k": mg.randn(4, 3, 2), "static_v": mg.randn(4, 3, 2)}
    good[which] = mg.randn(*shape)
    with pytest.raises(AssertionError, match=re.escape(f"expecting {which}.{message}")):
        _forward(q, **good)


def test_static_key_value_are_used():
    """static_k/static_v of the right shape replace the projected keys and values (the check above
    refuses nothing that fits): attention over constant keys gives uniform weights."""
    q = mg.randn(3, 2, 4)
    _, w = _forward(q, static_k=mg.zeros(4, 5, 2), static_v=mg.randn(4, 5, 2))
    np.testing.assert_allclose(w.numpy(), np.full((2, 3, 5), 0.2), rtol=1e-6)


@pytest.mark.parametrize("kw,message", [
    (dict(embed_dim=6, num_heads=4), "embed_dim must be divisible by num_heads"),
])
def test_constructor_assertion(kw, message):
    with pytest.raises(AssertionError, match=message):
        mg.nn.MultiheadAttention(**kw)


@pytest.mark.parametrize("embed_dim,num_heads", [(0, 2), (4, 0), (-4, 2)])
def test_constructor_refuses_non_positive_sizes(embed_dim, num_heads):
    """PyTorch's ValueError; the engine divided by zero (ZeroDivisionError) or made a layer."""
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        mg.nn.MultiheadAttention(embed_dim, num_heads)


def test_functional_embed_dim_and_parameters_assertions():
    q = mg.randn(3, 2, 4)
    layer = mg.nn.MultiheadAttention(4, 2)
    args = (layer.in_proj_weight, layer.in_proj_bias, None, None, False, 0.0, layer.out_proj.weight,
            layer.out_proj.bias)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6, but got 4"):
        F.multi_head_attention_forward(q, q, q, 6, 2, *args)
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        F.multi_head_attention_forward(q, q, q, 4, 3, *args)
    with pytest.raises(AssertionError, match=r"key shape .*5, 2, 4.* does not match value shape .*6, 2, 4"):
        F.multi_head_attention_forward(q, mg.randn(5, 2, 4), mg.randn(6, 2, 4), 4, 2, *args)
    with pytest.raises(AssertionError, match="use_separate_proj_weight is False but in_proj_weight is None"):
        F.multi_head_attention_forward(q, q, q, 4, 2, None, *args[1:])
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        F.multi_head_attention_forward(q, q, q, 4, 2, args[0], args[1], mg.zeros(1, 1, 4), None, *args[4:])


WIDTHS = {  # name: (layer keywords, query, key, value shapes, key_padding_mask shape, PyTorch's type and words)
    "query_width": ({}, (3, 2, 6), (4, 2, 8), (4, 2, 8), None,
                    AssertionError, "was expecting embedding dimension of 8, but got 6"),
    "separate_key_width": (dict(kdim=6, vdim=6), (3, 2, 8), (4, 2, 5), (4, 2, 6), None,
                           AssertionError, "expecting key weights shape of (8, 5), but got (8, 6)"),
    "separate_value_width": (dict(kdim=6, vdim=6), (3, 2, 8), (4, 2, 6), (4, 2, 5), None,
                             AssertionError, "expecting value weights shape of (8, 5), but got (8, 6)"),
    "packed_key_width": ({}, (3, 2, 8), (4, 2, 6), (4, 2, 6), None, RuntimeError, ""),  # PyTorch's product fails
    "key_batch": ({}, (3, 2, 8), (4, 3, 8), (4, 3, 8), None, RuntimeError, ""),  # PyTorch's reshape fails
    "key_padding_mask_length": ({}, (3, 2, 8), (4, 2, 8), (4, 2, 8), (2, 5),
                                AssertionError, "Expected key_padded_mask.shape[1] to be 4, but got 5"),
    "key_padding_mask_batch": ({}, (3, 2, 8), (4, 2, 8), (4, 2, 8), (3, 4),
                               AssertionError, "Expected key_padded_mask.shape[0] to be 2, but got 3"),
}


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_widths_that_do_not_fit_are_refused_as_pytorch_refuses_them(name):
    """The layer's own checks raised ValueError, which a PyTorch handler does not catch."""
    kw, q, k, v, kpm, expected, message = WIDTHS[name]
    layer = mg.nn.MultiheadAttention(8, 2, **kw)
    mask = {} if kpm is None else {"key_padding_mask": mg.zeros(kpm, dtype=mg.bool)}
    with pytest.raises(expected, match=re.escape(message)) as info:
        layer(mg.zeros(q), mg.zeros(k), mg.zeros(v), **mask)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("src,tgt,message", [((3, 2, 8), (4, 3, 8), "the batch number of src and tgt must be equal"),
                                             ((3, 2, 8), (4, 2, 6), "the feature number of src and tgt must be equal")])
def test_transformer_refuses_src_and_tgt_that_differ_with_pytorchs_runtime_error(src, tgt, message):
    model = mg.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match=message) as info:
        model(mg.zeros(src), mg.zeros(tgt))
    assert isinstance(info.value, ValueError)


def test_under_vmap_each_example_is_checked_as_pytorch_checks_it():
    """vmap hands the layer one example at a time: a (4, 8) query beside a 3-D key is the unbatched
    case's refusal, and per-example masks that fit are taken (the same numbers as the batched call)."""
    layer = mg.nn.MultiheadAttention(8, 2, batch_first=True)
    with pytest.raises(AssertionError, match="For unbatched \\(2-D\\) `query`, expected `key` and `value` to be 2-D"):
        mg.func.vmap(lambda q: layer(q, mg.zeros(3, 6, 8), mg.zeros(3, 6, 8)))(mg.zeros(2, 4, 8))
    q, kv = mg.randn(3, 4, 8), mg.randn(3, 6, 8)
    padding = mg.tensor(np.array([[False] * 6, [False] * 4 + [True] * 2, [True] + [False] * 5]))
    batched = layer(q, kv, kv, key_padding_mask=padding)[0].detach().numpy()
    mapped = mg.func.vmap(lambda a, b, p: layer(a, b, b, key_padding_mask=p)[0])(q, kv, padding).numpy()
    np.testing.assert_allclose(mapped, batched, rtol=1e-6, atol=1e-6)


def test_static_key_value_gradients_match_central_differences():
    """The static keys and values that the checks let through are differentiated (float64)."""
    layer = mg.nn.MultiheadAttention(4, 2, dtype=mg.float64)
    x = mg.randn(3, 2, 4, dtype=mg.float64, requires_grad=True)
    static = [mg.randn(4, 5, 2, dtype=mg.float64, requires_grad=True) for _ in range(2)]

    def attend(q, k, v):
        return F.multi_head_attention_forward(q, q, q, 4, 2, layer.in_proj_weight, layer.in_proj_bias, None, None,
                                              True, 0.0, layer.out_proj.weight, layer.out_proj.bias,
                                              static_k=k, static_v=v)[0]
    assert mg.autograd.gradcheck(attend, (x, *static))
