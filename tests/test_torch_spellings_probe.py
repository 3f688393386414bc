"""PyTorch's spellings mean PyTorch's answers, never NumPy's in disguise.

A differential probe called torch 2.13 and minigrad_ckpt with the same arguments over the
Tensor methods, ``mg.*`` functions and ``nn.functional`` names the two share.  Each test here is
a spelling where the engine silently gave NumPy's answer (or a logical one where both libraries
are bitwise); the expected values were computed with torch offline and are written out.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

NAN = float("nan")


def _same(t: mg.Tensor, expected: list, dtype: str) -> None:
    assert str(t.dtype) == dtype
    np.testing.assert_allclose(t.numpy(), np.array(expected, dtype=dtype), rtol=2e-6, atol=1e-7, equal_nan=True)


# ---------------------------------------------------------------- squeeze(dim)
def test_squeezing_a_dim_that_is_not_of_size_one_leaves_it_as_pytorch_does():
    x = mg.ones(2, 1, 3, 1)
    assert x.squeeze(0).shape == (2, 1, 3, 1)                      # torch: a no-op, NumPy: an error
    assert x.squeeze(dim=-1).shape == (2, 1, 3)
    assert x.squeeze((0, 1, 3)).shape == (2, 3) and x.squeeze(0, 1, 3).shape == (2, 3)
    assert mg.squeeze(x, dim=0).shape == (2, 1, 3, 1) and mg.squeeze(x, dim=(0, 1)).shape == (2, 3, 1)
    assert x.squeeze().shape == (2, 3) and mg.tensor(1.0).squeeze(0).shape == ()
    with pytest.raises(ValueError, match="size 2"):                # NumPy's spellings keep NumPy's meaning
        mg.squeeze(x, 0)
    with pytest.raises(ValueError, match="size 2"):
        x.squeeze(axis=0)
    with pytest.raises(IndexError):
        mg.tensor(1.0).squeeze(1)


def test_squeeze_of_a_named_dim_passes_the_gradient_back_in_the_input_shape():
    x = mg.tensor(np.arange(6.0).reshape(2, 1, 3), requires_grad=True)
    (x.squeeze(0).squeeze(1) * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.shape == (2, 1, 3) and x.grad.numpy()[1, 0].tolist() == [1.0, 2.0, 3.0]


# ------------------------------------------------------- & | ^ ~ on integer tensors
def test_bitwise_operators_on_integers_are_bitwise_not_logical():
    a = mg.tensor([3, 5, -6])
    assert (a & 6).tolist() == [2, 4, 2] and (12 & a).tolist() == [0, 4, 8]
    assert (a | 8).tolist() == [11, 13, -6]
    assert (a ^ mg.tensor([1, 4, 2])).tolist() == [2, 1, -8]
    assert (~a).tolist() == [-4, -6, 5] and (~a).dtype == mg.int64
    assert mg.bitwise_and(a, 6).tolist() == [2, 4, 2] and a.bitwise_not().tolist() == [-4, -6, 5]
    assert str((mg.tensor([1, 2], dtype="int32") & 3).dtype) == "int32"


def test_bitwise_operators_on_bools_stay_logical_and_floats_are_refused():
    b = mg.tensor([True, False])
    assert (b ^ True).tolist() == [False, True] and (~b).tolist() == [False, True]
    assert (b & mg.tensor([True, True])).tolist() == [True, False] and (b | b).dtype == mg.bool_
    assert (mg.tensor([True]) | 2).tolist() == [3]                # a bool and an int: bitwise, as torch
    x = mg.tensor([0.5, 2.0])
    for spell in (lambda: ~x, lambda: x & (x > 1), lambda: 1 | x):
        with pytest.raises(TypeError, match="integer and bool"):
            spell()


# --------------------------------------------------- NaN in descending order
def test_a_descending_sort_and_topk_put_nan_first_as_pytorch_orders_it_above_every_number():
    x = mg.tensor([[2.0, NAN, 5.0, 1.0], [NAN, 3.0, NAN, 3.0]])
    values, indices = x.sort(descending=True)
    _same(values, [[NAN, 5, 2, 1], [NAN, NAN, 3, 3]], "float32")
    assert indices.tolist() == [[1, 2, 0, 3], [0, 2, 1, 3]]
    values, indices = x.topk(2)
    _same(values, [[NAN, 5], [NAN, NAN]], "float32")
    assert indices.tolist() == [[1, 2], [0, 2]]
    values, indices = x.topk(2, largest=False)
    _same(values, [[1, 2], [3, 3]], "float32")
    assert indices.tolist() == [[3, 0], [1, 3]]
    assert mg.argsort(x, dim=1, descending=True).tolist() == [[1, 2, 0, 3], [0, 2, 1, 3]]


def test_the_gradient_of_a_descending_sort_with_nan_goes_to_the_sorted_positions():
    x = mg.tensor([2.0, NAN, 5.0, 1.0], dtype="float64", requires_grad=True)
    values, _ = x.sort(descending=True)
    (values * mg.tensor([1.0, 10.0, 100.0, 1000.0], dtype="float64")).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0, 1000.0]           # torch's autograd gives the same


def test_mode_orders_nan_above_the_numbers():
    assert mg.tensor([1.0, NAN, 3.0]).mode().values.item() == 1.0  # torch: 1
    assert math.isnan(mg.tensor([NAN, NAN, 1.0]).mode().values.item())
    assert mg.tensor([NAN, 1.0, 1.0]).mode().values.item() == 1.0


# ------------------------------------------ methods whose dim PyTorch requires
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logsumexp", "softmax", "log_softmax", "flip"])
def test_a_method_without_the_dim_pytorch_requires_is_an_error_not_a_flattened_answer(name):
    with pytest.raises(TypeError, match="missing required argument 'dim"):
        getattr(mg.ones(2, 3), name)()


def test_the_dim_methods_answer_as_pytorch():
    y = mg.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    _same(y.cumsum(1), [[1, -1, 2], [0.5, 4.5, 3.5]], "float32")
    _same(y.cumprod(dim=0), [[1, -2, 3], [0.5, -8, -3]], "float32")
    _same(y.logsumexp(1), [3.1328452, 4.0362697], "float32")
    _same(y.softmax(0), [[0.6224594, 0.0024726, 0.9820138], [0.3775407, 0.9975274, 0.0179862]], "float32")
    _same(y.flip(0, 1), [[-1, 4, 0.5], [3, -2, 1]], "float32")
    _same(y.flip(dims=[1]), [[3, -2, 1], [-1, 4, 0.5]], "float32")
    _same(mg.tensor([[1, 2], [4, 7]]).cumsum(1, dtype=mg.float64), [[1, 3], [4, 11]], "float64")
    assert y.cumsum(axis=None).shape == (6,) and y.flip(axis=None).tolist()[0] == [-1.0, 4.0, 0.5]  # NumPy's


# ------------------------------------------- mean / std / var / norm of integers
@pytest.mark.parametrize("call", [
    lambda x: x.mean(), lambda x: x.mean(1), lambda x: x.std(), lambda x: x.var(0, correction=0),
    lambda x: x.nanmean(), lambda x: x.norm(), lambda x: x.bool().mean(),
])
def test_pytorch_refuses_the_mean_and_spread_of_integers_and_so_does_the_method(call):
    with pytest.raises(TypeError, match="floating point or complex"):
        call(mg.tensor([[1, 2], [4, 7]]))


def test_the_mean_of_integers_with_a_dtype_or_numpy_keywords_is_answered():
    i = mg.tensor([[1, 2], [4, 7]])
    _same(i.mean(dtype=mg.float64), 3.5, "float64")
    _same(i.mean(axis=0), [2.5, 4.5], "float64")                   # NumPy's spelling: NumPy's answer
    _same(i.var(ddof=0), 5.25, "float64")
    _same(mg.mean(i), 3.5, "float64")


# ---------------------------------------------------------- float_power, div
def test_float_power_computes_in_double_precision():
    x = mg.tensor([1.5, 2.0], requires_grad=True)
    y = x.float_power(2)
    _same(y, [2.25, 4.0], "float64")
    y.sum().backward()
    _same(x.grad, [3.0, 4.0], "float32")
    _same(mg.tensor([2, 3]).float_power(-1), [0.5, 1 / 3], "float64")  # NumPy's int power would refuse


def test_div_with_a_rounding_mode_keeps_integers_integer():
    q = mg.div(mg.tensor([7, -7, -6]), mg.tensor([2, 2, 4]), rounding_mode="trunc")
    assert q.tolist() == [3, -3, -1] and q.dtype == mg.int64
    q = mg.tensor([7, -7, -6]).div(-2, rounding_mode="floor")
    assert q.tolist() == [-4, 3, 3] and q.dtype == mg.int64
    q = mg.div(mg.tensor([7, -7], dtype="int32"), 2, rounding_mode="trunc")
    assert q.tolist() == [3, -3] and str(q.dtype) == "int32"
    big = 2**53 + 1                                                # a float quotient would round it
    assert mg.div(mg.tensor([big]), 1, rounding_mode="floor").tolist() == [big]
    with pytest.raises(ZeroDivisionError):
        mg.div(mg.tensor([1, 2]), mg.tensor([1, 0]), rounding_mode="floor")
    _same(mg.div(mg.tensor([7.0, -7.0]), 2, rounding_mode="trunc"), [3, -3], "float32")


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_integer_division_with_a_rounding_mode_reads_the_device_explicitly(device):
    """The zero-divisor check is one explicit device read (a GPU array has no ``bool()``)."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the devices)

    x = mg.tensor([7, -7, -6], device=device)
    q = mg.div(x, mg.tensor([2, 2, 4], device=device), rounding_mode="trunc")
    assert q.device == x.device and q.cpu().tolist() == [3, -3, -1]
    assert mg.div(x, -2, rounding_mode="floor").cpu().tolist() == [-4, 3, 3]
    for zero in (0, mg.tensor([1, 0, 1], device=device)):
        with pytest.raises(ZeroDivisionError):
            mg.div(x, zero, rounding_mode="floor")


