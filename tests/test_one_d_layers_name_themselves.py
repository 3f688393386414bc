"""The 1-D layers run their 2-D twins on a height of 1; a refusal names the function the user called.

``F.max_pool1d(x, 0)`` said "max_pool2d: kernel_size, stride and dilation must be >= 1" and
``F.conv1d`` of mismatched channels "conv2d: input of shape (2, 3, 1, 5) ...": the name of a
function the user never called, about shapes they never made.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = mg.randn(2, 3, 5)
CASES = {
    # (without return_indices max_pool1d has PyTorch's own checks and words: test_pool_pad_rnn_refusal_words)
    "max_pool1d": lambda: F.max_pool1d(X, 2, padding=2, return_indices=True),
    "avg_pool1d": lambda: F.avg_pool1d(X, 2, padding=2),
    "conv1d": lambda: F.conv1d(X, mg.randn(4, 3, 3), bias=mg.randn(5)),
    "conv_transpose1d": lambda: F.conv_transpose1d(X, mg.randn(3, 2, 3), output_padding=1),
    "adaptive_avg_pool1d": lambda: F.adaptive_avg_pool1d(X, -1),
    "adaptive_max_pool1d": lambda: F.adaptive_max_pool1d(X, -1),
    "adaptive_max_pool1d unbatched": lambda: F.adaptive_max_pool1d(X[0], -1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_refusal_names_the_one_d_function(case):
    name = case.split()[0]
    with pytest.raises(RuntimeError) as caught:
        CASES[case]()
    message = str(caught.value)
    assert message.startswith(f"{name}:"), message
    assert f"({name} runs {name.replace('1d', '2d')} on a height of 1)" in message
    assert isinstance(caught.value, ValueError)  # the engine's InputMismatch still


@pytest.mark.parametrize("layer", [mg.nn.Conv1d(2, 4, 3), mg.nn.MaxPool1d(2, padding=2), mg.nn.AvgPool1d(2, padding=2)],
                         ids=["Conv1d", "MaxPool1d", "AvgPool1d"])
def test_the_layers_never_name_a_two_d_function(layer):
    with pytest.raises(RuntimeError) as caught:
        layer(X)
    assert "2d:" not in str(caught.value) and "1d" in str(caught.value).lower()


@pytest.mark.parametrize("call, words", [
    (lambda: F.conv1d(X, mg.randn(4, 2, 3)),
     "conv1d: Given groups=1, weight of size [4, 2, 3], expected input[2, 3, 5] to have 2 channels, but got 3 "
     "channels instead"),
    (lambda: F.conv_transpose1d(X, mg.randn(4, 2, 3)),
     "conv_transpose1d: Given transposed=1, weight of size [4, 2, 3], expected input[2, 3, 5] to have 4 channels, "
     "but got 3 channels instead"),
    (lambda: F.conv1d(X, mg.randn(4, 3, 7)),
     "conv1d: Calculated padded input size per channel: (5). Kernel size: (7). Kernel size can't be greater than "
     "actual input size"),
], ids=["conv1d channels", "conv_transpose1d channels", "conv1d kernel"])
def test_the_one_d_convolutions_check_the_shapes_the_user_made(call, words):
    # a refusal of the input against the weight shows the 1-D shapes, as PyTorch's (torch 2.13's words);
    # ``conv1d`` said "conv2d: input of shape (2, 3, 1, 5) ...", then the same with its own name
    with pytest.raises(RuntimeError) as caught:
        call()
    assert str(caught.value) == words
