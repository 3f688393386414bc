"""PyTorch's ``dim`` of a reduction: an empty list or tuple means every dim, and a 0-d tensor
answers to dim 0 and -1.  NumPy's ``axis=()`` (reduce nothing) and NumPy's refusal of axis 0
on a 0-d array stay where NumPy's spelling is used.

The expected values were made with torch 2.13 (CPU, float64) from
``x = torch.tensor([[1., 2.], [3., 5.]], dtype=torch.float64, requires_grad=True)``;
each row says the torch expression.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

X = [[1.0, 2.0], [3.0, 5.0]]

# name -> (mg reduction of x over PyTorch's empty dim, torch's value, torch's gradient of it)
EMPTY_DIM = {
    # x.sum(dim=()).backward()
    "sum": (lambda x, d: x.sum(dim=d), 11.0, [[1.0, 1.0], [1.0, 1.0]]),
    "sum_method_positional": (lambda x, d: x.sum(d), 11.0, [[1.0, 1.0], [1.0, 1.0]]),
    "sum_function": (lambda x, d: mg.sum(x, dim=d), 11.0, [[1.0, 1.0], [1.0, 1.0]]),
    # torch.mean(x, dim=[]), x.mean(())
    "mean": (lambda x, d: mg.mean(x, dim=d), 2.75, [[0.25, 0.25], [0.25, 0.25]]),
    "mean_method": (lambda x, d: x.mean(d), 2.75, [[0.25, 0.25], [0.25, 0.25]]),
    # x.nansum(()), torch.nanmean(x, dim=())
    "nansum": (lambda x, d: x.nansum(d), 11.0, [[1.0, 1.0], [1.0, 1.0]]),
    "nansum_function": (lambda x, d: mg.nansum(x, dim=d), 11.0, [[1.0, 1.0], [1.0, 1.0]]),
    "nanmean": (lambda x, d: mg.nanmean(x, dim=d), 2.75, [[0.25, 0.25], [0.25, 0.25]]),
    "nanmean_method": (lambda x, d: x.nanmean(d), 2.75, [[0.25, 0.25], [0.25, 0.25]]),
    # x.std(()) / torch.var(x, dim=[]): the values are torch's; its gradients there are +-inf
    # (a PyTorch bug: N taken as the product of no dims), so the gradients are those of x.std()
    # and torch.var(x) over every dim, which the empty dim means
    "std": (lambda x, d: x.std(d), 1.707825127659933,
            [[-0.3415650255319866, -0.14638501094227996], [0.04879500364742666, 0.43915503282683993]]),
    "std_function": (lambda x, d: mg.std(x, dim=d), 1.707825127659933,
                     [[-0.3415650255319866, -0.14638501094227996], [0.04879500364742666, 0.43915503282683993]]),
    "var": (lambda x, d: mg.var(x, dim=d), 2.9166666666666665,
            [[-1.1666666666666665, -0.5], [0.16666666666666666, 1.5]]),
    "var_method": (lambda x, d: x.var(d), 2.9166666666666665,
                   [[-1.1666666666666665, -0.5], [0.16666666666666666, 1.5]]),
    # sum(torch.std_mean(x)) and sum(torch.var_mean(x)) (the same values as with dim=())
    "std_mean": (lambda x, d: sum(mg.std_mean(x, dim=d)), 4.457825127659933,
                 [[-0.09156502553198659, 0.10361498905772004], [0.29879500364742667, 0.6891550328268399]]),
    "var_mean": (lambda x, d: sum(mg.var_mean(x, dim=d)), 5.666666666666666,
                 [[-0.9166666666666665, -0.25], [0.41666666666666663, 1.75]]),
    # torch.norm(x, dim=()), torch.linalg.vector_norm(x, dim=())
    "norm": (lambda x, d: mg.norm(x, dim=d), 6.244997998398398,
             [[0.16012815380508713, 0.32025630761017426], [0.48038446141526137, 0.8006407690254357]]),
    "norm_method": (lambda x, d: x.norm(dim=d), 6.244997998398398,
                    [[0.16012815380508713, 0.32025630761017426], [0.48038446141526137, 0.8006407690254357]]),
    "vector_norm": (lambda x, d: mg.linalg.vector_norm(x, dim=d), 6.244997998398398,
                    [[0.16012815380508713, 0.32025630761017426], [0.48038446141526137, 0.8006407690254357]]),
    # torch.logsumexp(x, dim=(), keepdim=True) (without keepdim torch 2.13 raises a shape error)
    "logsumexp": (lambda x, d: mg.logsumexp(x, dim=d), 5.185182452603812,
                  [[0.015219428864155931, 0.041370696920960154], [0.11245721367093256, 0.8309526605439516]]),
    "logsumexp_method": (lambda x, d: x.logsumexp(d), 5.185182452603812,
                         [[0.015219428864155931, 0.041370696920960154], [0.11245721367093256, 0.8309526605439516]]),
    "special_logsumexp": (lambda x, d: mg.special.logsumexp(x, dim=d), 5.185182452603812,
                          [[0.015219428864155931, 0.041370696920960154], [0.11245721367093256, 0.8309526605439516]]),
    # x.amax(()) (torch.prod refuses a tuple dim; mg's empty dim is every dim there too: x.prod())
    "amax": (lambda x, d: x.amax(d), 5.0, [[0.0, 0.0], [0.0, 1.0]]),
    "prod": (lambda x, d: mg.prod(x, dim=d), 30.0, [[30.0, 15.0], [10.0, 6.0]]),
    "prod_method": (lambda x, d: x.prod(d), 30.0, [[30.0, 15.0], [10.0, 6.0]]),
}


@pytest.mark.parametrize("empty", [(), []], ids=["tuple", "list"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EMPTY_DIM))
def test_an_empty_dim_reduces_every_dim_with_its_gradient(name, dtype, empty):
    reduce, value, grad = EMPTY_DIM[name]
    tol = 1e-6 if dtype == "float32" else 1e-12
    x = mg.tensor(X, dtype=dtype, requires_grad=True)
    out = reduce(x, empty)
    assert out.shape == () and out.dtype == dtype
    np.testing.assert_allclose(out.item(), value, rtol=tol)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=tol, atol=tol)
    # forward mode: the tangent is the gradient's dot product with the direction
    direction = mg.tensor([[1.0, 0.0], [0.5, -1.0]], dtype=dtype)
    _, tangent = mg.func.jvp(lambda v: reduce(v, empty), (x.detach(),), (direction,))
    np.testing.assert_allclose(tangent.item(), float(np.sum(np.array(grad) * direction.numpy())), rtol=1e-5, atol=tol)


@pytest.mark.parametrize("name", ["std", "var", "norm", "logsumexp", "prod", "mean"])
def test_an_empty_dims_second_derivative_is_every_dims(name):
    reduce = EMPTY_DIM[name][0]
    x = mg.tensor(X, dtype="float64")
    every = mg.func.hessian(lambda v: reduce(v, None))(x).numpy()
    np.testing.assert_allclose(mg.func.hessian(lambda v: reduce(v, ()))(x).numpy(), every, rtol=1e-12, atol=1e-14)
    if name == "std":  # torch.func.hessian(lambda v: v.std())(x)[0, 0, 0]
        assert every[0, 0, 0, 0] == pytest.approx(0.07807200583588264, rel=1e-12)


def test_an_empty_dim_keeps_every_dim_with_keepdim_and_counts_integers():
    x = mg.tensor(X)
    assert mg.sum(x, dim=[], keepdim=True).shape == (1, 1)          # x.sum(dim=[], keepdim=True): [[11.]]
    assert x.std(dim=(), keepdim=True).shape == (1, 1)
    i = mg.tensor([[0, 2], [3, 0]])
    assert mg.count_nonzero(i, dim=()).item() == 2                  # torch.count_nonzero(i, dim=()): 2
    assert i.count_nonzero([]).item() == 2
    assert mg.sum(i, dim=()).item() == 5 and mg.sum(i, dim=()).dtype == "int64"
    assert [t.item() for t in mg.aminmax(x, dim=())] == [1.0, 5.0]   # mg.amin and mg.amax over every dim


def test_all_and_any_with_an_empty_dim_reduce_nothing_as_pytorchs():
    # torch.all(x, dim=()) and x.any([]) are each element's truth, a bool tensor of x's shape
    x = mg.tensor([[0.0, 2.0], [3.0, 0.0]])
    truth = [[False, True], [True, False]]
    for out in (mg.all(x, dim=()), mg.any(x, dim=[]), x.all(()), x.any([]), x.all(dim=[])):
        assert out.dtype == "bool" and out.tolist() == truth


def test_numpys_axis_spelling_keeps_numpys_empty_axis():
    x = mg.tensor(X)
    assert mg.sum(x, axis=()).tolist() == X and x.sum(axis=()).tolist() == X   # np.sum(a, axis=()): a
    assert mg.sum(x, ()).tolist() == X          # the function's positional axis is NumPy's
    assert x.sum(()).item() == 11.0             # the method's is PyTorch's dim


# ---------------------------------------------------------------- a 0-d tensor and dim 0 / -1
# torch.tensor(3.).amax(0) and the rest: each answers as if the tensor had one dim of length 1
ZERO_D = {
    "amax": (lambda z, d: z.amax(d), 3.0, 1.0),
    "amin": (lambda z, d: mg.amin(z, d), 3.0, 1.0),
    "amax_keepdim": (lambda z, d: z.amax(d, True), 3.0, 1.0),
    "sum": (lambda z, d: z.sum(d), 3.0, 1.0),
    "sum_keepdim": (lambda z, d: z.sum(d, True), 3.0, 1.0),
    "prod": (lambda z, d: z.prod(d), 3.0, 1.0),
    "mean": (lambda z, d: z.mean(d), 3.0, 1.0),
    "logsumexp": (lambda z, d: z.logsumexp(d), 3.0, 1.0),
    "std": (lambda z, d: z.std(d), math.nan, math.nan),            # one element, Bessel's correction
    "var": (lambda z, d: z.var(d), math.nan, math.nan),
    "var_uncorrected": (lambda z, d: z.var(d, unbiased=False), 0.0, 0.0),
    "std_mean": (lambda z, d: mg.std_mean(z, dim=d)[1], 3.0, 1.0),
    "var_mean": (lambda z, d: mg.var_mean(z, dim=d, correction=0)[0], 0.0, 0.0),
    "max_values": (lambda z, d: z.max(d).values, 3.0, 1.0),
    "min_values": (lambda z, d: mg.min(z, dim=d).values, 3.0, 1.0),
    "cumsum": (lambda z, d: z.cumsum(d), 3.0, 1.0),
    "softmax": (lambda z, d: z.softmax(d), 1.0, 0.0),
    "norm": (lambda z, d: mg.linalg.vector_norm(z, dim=d), 3.0, 1.0),
    "normalize": (lambda z, d: mg.nn.functional.normalize(z, dim=d), 1.0, 0.0),  # F.normalize(z, dim=0)
}


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ZERO_D))
def test_a_0d_tensor_answers_to_dim_0_and_minus_1(name, dtype, dim):
    reduce, value, grad = ZERO_D[name]
    z = mg.tensor(3.0, dtype=dtype, requires_grad=True)
    out = reduce(z, dim)
    assert out.shape == () and out.dtype == dtype
    np.testing.assert_equal(out.item(), value)
    out.backward()
    np.testing.assert_equal(z.grad.item(), grad)
    _, tangent = mg.func.jvp(lambda v: reduce(v, dim), (z.detach(),), (mg.tensor(2.0, dtype=dtype),))
    np.testing.assert_equal(tangent.item(), 2 * grad)


def test_a_0d_tensors_argmax_and_pairs_with_dim_0():
    z = mg.tensor(3.0)
    # torch.tensor(3.).argmax(0), .argmin(-1, True), torch.std_mean(z, dim=0): 0, 0, (nan, 3.)
    assert z.argmax(0).item() == 0 and z.argmin(-1, True).shape == () and z.argmax(dim=0).item() == 0
    std, mean = mg.std_mean(z, dim=0)
    assert math.isnan(std.item()) and mean.item() == 3.0
    with pytest.raises(ValueError, match="out of bounds"):
        z.amax(1)
    with pytest.raises(ValueError, match="out of bounds"):
        mg.sum(z, axis=0)                                            # NumPy's spelling keeps NumPy's rule


# ---------------------------------------------------------------- dtype= casts the input first
# torch 2.13, f = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True):
# f.prod(dtype=torch.float32) is 24. (float32), f.grad [[24., 12.], [8., 6.]] (float64);
# torch.cumsum(f, dim=1, dtype=torch.float32).sum(): 14., grad [[2., 1.], [2., 1.]];
# torch.cumprod(f, 1, dtype=torch.float32).sum(): 18., grad [[3., 1.], [5., 3.]]
DTYPE_CASES = {
    "sum": (lambda x, dt: x.sum(dtype=dt), 10.0, [[1.0, 1.0], [1.0, 1.0]]),
    "sum_dim": (lambda x, dt: mg.sum(x, dim=0, dtype=dt).sum(), 10.0, [[1.0, 1.0], [1.0, 1.0]]),
    "sum_numpy": (lambda x, dt: mg.sum(x, 0, dtype=dt).sum(), 10.0, [[1.0, 1.0], [1.0, 1.0]]),
    "prod": (lambda x, dt: x.prod(dtype=dt), 24.0, [[24.0, 12.0], [8.0, 6.0]]),
    "mean": (lambda x, dt: mg.mean(x, dtype=dt), 2.5, [[0.25, 0.25], [0.25, 0.25]]),
    "cumsum": (lambda x, dt: mg.cumsum(x, dim=1, dtype=dt).sum(), 14.0, [[2.0, 1.0], [2.0, 1.0]]),
    "cumprod": (lambda x, dt: mg.cumprod(x, 1, dtype=dt).sum(), 18.0, [[3.0, 1.0], [5.0, 3.0]]),
}


@pytest.mark.parametrize(("source", "target"), [("float64", "float32"), ("float32", "float64")])
@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_dtype_casts_the_input_and_the_gradient_comes_back_in_its_dtype(name, source, target):
    reduce, value, grad = DTYPE_CASES[name]
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=source, requires_grad=True)
    out = reduce(x, target)
    assert out.dtype == target and out.item() == value
    out.backward()
    assert x.grad.dtype == source and x.grad.tolist() == grad
    direction = mg.ones(2, 2, dtype=source)
    _, tangent = mg.func.jvp(lambda v: reduce(v, target), (x.detach(),), (direction,))
    assert tangent.dtype == target and tangent.item() == sum(map(sum, grad))


def test_an_integer_dtype_is_the_results_dtype():
    # torch.tensor([[1, 2], [3, 4]], dtype=torch.int32).sum(dtype=torch.int32).dtype: int32 (int64 without);
    # .cumsum(0, dtype=torch.int32): int32; .mean(dtype=torch.float32): 2.5
    i = mg.tensor([[1, 2], [3, 4]], dtype="int32")
    assert i.sum(dtype="int32").dtype == "int32" and i.sum().dtype == "int64"
    assert i.cumsum(0, dtype="int32").dtype == "int32" and i.prod(dtype="int32").item() == 24
    assert i.mean(dtype="float32").item() == 2.5 and mg.mean(i, dtype="float32").dtype == "float32"


def test_second_derivatives_pass_the_dtype_cast():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    through_float32 = mg.func.hessian(lambda v: v.prod(dtype="float32"))(x)
    assert through_float32.dtype == "float64"    # the gradient of the cast is cast back
    np.testing.assert_allclose(through_float32.numpy(), mg.func.hessian(lambda v: v.prod())(x).numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normalize_over_an_empty_dim_divides_by_the_whole_norm(dtype):
    # torch.nn.functional.normalize(x, dim=()) for x = [[1., 2.], [3., 5.]]: x / 6.244997998398398;
    # with p=1: x / 11; the gradient of .sum() (torch, float64) below
    x = mg.tensor(X, dtype=dtype, requires_grad=True)
    out = mg.nn.functional.normalize(x, dim=())
    np.testing.assert_allclose(out.detach().numpy(), np.array(X) / 6.244997998398398, rtol=1e-6)
    np.testing.assert_allclose(mg.nn.functional.normalize(x, p=1, dim=[]).detach().numpy(), np.array(X) / 11,
                               rtol=1e-6)
    out.sum().backward()
    every = mg.tensor(X, dtype=dtype, requires_grad=True)
    mg.nn.functional.normalize(every.reshape(-1), dim=0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), every.grad.numpy(), rtol=1e-6)


def test_a_0d_tensor_refuses_other_dims_in_a_vector_norm():
    # torch.linalg.vector_norm(torch.tensor(3.), dim=1) and F.normalize(torch.tensor(3.)) (dim=1): IndexError
    z = mg.tensor(3.0)
    with pytest.raises(ValueError, match="out of bounds"):
        mg.linalg.vector_norm(z, dim=1)
    with pytest.raises(ValueError, match="out of bounds"):
        mg.nn.functional.normalize(z)