# ------------------------------------------------- F.softmax without a dim
def test_softmax_without_a_dim_takes_pytorchs_implicit_dim_and_warns():
    import minigrad_ckpt.nn.functional as F
    x = mg.arange(8.0).reshape(2, 2, 2) / 4                        # 3-D: PyTorch picks dim 0, not the last
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        _same(F.softmax(x), [[[0.2689414] * 2] * 2, [[0.7310586] * 2] * 2], "float32")
    with pytest.warns(UserWarning, match="log_softmax"):          # 4-D: dim 1, the channels
        out = F.log_softmax(mg.arange(8.0).reshape(1, 2, 2, 2) / 4)
    _same(out, [[[[-1.3132616] * 2] * 2, [[-0.3132617] * 2] * 2]], "float32")
    with pytest.warns(UserWarning, match="softmin"):
        _same(F.softmin(mg.tensor([1.0, 2.0])), [0.7310586, 0.2689414], "float32")
    with pytest.warns(UserWarning):
        _same(mg.nn.Softmax()(x)[0], [[0.2689414] * 2] * 2, "float32")
    _same(mg.nn.Softmax(dim=-1)(x)[0], [[0.4378235, 0.5621765]] * 2, "float32")
    _same(F.softmax(mg.tensor([[1.0, 2.0]]), 1, dtype=mg.float64), [[0.2689414, 0.7310586]], "float64")


