"""Attention masks must be boolean or floating: PyTorch 2.13's ``multi_head_attention_forward``
raises ``AssertionError("only bool and floating types of attn_mask are supported")`` for an
integer ``attn_mask`` or ``key_padding_mask``. The engine used to *add* an integer 0/1 mask to the
scores, a silently different answer from the "masked / not masked" its writer meant."""

import numpy as np
import pytest

import minigrad_ckpt as mg

INT_DTYPES = [mg.int64, mg.int32, mg.uint8]


def _mha():
    return mg.nn.MultiheadAttention(8, 2, dtype=mg.float64)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("which", ["attn_mask", "key_padding_mask"])
def test_integer_mask_is_refused(dtype, which):
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 2, 8)))
    mask = mg.zeros((3, 3) if which == "attn_mask" else (2, 3), dtype=dtype)
    with pytest.raises(AssertionError, match=f"only bool and floating types of {which}"):
        _mha()(x, x, x, **{which: mask})
    with pytest.raises(TypeError):  # what the mistake is, for handlers that catch that
        _mha()(x, x, x, **{which: mask})


def test_integer_mask_is_refused_through_a_transformer_layer():
    layer = mg.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=mg.float64)
    x = mg.tensor(np.random.default_rng(1).standard_normal((3, 2, 8)))
    with pytest.raises(AssertionError):
        layer(x, src_mask=mg.tensor(np.triu(np.ones((3, 3), dtype=np.int64), 1)))


@pytest.mark.parametrize("float_dtype", [mg.float32, mg.float64])
def test_bool_and_float_masks_still_work(float_dtype):
    m = mg.nn.MultiheadAttention(8, 2, dtype=float_dtype)
    x = mg.tensor(np.random.default_rng(2).standard_normal((3, 2, 8)), dtype=float_dtype)
    b = np.triu(np.ones((3, 3), bool), 1)
    out_b, w_b = m(x, x, x, attn_mask=mg.tensor(b))
    out_f, w_f = m(x, x, x, attn_mask=mg.tensor(np.where(b, -np.inf, 0.0), dtype=float_dtype))
    np.testing.assert_array_equal(w_b.numpy(), w_f.numpy())
    assert np.all(w_b.numpy()[:, b] == 0)
