"""A layer with parameters refuses a floating input of another dtype (naming both
dtypes and the fix) and integer input, instead of silently computing in float64; elementwise
ops keep NumPy's promotion."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

LAYERS = {
    "Linear": (lambda: nn.Linear(4, 3), (2, 4)),
    "Conv2d": (lambda: nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
    "Conv1d": (lambda: nn.Conv1d(2, 3, 3), (1, 2, 5)),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(2, 3, 3), (1, 2, 4, 4)),
    "LayerNorm": (lambda: nn.LayerNorm(4), (2, 4)),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(4), (3, 4)),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), (3, 4, 2)),
    "RMSNorm": (lambda: nn.RMSNorm(4), (2, 4)),
    "PReLU": (lambda: nn.PReLU(), (2, 4)),
    "MultiheadAttention": (lambda: nn.MultiheadAttention(4, 2), (3, 2, 4)),
    "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), (3, 2, 4)),
    "LSTM": (lambda: nn.LSTM(4, 3), (5, 2, 4)),
    "GRUCell": (lambda: nn.GRUCell(4, 3), (2, 4)),
}


def _call(layer, x):
    return layer(x, x, x) if isinstance(layer, nn.MultiheadAttention) else layer(x)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_float32_layer_refuses_float64_input_naming_both_and_the_fix(name):
    make, shape = LAYERS[name]
    mg.manual_seed(0)
    layer = make()
    x = mg.randn(*shape, dtype="float64")
    words = (rf"{name}: RNN input dtype \(float64\) does not match weight dtype \(float32\)\. Convert input: "
             r"input\.to\(float32\), or convert model: model\.to\(float64\) \(x\.float\(\) for float32\)"
             if name in ("RNN", "LSTM", "GRU") else r"float64 input.*float32.*x\.to\(float32\).*x\.float\(\)")
    with pytest.raises(TypeError, match=words):  # (the recurrent layers': PyTorch's words, then the engine's)
        _call(layer, x)
    out = _call(layer, x.float())  # the fix works
    out = out[0] if isinstance(out, tuple) else out
    assert out.dtype == np.float32


@pytest.mark.parametrize("name", ["Linear", "LayerNorm", "Conv2d"])
def test_float64_layer_refuses_float32_input(name):
    make, shape = LAYERS[name]
    layer = make().double()
    with pytest.raises(TypeError, match=r"float32 input.*float64.*x\.to\(float64\)"):
        layer(mg.randn(*shape, dtype="float32"))
    assert layer(mg.randn(*shape, dtype="float64")).dtype == np.float64


def test_integer_input_to_linear_is_an_error():
    layer = nn.Linear(3, 2)
    with pytest.raises(TypeError, match=r"int64 input.*float32.*x\.float\(\)"):
        layer(mg.tensor([[1, 2, 3]]))
    with pytest.raises(TypeError, match="int64 input"):
        F.linear(mg.tensor([[1, 2, 3]]), layer.weight)


def test_float16_input_to_a_float32_layer_is_an_error_too():
    with pytest.raises(TypeError, match="float16 input"):
        nn.Linear(3, 2)(mg.ones(1, 3, dtype="float16"))


def test_embedding_output_has_the_weights_dtype_and_refuses_float_ids():
    e = nn.Embedding(5, 3)
    assert e(mg.tensor([1, 2])).dtype == np.float32
    assert nn.Embedding(5, 3, dtype="float64")(mg.tensor([1, 2], dtype="int32")).dtype == np.float64
    with pytest.raises(TypeError, match=r"embedding: Expected tensor for argument #1 'indices' to have one of the "
                                        r"following scalar types: Long, Int \(int64 or int32\), got float32"):
        e(mg.tensor([1.0, 2.0]))


def test_elementwise_ops_promote_as_pytorchs():
    a = mg.ones(2, dtype="float32")
    b = mg.ones(2, dtype="float64")
    assert (a + b).dtype == np.float64 and (a * b).dtype == np.float64
    assert (a + 1.0).dtype == np.float32            # Python scalars are weak
    assert (mg.tensor([1, 2]) * a).dtype == np.float32  # torch: float32 (NumPy: float64)
