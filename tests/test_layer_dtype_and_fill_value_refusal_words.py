"""A convolution's or linear's input of another dtype than its weight or bias, and a fill value a tensor
cannot hold (masked_fill, index_fill, scatter's value, full), refuse in PyTorch's words (torch 2.13's,
pasted here; dtypes by the C++ names its kernels print: ``long int``, ``double``, ``int64_t``), then the
engine's.  Found by running PyTorch's OpInfo error inputs against the engine; the rest of each family
checked against torch by hand.
"""
from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

z = mg.zeros
D, L = mg.float64, mg.int64


def B(*shape):
    return mg.ones(*shape, dtype=mg.bool)


CASES = {
    "conv1d, an int64 input, a float64 bias": (lambda: F.conv1d(z(1, 1, 4, dtype=L), z(1, 1, 2, dtype=L),
                                                                z(1, dtype=D)),
                                               "Input type (long int) and bias type (double) should be the same"),
    "conv2d, a complex bias": (lambda: F.conv2d(z(2, 4, 4, dtype=D), z(3, 2, 3, 3, dtype=D), z(3, dtype=mg.complex128)),
                               "Input type (double) and bias type (c10::complex<double>) should be the same"),
    "conv3d, a float64 bias": (lambda: F.conv3d(z(1, 1, 4, 4, 4), z(1, 1, 2, 2, 2), z(1, dtype=D)),
                               "Input type (float) and bias type (double) should be the same"),
    "conv1d, a float64 weight": (lambda: F.conv1d(z(1, 1, 4), z(1, 1, 2, dtype=D)),
                                 "expected scalar type Float but found Double"),
    "conv2d, an int64 input": (lambda: F.conv2d(z(1, 1, 4, 4, dtype=L), z(1, 1, 2, 2)),
                               "expected scalar type Long but found Float"),
    "conv_transpose2d, a float32 weight": (lambda: F.conv_transpose2d(z(1, 1, 4, 4, dtype=D), z(1, 1, 2, 2)),
                                           "expected scalar type Double but found Float"),
    "linear, a float64 weight": (lambda: F.linear(z(2, 3), z(4, 3, dtype=D)),
                                 "expected m1 and m2 to have the same dtype, but got: float != double"),
    "masked_fill, a 1-D value": (lambda: z(2, 2).masked_fill(B(2, 2), z(1)),
                                 "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                                 "dimension(s)."),
    "index_fill, a 1-D value": (lambda: z(2, 2).index_fill(0, mg.tensor([0]), z(1)),
                                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                                "dimension(s)."),
    "masked_fill, 1j into float32": (lambda: z(2, 2).masked_fill(B(2, 2), 1j),
                                     "value cannot be converted to type float without overflow"),
    "masked_fill, a complex tensor into int64": (lambda: z(2, dtype=L).masked_fill(B(2), mg.tensor(1j)),
                                                 "value cannot be converted to type int64_t without overflow"),
    "masked_fill, 300 into uint8": (lambda: z(2, dtype=mg.uint8).masked_fill(B(2), 300),
                                    "value cannot be converted to type uint8_t without overflow"),
    "masked_fill, 1j into int32": (lambda: z(2, dtype=mg.int32).masked_fill(B(2), 1j),
                                   "value cannot be converted to type int without overflow"),
    "scatter, a value 1j": (lambda: z(2, 2).scatter(0, z(1, 1, dtype=L), 1j),
                            "value cannot be converted to type float without overflow"),
    "full, 1e300 into float16": (lambda: mg.full((2,), 1e300, dtype=mg.float16),
                                 "value cannot be converted to type c10::Half without overflow"),
    # (three refusals that wrote the engine's dtype name, float32, where PyTorch's C++ name is meant)
    "constant_pad_nd, 1+2j into float32": (lambda: mg.constant_pad_nd(z(2), [1, 1], 1 + 2j),
                                           "value cannot be converted to type float without overflow"),
    "a boolean-mask write of a complex 0-d tensor into float64": (
        lambda: z(3, dtype=D).__setitem__(mg.tensor([True, False, True]), mg.tensor(1 + 2j)),
        "value cannot be converted to type double without overflow"),
    "randperm(300) in int8": (lambda: mg.randperm(300, dtype=mg.int8),
                              "value cannot be converted to type int8_t without overflow"),
}


@pytest.mark.parametrize("name", CASES)
def test_pytorchs_words_first(name):
    call, words = CASES[name]
    with pytest.raises(RuntimeError, match=re.escape(words)):
        call()


def test_the_engines_explanation_stays_after():
    with pytest.raises(RuntimeError, match=re.escape("should be the same: conv2d: got float32 input, but its "
                                                     "parameters are float64")):
        F.conv2d(z(1, 1, 4, 4), z(1, 1, 2, 2), z(1, dtype=D))


@pytest.mark.parametrize("bias_dtype, word", [(mg.float64, "Double"), (mg.float16, "Half")])
def test_linear_refuses_a_bias_of_another_dtype_than_its_weight(bias_dtype, word):
    """torch 2.13: ``F.linear(float32 x, float32 w, float64 b)`` is "self and mat2 must have the same
    dtype, but got Double and Float"; NumPy promoted the output to float64 (silently, a float32 model's
    activations in float64).  The module with a bias cast on its own is refused the same way."""
    x, w, b = mg.ones(2, 3), mg.ones(4, 3), mg.ones(4, dtype=bias_dtype)
    with pytest.raises(RuntimeError, match=f"self and mat2 must have the same dtype, but got {word} and Float"):
        F.linear(x, w, b)
    layer = mg.nn.Linear(3, 4)
    layer.bias = mg.nn.Parameter(layer.bias.detach().to(bias_dtype))
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype"):
        layer(x)
    assert F.linear(x, w, mg.ones(4)).dtype == mg.float32
