"""Bad input gets a clear error that names the problem."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg


def compact(s: str) -> str:
    """Drop spaces so ``(2, 3)`` and NumPy's ``(2,3)`` compare equal."""
    return s.replace(" ", "")


# --------------------------------------------------------------------- matmul
@pytest.mark.parametrize("xs, ys", [
    ((2, 3), (4, 5)),
    ((3,), (4,)),
    ((2, 3), (2,)),
    ((5, 2, 3), (5, 4, 1)),
])
def test_matmul_mismatch_names_both_shapes(xs, ys):
    with pytest.raises(ValueError) as exc:
        mg.ones(*xs) @ mg.ones(*ys)
    msg = str(exc.value)
    assert "matmul" in msg
    assert str(xs) in msg and str(ys) in msg


def test_matmul_batch_mismatch():
    with pytest.raises(ValueError) as exc:
        mg.ones(2, 3, 4) @ mg.ones(5, 4, 2)
    msg = compact(str(exc.value))
    assert "(2,)" in msg and "(5,)" in msg and "broadcast" in msg


def test_matmul_zero_d():
    with pytest.raises(ValueError, match=r"at least 1D, but they are 0D and 1D.*\(\).*\(3,\)"):  # torch's words
        mg.matmul(mg.tensor(1.0), mg.ones(3))


# ------------------------------------------------------------------ broadcast
@pytest.mark.parametrize("fn", [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / b,
    lambda a, b: a**b,
    lambda a, b: mg.maximum(a, b),
    lambda a, b: a < b,
    lambda a, b: mg.where(a > 0, a, b),
])
def test_broadcast_mismatch_names_both_shapes(fn):
    with pytest.raises(ValueError) as exc:
        fn(mg.ones(2, 3), mg.ones(4, 3))
    msg = compact(str(exc.value))
    assert "broadcast" in msg
    assert "(2,3)" in msg and "(4,3)" in msg


def test_broadcast_to_incompatible():
    with pytest.raises(ValueError) as exc:
        mg.broadcast_to(mg.ones(3), (2, 4))
    msg = compact(str(exc.value))
    assert "(3,)" in msg and "(2,4)" in msg


# ------------------------------------------------------------------- backward
def test_backward_on_non_scalar_without_gradient():
    with pytest.raises(RuntimeError) as exc:
        (mg.ones(2, 3, requires_grad=True) * 2).backward()
    msg = str(exc.value)
    assert "(2, 3)" in msg
    assert "gradient=" in msg
    assert "one element" in msg


def test_backward_gradient_of_wrong_shape():
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of \(3,\) and "
                                           r"output\[0\] has a shape of \(2,\)\.$"):  # torch 2.13's words
        (mg.ones(2, requires_grad=True) * 2).backward(gradient=np.ones(3))


def test_backward_on_tensor_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.ones(2).sum().backward()


# ----------------------------------------------------------------------- axes
@pytest.mark.parametrize("call, bad, ndim", [
    (lambda x: x.sum(axis=2), 2, 2),
    (lambda x: x.sum(axis=-3), -3, 2),
    (lambda x: x.mean(axis=(0, 5)), 5, 2),
    (lambda x: x.max(axis=2), 2, 2),
    (lambda x: x.min(axis=-3), -3, 2),
    (lambda x: x.prod(axis=2), 2, 2),
    (lambda x: x.var(axis=3), 3, 2),
    (lambda x: x.std(axis=3), 3, 2),
    (lambda x: mg.logsumexp(x, axis=2), 2, 2),
    (lambda x: x.cumsum(axis=3), 3, 2),
    (lambda x: x.argmax(axis=2), 2, 2),
    (lambda x: x.swapaxes(0, 2), 2, 2),
    (lambda x: x.squeeze(4), 4, 2),
    (lambda x: mg.expand_dims(x, 3), 3, 3),
    (lambda x: mg.flip(x, 2), 2, 2),
    (lambda x: mg.concatenate([x, x], axis=2), 2, 2),
    (lambda x: mg.stack([x, x], axis=4), 4, 3),
    (lambda x: mg.split(x, 2, axis=2), 2, 2),
])
def test_out_of_range_axis(call, bad, ndim):
    with pytest.raises(ValueError) as exc:
        call(mg.ones(2, 3))
    assert f"axis {bad} is out of bounds for a tensor of dimension {ndim}" in str(exc.value)


def test_repeated_and_non_integer_axis():
    with pytest.raises(ValueError, match="repeated axis"):
        mg.ones(2, 3).sum(axis=(0, -2))
    with pytest.raises(TypeError, match="axis must be an int"):
        mg.ones(2, 3).sum(axis=1.5)


