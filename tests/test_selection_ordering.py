"""Selection and ordering (``kthvalue``, ``median``, ``quantile``, ``mode``, ``cummax``,
``logcumsumexp``, ``unique``, ``searchsorted``, ``histc``, ``bincount``, ...): values against
NumPy, gradients in both modes and to second order, the strict device, NumPy's and PyTorch's
meanings of ``median``, and the errors.  PyTorch's answers are in ``test_operators_vs_torch.py``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from operator_checks import check_everywhere

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

rng = np.random.default_rng(5)


def distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def test_kthvalue_and_topk_pick_order_statistics():
    x = distinct(3, 5)
    values, indices = mg.kthvalue(mg.tensor(x), 2, 1)
    assert np.array_equal(values.numpy(), np.sort(x, 1)[:, 1])
    assert np.array_equal(np.take_along_axis(x, indices.numpy()[:, None], 1)[:, 0], values.numpy())
    assert mg.topk(mg.tensor(x), 2).values.shape == (3, 2)
    check_everywhere(lambda t: mg.kthvalue(t, 3, 0, keepdim=True).values, x)
    assert mg.kthvalue(mg.tensor(2.0), 1).values.shape == ()


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_is_numpys_and_differentiates(method):
    x = distinct(4, 7)
    q = [0.0, 0.3, 0.5, 0.95, 1.0]
    got = mg.quantile(mg.tensor(x), q, axis=1, method=method, keepdims=True)
    np.testing.assert_allclose(got.numpy(), np.quantile(x, q, axis=1, method=method, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(mg.quantile(mg.tensor(x), 0.37, method=method).numpy(),
                               np.quantile(x, 0.37, method=method), rtol=1e-14)
    check_everywhere(lambda t: mg.quantile(t, [0.3, 0.8], dim=1, interpolation=method), x)


# torch 2.13's torch.quantile(x, 0.5, interpolation="midpoint") (NumPy's method="midpoint" alike): a lerp at
# weight 0.5 from the upper end, b - (b - a) * 0.5 -- not the mean (a + b) / 2, which overflows at
# [1e308, 1.7e308], gives inf at [inf, inf] and does not cancel at [-1000 + ulp, 1000].  NumPy's median
# (median without dim) is that mean, as np.median.
_MIDPOINTS = [([np.inf, np.inf], np.nan, np.inf), ([1.0, np.inf], np.nan, np.inf),
              ([-np.inf, -np.inf], np.nan, -np.inf), ([1e308, 1.7e308], 1.35e308, np.inf),
              ([-999.9999999999999, 1000.0], 0.0, 5.684341886080802e-14)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("x, midpoint, median", _MIDPOINTS)
def test_the_midpoint_quantile_is_pytorchs_lerp_and_the_median_numpys_mean(x, midpoint, median, device):
    t = mg.tensor(np.asarray(x), device=device, requires_grad=True)
    with np.errstate(all="ignore"):
        got = mg.quantile(t, 0.5, method="midpoint")
        np.testing.assert_array_equal(got.numpy(), midpoint)
        np.testing.assert_array_equal(mg.quantile(t, [0.5], interpolation="midpoint").numpy(), [midpoint])
        np.testing.assert_array_equal(mg.median(t).numpy(), median)
        (g,) = mg.grad(got, [t])
    np.testing.assert_array_equal(g.numpy(), [0.5, 0.5])


def test_nan_aware_quantiles_and_medians():
    x = np.array([[1.0, np.nan, 3.0, 0.0], [2.0, 0.5, -1.0, 7.0], [np.nan] * 4])
    np.testing.assert_array_equal(mg.quantile(mg.tensor(x), 0.3, axis=1).numpy(), np.quantile(x, 0.3, axis=1))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanquantile(x, 0.3, axis=1)
    np.testing.assert_allclose(mg.nanquantile(mg.tensor(x), 0.3, axis=1).numpy(), want, rtol=1e-14)
    np.testing.assert_array_equal(mg.median(mg.tensor(x), 1).numpy(), np.median(x, 1))
    with pytest.warns(RuntimeWarning):
        want = np.nanmedian(x, 1)
    np.testing.assert_array_equal(mg.nanmedian(mg.tensor(x), 1).numpy(), want)
    check_everywhere(lambda t: mg.nanquantile(t, [0.2, 0.7], dim=1), x[:2])


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
@pytest.mark.parametrize("shape, dim", [((0,), None), ((2, 0), 1), ((0, 3), 0), ((0, 3), 1)])
@pytest.mark.parametrize("fn", [mg.quantile, mg.nanquantile])
def test_quantile_of_an_empty_input_is_pytorchs_runtime_error(fn, shape, dim, device, dtype):
    # torch 2.13: torch.quantile(torch.zeros(2, 0), 0.5, 1) and torch.nanquantile(torch.zeros(0, 3), 0.5, 1)
    # raise RuntimeError "quantile() input tensor must be non-empty" (any empty input, even along a
    # non-empty dim); the engine raised IndexError, and returned an empty tensor for zeros(0, 3) along dim 1
    x = mg.zeros(*shape, dtype=dtype, device=device)
    for q in (0.5, mg.tensor([0.2, 0.5], dtype=dtype, device=device)):
        with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
            fn(x, q, dim)
        with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
            fn(x, q, dim=dim, keepdim=True)


def test_median_is_numpys_mean_of_the_middle_and_pytorchs_lower_value_with_dim():
    x = distinct(3, 6)
    np.testing.assert_array_equal(mg.median(mg.tensor(x), 1).numpy(), np.median(x, 1))   # NumPy: the mean
    np.testing.assert_array_equal(mg.median(mg.tensor(x)).numpy(), np.median(x))
    lower = np.sort(x, 1)[:, 2]
    values, indices = mg.median(mg.tensor(x), dim=1)                                     # PyTorch: the lower
    assert np.array_equal(values.numpy(), lower) and np.array_equal(x[np.arange(3), indices.numpy()], lower)
    assert np.array_equal(mg.tensor(x).median(1).values.numpy(), lower)
    assert mg.tensor(x).median().item() == np.sort(x.ravel())[(x.size - 1) // 2]
    assert mg.median(mg.tensor([1, 2, 3, 4])).item() == 2.5 and mg.tensor([1, 2, 3, 4]).median().item() == 2
    check_everywhere(lambda t: mg.median(t, 1), x)
    check_everywhere(lambda t: mg.median(t, dim=1).values, x)
    check_everywhere(lambda t: mg.nanmedian(t, dim=0).values, x)


def test_mode_cummax_cummin():
    x = np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 4.0, 4.0, 5.0, 5.0]])
    values, indices = mg.mode(mg.tensor(x), 1)
    assert values.tolist() == [1.0, 5.0] and indices.tolist() == [3, 4]
    y = distinct(4, 5)
    values, indices = mg.cummax(mg.tensor(y), 1)
    np.testing.assert_array_equal(values.numpy(), np.maximum.accumulate(y, 1))
    np.testing.assert_array_equal(mg.cummin(mg.tensor(y), 0).values.numpy(), np.minimum.accumulate(y, 0))
    assert mg.cummax(mg.tensor([1.0, 3.0, 3.0, 2.0]), 0).indices.tolist() == [0, 1, 2, 2]  # the last tie
    check_everywhere(lambda t: mg.cummax(t, 1).values, y)
    check_everywhere(lambda t: mg.cummin(t, 0).values, y)
    check_everywhere(lambda t: mg.mode(t, 0).values, x)


def test_logcumsumexp_is_stable_at_any_spread():
    x = rng.standard_normal((3, 6)) * 20
    np.testing.assert_allclose(mg.logcumsumexp(mg.tensor(x), 1).numpy(), np.logaddexp.accumulate(x, 1), rtol=1e-13)
    wide = np.array([-1000.0, 0.0, 800.0, -5.0])
    np.testing.assert_allclose(mg.logcumsumexp(mg.tensor(wide), 0).numpy(), np.logaddexp.accumulate(wide),
                               rtol=1e-15)
    check_everywhere(lambda t: mg.logcumsumexp(t, 1), x[:, :4] / 10)
    check_everywhere(lambda t: mg.logcumsumexp(t, 0), wide)



@pytest.mark.parametrize("n", [65, 128, 4097])  # padded, whole blocks, the blocks' totals in blocks too
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_logcumsumexp_of_a_long_row_keeps_its_dtype(n, dtype):
    """A row longer than one block (64) is taken in blocks, padded with -inf and started from a
    total of -inf: those constants must be of the row's dtype, or float32 came back float64."""
    x = (rng.standard_normal((2, n)) * 10).astype(dtype)
    if dtype == np.complex64:
        x = x + 1j * rng.standard_normal((2, n)).astype(np.float32)
    got = mg.logcumsumexp(mg.tensor(x), 1)
    assert got.dtype == mg.tensor(x).dtype
    want = np.log(np.cumsum(np.exp(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)), 1))
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(np.exp(got.numpy()) if x.dtype.kind == "c" else got.numpy(),
                               np.exp(want) if x.dtype.kind == "c" else want, rtol=tol, atol=tol)


