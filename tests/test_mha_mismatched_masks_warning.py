"""A boolean ``key_padding_mask`` with a float ``attn_mask`` (or any two mask dtypes) warns, as PyTorch.

fairseq's ``MultiheadAttention`` (fairseq/modules/multihead_attention.py) hands its encoder layer's
boolean padding mask and a float attention mask to ``F.multi_head_attention_forward``; torch 2.13
answers and warns "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same
type for both instead." -- the engine answered the same without the warning, so a ported program
lost PyTorch's notice that the call may stop working. Found porting fairseq's modules. The
warning points at the user's line (PyTorch's points into torch's functional.py).
"""
from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

MESSAGE = "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both instead."


def _record(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f()
    return [w for w in caught if "mismatched" in str(w.message)]


@pytest.fixture
def layer():
    mg.manual_seed(0)
    return mg.nn.MultiheadAttention(4, 2)


X = mg.randn(3, 1, 4)
BOOL_KPM = mg.zeros(1, 3, dtype=mg.bool)


@pytest.mark.parametrize("kpm, mask", [
    (BOOL_KPM, mg.zeros(3, 3)),                                   # torch: warns
    (mg.zeros(1, 3), mg.zeros(3, 3, dtype=mg.bool)),              # torch: warns
])
def test_the_layer_warns_once_at_the_users_line(layer, kpm, mask):
    caught = _record(lambda: layer(X, X, X, key_padding_mask=kpm, attn_mask=mask))
    assert [str(w.message) for w in caught] == [MESSAGE]
    assert caught[0].filename == __file__ and caught[0].category is UserWarning


def test_the_function_warns_at_the_users_line(layer):
    caught = _record(lambda: F.multi_head_attention_forward(
        X, X, X, 4, 2, layer.in_proj_weight, layer.in_proj_bias, None, None, False, 0.0, layer.out_proj.weight,
        layer.out_proj.bias, key_padding_mask=BOOL_KPM, attn_mask=mg.zeros(3, 3)))
    assert [str(w.message) for w in caught] == [MESSAGE] and caught[0].filename == __file__


@pytest.mark.parametrize("kpm, mask", [
    (BOOL_KPM, mg.zeros(3, 3, dtype=mg.bool)), (mg.zeros(1, 3), mg.zeros(3, 3)),
    (BOOL_KPM, None), (None, mg.zeros(3, 3)),
])
def test_masks_of_one_dtype_or_one_mask_do_not_warn(layer, kpm, mask):
    assert _record(lambda: layer(X, X, X, key_padding_mask=kpm, attn_mask=mask)) == []  # torch: no warning


def test_the_answer_is_the_same_as_with_matching_masks(layer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed, _ = layer(X, X, X, key_padding_mask=mg.tensor([[False, False, True]]), attn_mask=mg.zeros(3, 3))
    floats, _ = layer(X, X, X, key_padding_mask=mg.tensor([[0.0, 0.0, float("-inf")]]), attn_mask=mg.zeros(3, 3))
    assert mg.allclose(mixed, floats)


def _encoder_inputs():
    mg.manual_seed(0)
    x = mg.randn(3, 2, 4)
    kpm = mg.tensor([[False, False, True], [False, True, True]])
    return x, kpm, mg.zeros(3, 3), mg.where(kpm, float("-inf"), 0.0)


def test_the_encoder_warns_once_in_its_own_names_as_pytorch():
    # torch 2.13: nn.TransformerEncoder makes the masks one type first and warns "mismatched
    # src_key_padding_mask and mask" once; its layers and their attention then do not warn. The
    # engine warned the attention's words once per layer (twice for two layers).
    x, kpm, mask, float_kpm = _encoder_inputs()
    enc = mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 2, enable_nested_tensor=False)
    out = []
    caught = _record(lambda: out.append(enc(x, mask=mask, src_key_padding_mask=kpm)))
    assert [str(w.message) for w in caught] == [
        "Support for mismatched src_key_padding_mask and mask is deprecated. Use same type for both instead."]
    assert caught[0].filename == __file__
    assert mg.allclose(out[0], enc(x, mask=mask, src_key_padding_mask=float_kpm))
    bool_mask_out = []
    assert len(_record(lambda: bool_mask_out.append(enc(x, mask=mask == 1, src_key_padding_mask=mg.zeros(2, 3))))) == 1
    assert mg.allclose(bool_mask_out[0], enc(x, mask=mg.zeros(3, 3), src_key_padding_mask=mg.zeros(2, 3)))


def test_the_encoder_layer_warns_in_its_own_names_as_pytorch():
    x, kpm, mask, float_kpm = _encoder_inputs()
    layer = mg.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    out = []
    caught = _record(lambda: out.append(layer(x, src_mask=mask, src_key_padding_mask=kpm)))
    assert [str(w.message) for w in caught] == [
        "Support for mismatched src_key_padding_mask and src_mask is deprecated. Use same type for both instead."]
    assert mg.allclose(out[0], layer(x, src_mask=mask, src_key_padding_mask=float_kpm))