def test_softmax_of_a_0d_tensor_without_a_dim_warns_as_pytorchs():
    """A 0-d input is its own one-element slice (the answer is 1, 0 for log_softmax), and PyTorch's
    deprecation warning still asks for a dim; the engine's 0-d shortcut skipped the warning. Found
    porting RL-Adventure's distributional DQNs, which call ``F.softmax(x)`` without a dim."""
    import warnings

    import minigrad_ckpt.nn.functional as F
    for fn, name, answer in ((F.softmax, "softmax", 1.0), (F.log_softmax, "log_softmax", 0.0),
                             (F.softmin, "softmin", 1.0)):
        with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} "):
            assert fn(mg.tensor(2.0)).item() == answer
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert fn(mg.tensor(2.0), dim=0).item() == answer   # a dim given: quiet


# -------------------------------------------------- cross, sign, take, clamp
def test_the_cross_method_reads_its_second_argument_as_pytorchs_dim():
    a = mg.tensor(np.arange(9.0).reshape(3, 3))
    # (both float64: PyTorch's cross refuses two dtypes, "expected scalar type Double but found Float")
    b = mg.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 3.0], [1.0, 1.0, 0.0]], dtype=mg.float64)
    torch_dim0 = [[3.0, -3.0, -24.0], [6.0, -1.0, 16.0], [-3.0, 1.0, -4.0]]   # torch.cross(a, b, 0)
    assert a.cross(b, 0).tolist() == torch_dim0 and a.cross(b, dim=0).tolist() == torch_dim0
    with pytest.warns(UserWarning, match="first dim of size 3"):
        assert a.cross(b).tolist() == torch_dim0                    # PyTorch's default: the first size-3 dim
    assert mg.cross(a, b).tolist() == np.cross(a.numpy(), b.numpy()).tolist()   # NumPy's: the last axis
    with pytest.warns(UserWarning, match="first dim of size 3"):  # PyTorch's dim=None given: its default
        assert mg.cross(a, b, dim=None).tolist() == torch_dim0     # (was NumPy's last axis)
    for refused in (lambda: mg.ones(2, 4).cross(mg.ones(2, 4)), lambda: mg.cross(mg.ones(4), mg.ones(4), dim=None)):
        with pytest.raises(RuntimeError, match="no dimension of size 3 in input"):  # PyTorch's (was ValueError)
            refused()
    x = mg.tensor(np.arange(9.0).reshape(3, 3), dtype="float64", requires_grad=True)
    (x.cross(mg.tensor(b.numpy(), dtype="float64"), 0) * mg.arange(9.0, dtype="float64").reshape(3, 3)).sum().backward()
    assert x.grad.tolist() == [[-3.0, 3.0, 24.0], [-6.0, 1.0, -16.0], [3.0, -1.0, 4.0]]   # torch's autograd