# ------------------------------------------------------------------- indexing
def test_index_out_of_range():
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        mg.ones(2, 3)[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 1 with size 3"):
        mg.ones(2, 3)[:, -4]


# -------------------------------------------------------------------- reshape
@pytest.mark.parametrize("shape", [(4, 2), (7,), (4, -1), (-1, -1), (2, -3)])
def test_reshape_incompatible(shape):
    with pytest.raises(ValueError) as exc:
        mg.ones(2, 3).reshape(shape)
    msg = str(exc.value)
    assert "reshape" in msg
    assert "(2, 3)" in msg or str(shape) in msg
    assert str(shape) in msg


def test_reshape_message_has_both_shapes_and_sizes():
    with pytest.raises(ValueError, match=re.escape("shape (2, 3) (6 elements) into (4, 2)")):
        mg.ones(2, 3).reshape(4, 2)


# --------------------------------------------------------- concatenate / stack
def test_concatenate_shape_mismatch():
    with pytest.raises(ValueError, match=re.escape("shapes (2, 3) and (2, 4) differ outside axis 0")):
        mg.concatenate([mg.ones(2, 3), mg.ones(2, 4)])
    with pytest.raises(ValueError, match=re.escape("(2, 3) and (3,)")):
        mg.concatenate([mg.ones(2, 3), mg.ones(3)], axis=1)


def test_concatenate_bad_arguments():
    with pytest.raises(ValueError, match="at least one tensor"):
        mg.concatenate([])
    with pytest.raises(ValueError, match="zero-dimensional"):
        mg.concatenate([mg.tensor(1.0), mg.tensor(2.0)])
    with pytest.raises(TypeError, match="list or tuple"):
        mg.concatenate(mg.ones(2, 2))


def test_stack_shape_mismatch():
    with pytest.raises(ValueError, match=re.escape("same shape, got (2, 3) and (2, 4)")):
        mg.stack([mg.ones(2, 3), mg.ones(2, 4)])


def test_joining_shapes_that_do_not_fit_is_torchs_runtime_error_too():
    # torch 2.13 raises RuntimeError for each ("stack expects each tensor to be equal size, but got [2, 3] at
    # entry 0 and [2, 4] at entry 1"; "Sizes of tensors must match except in dimension 0"; "zero-dimensional
    # tensor (at position 0) cannot be concatenated"); the engine raised ValueError only (NumPy's), which a
    # handler written for PyTorch (the per-sample-gradient tutorial's torch.stack) did not catch. Both now.
    for join in (lambda: mg.stack([mg.ones(2, 3), mg.ones(2, 4)]), lambda: mg.cat([mg.ones(2, 3), mg.ones(3, 4)]),
                 lambda: mg.cat([mg.ones(2, 3), mg.ones(3)]), lambda: mg.cat([mg.tensor(1.0), mg.tensor(2.0)]),
                 lambda: mg.stack([mg.ones(2), mg.ones(3)], dim=1), lambda: mg.vstack([mg.ones(2), mg.ones(3)])):
        with pytest.raises(RuntimeError) as caught:
            join()
        assert isinstance(caught.value, ValueError)


def test_split_uneven():
    with pytest.raises(ValueError, match="length 3 cannot be split into 2 equal parts"):
        mg.split(mg.ones(3), 2)


# ------------------------------------------------------------------- others
def test_transpose_bad_permutation():
    with pytest.raises(ValueError, match=re.escape("axes (0, 0) are not a permutation of 2 axes")):
        mg.ones(2, 3).transpose((0, 0))


def test_squeeze_non_unit_axis():
    with pytest.raises(ValueError, match="axis 0 has size 2, not 1"):
        mg.ones(2, 3).squeeze(axis=0)                 # NumPy's spelling; x.squeeze(0) is PyTorch's no-op


@pytest.mark.parametrize("make", ["mg.zeros(2, -1)", "mg.ones((-3,))", "mg.empty(-1)", "mg.full((2, -1), 1.0)",
                                  "mg.randn(-1)", "x.new_zeros(2, -1)", "x.new_ones((-1,))", "x.new_empty(-2)",
                                  "x.new_full((-1,), 3.0)"])
def test_negative_dimension_in_creation(make):
    # torch 2.13: RuntimeError "Trying to create tensor with negative dimension -1: [2, -1]" (new_zeros
    # and the rest gave NumPy's ValueError "negative dimensions are not allowed"); a ValueError too, as NumPy's
    with pytest.raises(RuntimeError, match="negative dimension -") as caught:
        eval(make, {"mg": mg, "x": mg.ones(2)})
    assert isinstance(caught.value, ValueError)


def test_unknown_device():
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        mg.tensor([1.0], device="tpu")


def test_not_a_dtype():
    with pytest.raises(TypeError, match="not a dtype"):
        mg.tensor([1.0], dtype="floaty")


def test_pad_mode():
    with pytest.raises(NotImplementedError, match="mode='constant'"):
        mg.pad(mg.ones(2), 1, mode="reflect")


def test_data_setter_shape_mismatch():
    x = mg.ones(2)
    with pytest.raises(ValueError, match=re.escape("of shape (2,) to an array of shape (3,)")):
        x.data = np.ones(3)


def test_einsum_operand_count():
    with pytest.raises(ValueError, match="2 operand subscripts for 1 operands"):
        mg.einsum("ij,jk->ik", mg.ones(2, 2))


# ------------------------------------------------------------------ mistakes newcomers make (docs/common-mistakes.md)
def test_cross_entropy_with_float_class_indices_says_indices_must_be_integers():
    logits = mg.randn(4, 3)
    with pytest.raises(TypeError, match=r"expected target dtype to be Long or Byte, but got Float \(class indices "
                                        r"must be integers: convert with target\.astype\('int64'\)"):
        mg.nn.functional.cross_entropy(logits, mg.tensor([0.0, 1.0, 2.0, 1.0]))


def test_cross_entropy_with_input_and_target_swapped_says_so():
    with pytest.raises(TypeError, match=r"float logits.*swap input and target"):
        mg.nn.functional.cross_entropy(mg.tensor([0, 1, 2, 1]), mg.randn(4, 3))


def test_load_state_dict_with_a_non_array_value_names_the_key_and_the_type():
    layer = mg.nn.Linear(3, 2)
    before = layer.weight.numpy().copy()
    with pytest.raises(RuntimeError, match=r"weight: expected a Tensor or an array of shape \(2, 3\), got a str"):
        layer.load_state_dict({"weight": "abc", "bias": mg.zeros(2)})
    assert (layer.weight.numpy() == before).all()  # nothing was copied
    with pytest.raises(RuntimeError, match=r"bias: expected a Tensor .* got a NoneType"):
        layer.load_state_dict({"weight": mg.zeros((2, 3)), "bias": None})
    layer.load_state_dict({"weight": [[1.0, 2.0, 3.0]] * 2, "bias": [0.5, 0.5]})  # nested lists are arrays
    assert layer.bias.numpy().tolist() == [0.5, 0.5]


@pytest.mark.parametrize("layer, data", [
    (lambda: mg.nn.Linear(3, 2), [[1.0, 2.0, 3.0]]),
    (lambda: mg.nn.Conv2d(1, 2, 1), [[[[1.0, 2.0]]]]),
    (lambda: mg.nn.LayerNorm(2), [[1.0, 2.0]]),
    (lambda: mg.nn.BatchNorm1d(2), [[1.0, -2.0], [3.0, 4.0]]),
    (lambda: mg.nn.ReLU(), [1.0, -2.0]),
    (lambda: mg.nn.Flatten(), [[1.0, -2.0]]),
    (lambda: mg.nn.Sequential(mg.nn.Linear(2, 2), mg.nn.Tanh()), [[1.0, -2.0]]),
    (lambda: mg.nn.TransformerEncoderLayer(2, 1, dim_feedforward=4, dropout=0.0), [[[1.0, -2.0]]]),
])
def test_layers_accept_python_lists_like_the_functions_do(layer, data):
    mg.manual_seed(0)
    module = layer()
    mg.manual_seed(0)
    assert np.array_equal(module(data).numpy(), module(mg.tensor(data)).numpy())


def test_attention_accepts_lists_and_recurrent_layers_say_they_need_a_tensor():
    q = [[[1.0, -2.0]]]
    out, _ = mg.nn.MultiheadAttention(2, 1)(q, q, q)
    assert out.shape == (1, 1, 2)
    with pytest.raises(TypeError, match="must be a Tensor, got list"):
        mg.nn.LSTM(2, 2)([[[1.0, 2.0]]])


@pytest.mark.parametrize("call, words", [
    (lambda: mg.ones(9).reshape(3), r"shape '\[3\]' is invalid for input of size 9"),
    (lambda: mg.ones(9).view(2, -1), r"shape '\[2, -1\]' is invalid for input of size 9"),
    (lambda: mg.ones(9).reshape(-1, -1), "only one dimension can be inferred"),
    (lambda: mg.ones(9).reshape(-2, 3), r"invalid shape dimension -2 at index 0 of shape \[-2, 3\]"),
    (lambda: mg.ones(0).reshape(0, -1), "the unspecified dimension size -1 can be any value and is ambiguous"),
])
def test_a_shape_reshape_cannot_give_is_torchs_runtime_error(call, words):
    # torch 2.13 raises RuntimeError with these words (mg.func.vmap(f)(x) over a wrong reshape in f, say); the
    # engine raised ValueError.  Still a ValueError too, NumPy's type (functional/errors.py's pattern).
    with pytest.raises(RuntimeError, match=words) as info:
        call()
    assert isinstance(info.value, ValueError)