def test_logcumsumexp_of_a_long_row_everywhere():
    x = rng.standard_normal((1, 70)) * 3
    check_everywhere(lambda t: mg.logcumsumexp(t, 1), x, second_order=False)
    x[0, :2] = -np.inf  # an all -inf prefix passes gradient 0, not NaN
    t = mg.tensor(x, requires_grad=True)
    mg.logcumsumexp(t, 1).sum().backward()
    assert (t.grad.numpy()[0, :2] == 0).all() and np.isfinite(t.grad.numpy()).all()

def test_unique_searchsorted_bucketize_histc_bincount():
    i = np.array([[3, 1], [1, 2], [3, 3]])
    for got, want in zip(mg.unique(mg.tensor(i), True, True, True), np.unique(i, True, True, True)):
        np.testing.assert_array_equal(got.numpy(), want)
    rows, inverse = mg.tensor(i).unique(dim=1, return_inverse=True)
    np.testing.assert_array_equal(rows.numpy(), np.unique(i, axis=1))
    assert inverse.shape == (2,)
    a, v = np.array([1.0, 2.0, 2.0, 3.0]), np.array([[2.0, 0.0], [2.5, 9.0]])
    for side in ("left", "right"):
        np.testing.assert_array_equal(mg.searchsorted(mg.tensor(a), mg.tensor(v), side).numpy(),
                                      np.searchsorted(a, v, side))
    assert mg.searchsorted(mg.tensor(a), mg.tensor(v), right=True, out_int32=True).dtype == mg.int32
    assert mg.bucketize(mg.tensor(v), mg.tensor(a)).tolist() == np.searchsorted(a, v).tolist()
    x = rng.standard_normal(50)
    np.testing.assert_array_equal(mg.histc(mg.tensor(x), 7, -1, 1).numpy(), np.histogram(x, 7, (-1, 1))[0])
    c = np.array([1, 1, 3, 0])
    np.testing.assert_array_equal(mg.bincount(mg.tensor(c), minlength=6).numpy(), np.bincount(c, minlength=6))
    w = rng.standard_normal(4)
    np.testing.assert_allclose(mg.bincount(mg.tensor(c), w).numpy(), np.bincount(c, w))
    check_everywhere(lambda t: mg.bincount(mg.tensor(c, device=t.device), t), w)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("shape", [(0,), (0, 2, 3)])