def test_the_sign_method_is_zero_at_nan_as_pytorchs():
    x = mg.tensor([NAN, -2.0, 0.0, 3.0])
    assert x.sign().tolist() == [0.0, -1.0, 0.0, 1.0] and x.sgn().tolist() == [0.0, -1.0, 0.0, 1.0]
    assert math.isnan(mg.sign(x).tolist()[0])                      # NumPy's spelling: NumPy's NaN
    assert mg.tensor([-3, 0, 2]).sign().tolist() == [-1, 0, 1]


def test_take_has_no_axis_and_clamp_needs_a_bound_as_in_pytorch():
    x = mg.arange(6.0).reshape(2, 3)
    assert x.take(mg.tensor([0, 5])).tolist() == [0.0, 5.0]
    with pytest.raises(TypeError):
        x.take(mg.tensor([1]), 0)                                  # NumPy's axis: mg.take(x, i, 0)
    assert mg.take(x, mg.tensor([1]), 0).tolist() == [[3.0, 4.0, 5.0]]
    for call in (lambda: x.clamp(), lambda: mg.clamp(x)):
        with pytest.raises(TypeError, match="min or max"):
            call()


# ------------------------------------------------ unique of NaN, mean(dim=) of ints
def test_the_unique_method_keeps_each_nan_as_pytorchs_does():
    x = mg.tensor([1.0, NAN, 3.0, NAN, 1.0])
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    _same(values, [1.0, 3.0, NAN, NAN], "float32")                 # torch.unique: NaN != NaN
    assert inverse.tolist() == [0, 2, 1, 3, 0] and counts.tolist() == [2, 1, 1, 1]
    assert mg.unique(x).shape == (3,)                              # NumPy's: equal_nan=True merges them
    assert mg.unique(x, equal_nan=False).shape == (4,)             # and the keyword is honoured


@pytest.mark.parametrize("call", [
    lambda i: mg.mean(i, dim=0), lambda i: mg.nanmean(i, dim=1), lambda i: mg.nanmean(i, dim=1, dtype=mg.float64),
    lambda i: mg.var(i, dim=0), lambda i: mg.std(i, correction=0), lambda i: mg.std(i, unbiased=True),
])
def test_pytorchs_spelling_of_the_mean_and_spread_functions_refuses_integers(call):
    with pytest.raises(TypeError, match="floating point or complex"):
        call(mg.tensor([[1, 2], [4, 7]]))


def test_numpys_spelling_of_the_mean_of_integers_is_answered_and_dtype_casts():
    i = mg.tensor([[1, 2], [4, 7]])
    _same(mg.mean(i, 0), [2.5, 4.5], "float64")
    _same(mg.var(i), 5.25, "float64")
    _same(mg.mean(i, dim=0, dtype=mg.float64), [2.5, 4.5], "float64")   # torch.mean(i, 0, dtype=float64)


# ------------------------------------------------------ keepdim=, angle of NaN
def test_keepdim_is_pytorchs_word_so_std_and_var_take_pytorchs_correction():
    x = mg.tensor([[1.5, -2.5, 0.5, 2.0], [0.0, 3.25, -0.75, 1.0], [2.0, 2.0, -1.0, 0.0]])
    _same(mg.std(x, keepdim=True), [[1.6108063]], "float32")        # torch.std(x, keepdim=True)
    _same(mg.var(x, 0, keepdim=True), [[1.0833334, 9.145833, 0.6458333, 1.0]], "float32")
    _same(mg.std(x, keepdims=True), [[1.5422295]], "float32")       # NumPy's keepdims=: ddof=0


def test_the_angle_of_nan_is_nan_in_numpy_and_pytorch_alike():
    _same(mg.angle(mg.tensor([1.0, NAN, -1.0, 0.0])), [0.0, NAN, math.pi, 0.0], "float32")
    _same(mg.tensor([NAN, -2.0]).angle(), [NAN, math.pi], "float32")


# ----------------------------------------- vdot conjugates; products check ranks
def test_vdot_conjugates_its_first_vector_as_numpy_and_pytorch_do():
    assert mg.tensor([1j, 2 + 1j]).vdot(mg.tensor([1j, 1 + 0j])).item() == pytest.approx(3 - 1j)   # torch: 3-1j
    assert mg.tensor([1.0, 2.0]).vdot(mg.tensor([3.0, 4.0])).item() == 11.0


@pytest.mark.parametrize("call", [
    lambda: mg.ones(2, 2).dot(mg.ones(2, 2)), lambda: mg.ones(2, 2).outer(mg.ones(2)),
    lambda: mg.ones(2, 2).ger(mg.ones(2)), lambda: mg.ones(2, 2, 2).mm(mg.ones(2, 2)),
    lambda: mg.ones(2, 2).bmm(mg.ones(2, 2)), lambda: mg.ones(2).mv(mg.ones(2)),
])
def test_a_fixed_rank_product_method_refuses_other_ranks_as_pytorch(call):
    with pytest.raises(ValueError, match="as PyTorch's"):          # not NumPy's dot/outer or matmul's answer
        call()


def test_the_fixed_rank_products_of_the_right_ranks_answer():
    assert mg.tensor([1.0, 2.0]).dot(mg.tensor([3.0, 4.0])).item() == 11.0
    assert mg.ones(2, 3).mm(mg.ones(3, 2)).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert mg.ones(2, 3).mv(mg.ones(3)).tolist() == [3.0, 3.0]
    assert mg.ones(4, 2, 3).bmm(mg.ones(4, 3, 1)).shape == (4, 2, 1)
    assert mg.tensor([1.0, 2.0]).outer(mg.tensor([1.0, 2.0, 3.0])).shape == (2, 3)
    assert mg.dot(mg.ones(2, 2), mg.ones(2, 2)).tolist() == [[2.0, 2.0], [2.0, 2.0]]   # NumPy's function keeps NumPy's