def test_the_median_of_an_empty_float_tensor_is_nan(shape, name, dtype, device):
    # torch.median(torch.zeros(0)) and torch.nanmedian -> tensor(nan) in the input's dtype (np.median too);
    # backward gives an empty gradient, forward mode a zero tangent. mg.median and mg.nanmedian raised
    # "median() input tensor must be non-empty" (x.median() answered).
    x = mg.zeros(*shape, dtype=dtype, device=device, requires_grad=True)
    for out in (getattr(mg, name)(x), getattr(x, name)()):
        assert out.shape == () and out.dtype == dtype and out.device == x.device and math.isnan(out.item())
        (g,) = mg.grad(out, [x])
        assert g.shape == shape and g.dtype == dtype
    assert getattr(mg, name)(x, keepdims=True).shape == (1,) * len(shape)  # np.median(..., keepdims=True)
    _, tangent = mg.func.jvp(lambda t: getattr(t, name)(), (x.detach(),), (mg.zeros_like(x),))
    assert tangent.item() == 0.0
    _, tangent = mg.func.jvp(lambda t: getattr(mg, name)(t), (x.detach(),), (mg.zeros_like(x),))
    assert tangent.item() == 0.0


# torch 2.13 on x86: torch.tensor([], dtype=d).median() (and nanmedian) is NaN converted to d, as its kernel
# fills it: 0 for 8- and 16-bit integers, the minimum for int32 and int64, True for bool (whose non-empty
# median has no kernel). The engine gave a float32 NaN. mg.median(x) without dim is NumPy's median, whose
# answer for integers is a float64 (its mean of the middle two): NaN there.
_EMPTY_INTEGER_MEDIANS = [("uint8", 0), ("int8", 0), ("int16", 0), ("int32", -2 ** 31), ("int64", -2 ** 63),
                          ("bool", True)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype, value", _EMPTY_INTEGER_MEDIANS)
def test_the_median_of_an_empty_integer_tensor_is_pytorchs_nan_in_its_dtype(dtype, value, name, device):
    x = mg.tensor([], dtype=dtype, device=device)
    out = getattr(x, name)()
    assert out.shape == () and out.dtype == dtype and out.device == x.device and out.item() == value
    numpys = getattr(mg, name)(x)
    assert numpys.dtype == mg.float64 and math.isnan(numpys.item())


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("weight_dtype", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_counts_every_integer_dtype(dtype, weight_dtype, device):
    # torch.bincount(torch.tensor([2, 0, 1, 2], dtype=torch.uint8), weights=torch.tensor([1., 2., 3., 4.]),
    # minlength=5) -> [2., 3., 5., 0., 0.] in the weights' dtype, as for every integer dtype; without weights
    # [1, 1, 2] (int64). The engine read a uint8 input as a boolean mask when it summed the weights
    # (IndexError: boolean index of shape (4,) does not match...). PyTorch has no derivative for bincount;
    # the engine's, with respect to the weights, is its scatter's.
    x = mg.tensor([2, 0, 1, 2], dtype=dtype, device=device)
    w = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=weight_dtype, device=device, requires_grad=True)
    counts = mg.bincount(x)
    assert counts.dtype == mg.int64 and counts.tolist() == [1, 1, 2]
    assert mg.bincount(x, minlength=5).tolist() == [1, 1, 2, 0, 0]
    sums = mg.bincount(x, weights=w, minlength=5)
    assert sums.dtype == weight_dtype and sums.device == x.device and sums.tolist() == [2.0, 3.0, 5.0, 0.0, 0.0]
    assert mg.bincount(x, w).tolist() == [2.0, 3.0, 5.0]
    (g,) = mg.grad((sums * mg.arange(5.0, dtype=weight_dtype, device=device)).sum(), [w])
    assert g.dtype == weight_dtype and g.tolist() == [2.0, 0.0, 1.0, 2.0]
    c = np.array([2, 0, 1, 2], dtype=dtype)
    check_everywhere(lambda t: mg.bincount(mg.tensor(c, device=t.device), t, minlength=4), rng.standard_normal(4))


def test_results_stay_on_the_strict_device():
    x = mg.tensor(distinct(3, 4), device="strict")
    for out in (mg.unique(x), mg.histc(x, 3), mg.searchsorted(mg.sort(x[0]), x), mg.mode(x).indices,
                mg.cummax(x, 1).indices, mg.median(x, dim=0).indices):
        assert out.device == x.device


def test_errors_name_the_problem():
    x = mg.tensor(distinct(3, 4))
    with pytest.raises(IndexError, match=r"selected number k out of range for dimension 1 \(k=5, 1 <= k <= 4\)"):
        mg.kthvalue(x, 5)
    with pytest.raises(ValueError, match=r"quantile: q must lie in \[0, 1\]"):
        mg.quantile(x, 1.5)
    with pytest.raises(ValueError, match="interpolation must be one of"):
        mg.quantile(x, 0.5, method="cubic")
    with pytest.raises(TypeError, match="float tensor"):
        mg.quantile(mg.tensor([1, 2]), 0.5)
    with pytest.raises(TypeError, match="either axis= or dim="):
        mg.median(x, 0, dim=1)
    with pytest.raises(TypeError, match="bincount: input must be a 1-D integer tensor"):
        mg.bincount(x)
    with pytest.raises(ValueError, match="non-negative"):
        mg.bincount(mg.tensor([1, -1]))
    with pytest.raises(ValueError, match="boundaries tensor must be 1 dimension"):
        mg.bucketize(x, x)
    with pytest.raises(ValueError, match="histc: min 2 is above max 1"):
        mg.histc(x, 4, 2, 1)


def test_unique_consecutive_and_histogram():
    i = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = mg.unique_consecutive(mg.tensor(i), return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1, 2] and counts.tolist() == [2, 2, 1, 2, 1]
    assert np.array_equal(values.numpy()[inverse.numpy()], i)
    x, w = rng.standard_normal(40), rng.random(40)
    hist, edges = mg.histogram(mg.tensor(x), 6, (-2, 2), weights=mg.tensor(w))
    want, want_edges = np.histogram(x, 6, (-2, 2), weights=w)
    np.testing.assert_allclose(hist.numpy(), want) and np.testing.assert_allclose(edges.numpy(), want_edges)


def test_under_checkpointing_the_gradients_are_bit_for_bit_the_same():
    x = mg.tensor(distinct(4, 5), requires_grad=True)

    def block(t):
        ordered = mg.quantile(t, [0.25, 0.75], dim=1) + mg.cummax(t, 1).values[:, -1]
        return mg.logcumsumexp(ordered, 1) * mg.median(t, dim=0).values[:2].sum()

    plain = mg.grad(block(x).sum(), [x])[0]
    kept = mg.grad(mg.checkpoint.checkpoint(block, x).sum(), [x])[0]
    np.testing.assert_array_equal(plain.numpy(), kept.numpy())


def test_in_place_twins_of_the_new_methods():
    x = mg.tensor([float("nan"), 2.5, -1.5])
    with mg.no_grad():
        x.nan_to_num_(0.0)
        x.floor_divide_(2)
        x.copysign_(-1.0)
    assert x.tolist() == [-0.0, -1.0, -1.0]   # nan -> 0 -> -0; 2.5 // 2 = 1 -> -1; -1.5 // 2 = -1
    leaf = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.nan_to_num_()


# torch 2.13: torch.tensor(values).mode() -- a NaN equals nothing, so each counts once, and
# where NaNs sit decides ties: torch sorts with `<`, which a NaN never satisfies
NAN = math.nan
MODE_WITH_NANS = [
    ([NAN, NAN, NAN, 1.0, 1.0, 2.0], 1.0, 4),
    ([NAN, NAN, 1.0, 1.0], 1.0, 3),
    ([NAN, NAN, 1.0, 1.0, 1.0], 1.0, 4),
    ([1.0, NAN, 2.0], 1.0, 0),
    ([NAN, NAN, NAN], NAN, 0),
    ([NAN, NAN, 1.0], NAN, 0),
    ([3.0, NAN, 2.0, 1.0], 1.0, 3),       # 2 and 1 jump to the front past the NaN; 3 stays behind it
    ([3.0, NAN, NAN, 3.0], 3.0, 0),       # the two 3s, a NaN between them, are two runs of one
    ([3.0, NAN, 2.0, 2.0], 2.0, 2),
]


TORCH_MODE_VALUES = [2.0, 0.0, 1.0, 3.0, 2.0, 0.0]
TORCH_MODE_INDICES = [6, 8, 8, 2, 5, 5]       # row 3, [3 0 3 nan 3 0 1 2 nan]: the 3 at 2, not at 4


def test_mode_of_rows_with_nans_matches_pytorchs_up_to_16_elements():
    # torch.tensor(rows).mode(1) for these rows (rng = np.random.default_rng(5), values 0..3, 30% NaN)
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 4, (6, 9)).astype(np.float64)
    rows[rng.random((6, 9)) < 0.3] = NAN
    m = mg.tensor(rows).mode(1)
    np.testing.assert_array_equal(m.values.numpy(), TORCH_MODE_VALUES)
    assert m.indices.tolist() == TORCH_MODE_INDICES


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("values", "value", "index"), MODE_WITH_NANS)
def test_mode_counts_each_nan_once_as_pytorch(values, value, index, dtype):
    x = mg.tensor(values, dtype=dtype, requires_grad=True)
    m = x.mode()
    np.testing.assert_equal(m.values.item(), value)
    assert m.indices.item() == index and m.values.dtype == dtype
    m.values.backward()                                       # the gradient goes to that element
    assert x.grad.tolist() == [1.0 if i == index else 0.0 for i in range(len(values))]
    _, t = mg.func.jvp(lambda v: v.mode().values, (x.detach(),), (mg.arange(len(values), dtype=dtype),))
    assert t.item() == index


def test_mode_of_bools_and_integers():
    # torch.tensor([True, False, True]).mode(); torch.tensor([[True, False, True], [False, False, True]]).mode(1)
    m = mg.tensor([True, False, True]).mode()
    assert m.values.item() is True and m.values.dtype == "bool" and m.indices.item() == 2
    rows = mg.tensor([[True, False, True], [False, False, True]]).mode(1)
    assert rows.values.tolist() == [True, False] and rows.indices.tolist() == [2, 1]
    assert mg.tensor([1, 1, 2]).mode().indices.item() == 1
    assert mg.tensor([1, 1, 2], dtype="uint8").mode().values.item() == 1
