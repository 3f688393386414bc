"""The calls that ``tests/test_operators_vs_torch.py`` replays against PyTorch's stored answers.

Each case is written once, against a library ``T`` that is either ``torch`` (when
``tests/data/make_torch_operators.py`` makes the fixture, offline) or ``minigrad_ckpt``
(in the test): both spell these operators and methods alike.  ``inputs`` are NumPy
arrays from a fixed seed; float64 ones are differentiable in both runs (the fixture
stores the gradient of ``sum(out_i * cot_i)`` for each), integer and bool ones are
indices and masks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


class Case(NamedTuple):
    name: str
    inputs: dict[str, np.ndarray]
    call: Callable[..., Any]  # call(T, **tensors)
    #: why the gradients deliberately differ from PyTorch's (then only the values are compared;
    #: each reason is a convention listed in docs/ops.md and tested on its own)
    gradient_differs: str = ""


_rng = np.random.default_rng(20261202)


def randn(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def distinct(*shape: int) -> np.ndarray:
    """Values without ties (a gradient through a max, a sort or a median is then unique)."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def ints(hi: int, *shape: int) -> np.ndarray:
    return _rng.integers(0, hi, size=shape).astype(np.int64)


def _perm_index(n: int, k: int, cols: int) -> np.ndarray:
    """A scatter index with distinct rows per column (an overwrite without repeats)."""
    return np.stack([_rng.permutation(n)[:k] for _ in range(cols)], axis=1).astype(np.int64)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e308, -5e-324])

CASES: list[Case] = [
    # ---- gather / scatter
    Case("gather_dim1", {"x": randn(3, 4), "i": ints(4, 3, 5)}, lambda T, x, i: T.gather(x, 1, i)),
    Case("gather_smaller_index", {"x": randn(4, 5), "i": ints(4, 2, 3)}, lambda T, x, i: x.gather(0, i)),
    Case("gather_empty_index", {"x": randn(3, 4), "i": ints(4, 3, 0)}, lambda T, x, i: T.gather(x, 1, i)),
    Case("scatter_src", {"x": randn(5, 3), "i": _perm_index(5, 4, 3), "s": randn(4, 3)},
         lambda T, x, i, s: T.scatter(x, 0, i, s)),
    Case("scatter_value", {"x": randn(5, 3), "i": ints(5, 2, 3)}, lambda T, x, i: x.scatter(0, i, 2.5)),
    Case("scatter_add_repeats", {"x": randn(4, 3), "i": ints(4, 6, 3), "s": randn(6, 3)},
         lambda T, x, i, s: T.scatter_add(x, 0, i, s)),
    Case("scatter_add_larger_src", {"x": randn(4, 3), "i": ints(3, 2, 2), "s": randn(3, 5)},
         lambda T, x, i, s: x.scatter_add(1, i, s)),
    *[Case(f"scatter_reduce_{r}_{inc}", {"x": distinct(4, 3), "i": ints(4, 6, 3), "s": distinct(6, 3)},
           lambda T, x, i, s, r=r, inc=inc: T.scatter_reduce(x, 0, i, s, r, include_self=inc))
      for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)],
    Case("scatter_reduce_amax_ties", {"x": np.array([1.0, 2.0, 0.0]), "i": np.array([0, 0, 2, 2]),
                                      "s": np.array([1.0, 1.0, 3.0, -1.0])},
         lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, "amax")),
    Case("scatter_reduce_prod_zero", {"x": np.array([2.0, 0.0, 3.0]), "i": np.array([0, 0, 1, 2]),
                                      "s": np.array([0.0, 4.0, 5.0, 0.0])},
         lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, "prod")),
    Case("index_add", {"x": randn(4, 3), "i": np.array([0, 2, 0]), "s": randn(3, 3)},
         lambda T, x, i, s: T.index_add(x, 0, i, s, alpha=2.0)),
    Case("index_add_dim1", {"x": randn(2, 4), "i": np.array([3, 1]), "s": randn(2, 2)},
         lambda T, x, i, s: x.index_add(1, i, s)),
    Case("index_copy", {"x": randn(4, 3), "i": np.array([3, 0]), "s": randn(2, 3)},
         lambda T, x, i, s: T.index_copy(x, 0, i, s)),
    Case("index_fill", {"x": randn(3, 4), "i": np.array([0, 2])}, lambda T, x, i: T.index_fill(x, 1, i, -1.5)),
    Case("index_fill_tensor_value", {"x": randn(3, 4), "i": np.array([1]), "v": np.array(0.75)},
         lambda T, x, i, v: x.index_fill(0, i, v)),
    *[Case(f"index_reduce_{r}", {"x": distinct(4, 2), "i": np.array([0, 3, 0, 1]), "s": distinct(4, 2)},
           lambda T, x, i, s, r=r: x.index_reduce(0, i, s, r)) for r in ("prod", "mean", "amax", "amin")],
    Case("index_select", {"x": randn(3, 4), "i": np.array([3, 0, 3])}, lambda T, x, i: T.index_select(x, 1, i)),
    Case("index_put", {"x": randn(3, 4), "a": np.array([0, 2]), "b": np.array([1, 3]), "v": randn(2)},
         lambda T, x, a, b, v: T.index_put(x, (a, b), v)),
    Case("index_put_accumulate", {"x": randn(3, 4), "a": np.array([0, 0, 2]), "b": np.array([1, 1, 3]),
                                  "v": randn(3)},
         lambda T, x, a, b, v: x.index_put((a, b), v, accumulate=True)),
    Case("index_put_broadcast_row", {"x": randn(3, 4), "a": np.array([2, 0]), "v": randn(4)},
         lambda T, x, a, v: x.index_put((a,), v)),
    Case("masked_fill", {"x": randn(3, 4), "m": randn(3, 4) > 0}, lambda T, x, m: T.masked_fill(x, m, 0.5)),
    Case("masked_select_broadcast", {"x": randn(3, 4), "m": randn(4) > 0}, lambda T, x, m: T.masked_select(x, m)),
    Case("masked_scatter", {"x": randn(3, 4), "m": randn(3, 4) > 0, "s": randn(14)},
         lambda T, x, m, s: T.masked_scatter(x, m, s)),
    Case("take_negative", {"x": randn(3, 4), "i": np.array([[-1, 0], [5, 5]])}, lambda T, x, i: T.take(x, i)),
    Case("put", {"x": randn(3, 4), "i": np.array([-1, 0, 6]), "s": randn(3)}, lambda T, x, i, s: x.put(i, s)),
    Case("put_accumulate", {"x": randn(3, 4), "i": np.array([1, 1, 6]), "s": randn(3)},
         lambda T, x, i, s: x.put(i, s, accumulate=True)),
    Case("nonzero", {"x": np.array([[0.0, 1.0], [2.0, 0.0]])}, lambda T, x: T.nonzero(x, as_tuple=False)),
    Case("nonzero_tuple", {"x": np.array([[0.0, 1.0], [2.0, 0.0]])}, lambda T, x: x.nonzero(as_tuple=True)),
    Case("argwhere", {"x": np.array([[0.0, 1.0], [2.0, 0.0]])}, lambda T, x: T.argwhere(x)),
    # ---- selection and ordering
    Case("topk", {"x": distinct(3, 5)}, lambda T, x: T.topk(x, 2, dim=1)),
    Case("kthvalue", {"x": distinct(3, 5)}, lambda T, x: T.kthvalue(x, 2, 1)),
    Case("kthvalue_keepdim", {"x": distinct(4, 3)}, lambda T, x: x.kthvalue(4, 0, keepdim=True)),
    Case("median_dim", {"x": distinct(3, 6)}, lambda T, x: T.median(x, dim=1)),
    Case("median_method_odd", {"x": distinct(3, 5)}, lambda T, x: x.median(1)),
    Case("median_method_all", {"x": distinct(2, 3)}, lambda T, x: x.median()),
    Case("median_dim_nan", {"x": np.array([[1.0, np.nan, 3.0], [2.0, 0.5, -1.0]])},
         lambda T, x: T.median(x, dim=1).values),
    Case("nanmedian_dim", {"x": np.array([[1.0, np.nan, 3.0, 2.0], [2.0, 0.5, -1.0, 4.0]])},
         lambda T, x: T.nanmedian(x, dim=1)),
    Case("nanmedian_all_nan", {"x": np.array([[1.0, np.nan, 3.0], [np.nan] * 3])},
         lambda T, x: T.nanmedian(x.detach(), dim=1).values),
    *[Case(f"quantile_{m}", {"x": distinct(3, 7)},
           lambda T, x, m=m: T.quantile(x, T.tensor([0.0, 0.3, 0.5, 0.95, 1.0], dtype=T.float64), dim=1,
                                        keepdim=True, interpolation=m))
      for m in ("linear", "lower", "higher", "nearest", "midpoint")],
    Case("quantile_all_scalar", {"x": distinct(4, 3)}, lambda T, x: T.quantile(x, 0.4)),
    Case("quantile_nan", {"x": np.array([[1.0, np.nan, 3.0], [2.0, 0.5, -1.0]])},
         lambda T, x: T.quantile(x, 0.5, dim=1)),
    Case("nanquantile", {"x": np.array([[1.0, np.nan, 3.0, 0.0], [2.0, 0.5, -1.0, 7.0]])},
         lambda T, x: x.nanquantile(0.7, dim=1)),
    Case("mode", {"x": np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 4.0, 4.0, 5.0, 5.0]])},
         lambda T, x: T.mode(x, 1)),
    Case("cummax_ties", {"x": np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, -1.0, 0.0, 5.0, 4.0]])},
         lambda T, x: T.cummax(x, 1)),
    Case("cummin_dim0", {"x": distinct(5, 2)}, lambda T, x: x.cummin(0)),
    Case("cummax_nan", {"x": np.array([1.0, np.nan, 3.0, np.nan])}, lambda T, x: T.cummax(x, 0).indices),
    Case("logcumsumexp", {"x": randn(3, 5) * 10}, lambda T, x: T.logcumsumexp(x, 1)),
    Case("logcumsumexp_spread", {"x": np.array([-1000.0, 0.0, 500.0, -3.0])}, lambda T, x: x.logcumsumexp(0)),
    Case("unique", {"i": np.array([3, 1, 1, 2, 3, 3])},
         lambda T, i: T.unique(i, return_inverse=True, return_counts=True)),
    Case("unique_dim", {"i": np.array([[1, 2], [1, 2], [0, 1]])},
         lambda T, i: i.unique(dim=0, return_inverse=True, return_counts=True)),
    Case("unique_2d_inverse", {"i": np.array([[1, 2], [2, 2]])}, lambda T, i: i.unique(return_inverse=True)),
    Case("searchsorted", {"a": np.array([1.0, 2.0, 2.0, 3.0]), "v": np.array([[2.0, 0.0], [2.5, 9.0]])},
         lambda T, a, v: T.searchsorted(a.detach(), v.detach())),
    Case("searchsorted_right_batched", {"a": np.array([[1.0, 2.0, 3.0], [0.0, 0.5, 1.0]]),
                                        "v": np.array([[2.0, 3.0], [0.5, -1.0]])},
         lambda T, a, v: T.searchsorted(a.detach(), v.detach(), right=True)),
    Case("bucketize", {"v": np.array([0.5, 2.0, 2.5, 9.0]), "b": np.array([1.0, 2.0, 3.0])},
         lambda T, v, b: T.bucketize(v.detach(), b.detach(), right=False)),
    Case("histc", {"x": np.array([1.0, 2.0, 1.0, 4.0, -1.0, 3.0])},
         lambda T, x: T.histc(x.detach(), bins=4, min=0, max=3)),
    Case("histc_data_range", {"x": np.array([1.0, 2.0, 1.0, 4.0])}, lambda T, x: x.detach().histc(bins=3)),
    Case("histc_one_value", {"x": np.array([2.0, 2.0])}, lambda T, x: T.histc(x.detach(), bins=4)),
    Case("bincount", {"i": np.array([1, 1, 3, 0])}, lambda T, i: T.bincount(i, minlength=6)),
    Case("bincount_weights", {"i": np.array([1, 1, 3]), "w": randn(3)}, lambda T, i, w: i.bincount(w)),
    # ---- elementwise
    Case("rsqrt", {"x": np.abs(randn(5)) + 0.1}, lambda T, x: T.rsqrt(x)),
    Case("float_classes", {"x": SPECIALS},
         lambda T, x: (T.isinf(x), T.isposinf(x), T.isneginf(x), T.signbit(x), T.isnan(x), T.isfinite(x))),
    Case("nan_to_num", {"x": SPECIALS}, lambda T, x: T.nan_to_num(x)),
    Case("nan_to_num_values", {"x": SPECIALS}, lambda T, x: x.nan_to_num(1.5, 9.0, -9.0)),
    Case("floor_divide", {"x": randn(6) * 4, "y": np.array([0.7, -0.7, 2.0, -3.0, 0.1, 1.0])},
         lambda T, x, y: (T.floor_divide(x, y), x // 0.7, 3.0 // y)),
    Case("floor_divide_ints", {"i": np.array([7, -7, 7, -7, 0]), "j": np.array([2, 2, -2, -2, 3])},
         lambda T, i, j: (i // j, T.floor_divide(i, 2))),
    Case("copysign", {"x": np.array([1.0, -2.0, 0.0, 3.0, -0.5]), "y": np.array([-1.0, 2.0, -0.0, 0.0, -3.0])},
         lambda T, x, y: (T.copysign(x, y), x.copysign(-1.0))),
    Case("fmax_fmin", {"x": np.array([1.0, np.nan, 3.0, np.nan]), "y": np.array([2.0, 1.0, np.nan, np.nan])},
         lambda T, x, y: (T.fmax(x, y), T.fmin(x, y))),
    Case("heaviside", {"x": np.array([-1.0, 0.0, 2.0, np.nan, -0.0]), "v": np.array([0.5, 0.25, 0.5, 0.5, 0.75])},
         lambda T, x, v: x.heaviside(v)),
    Case("lerp", {"a": randn(5), "b": randn(5), "w": np.array([0.0, 0.2, 0.5, 0.8, 1.0])},
         lambda T, a, b, w: (T.lerp(a, b, w), a.lerp(b, 0.7))),
    Case("frac_degrees", {"x": randn(5) * 5}, lambda T, x: (T.frac(x), T.deg2rad(x), x.rad2deg())),
    Case("ldexp", {"x": randn(4), "e": np.array([3.0, -1.0, 0.5, 2.0])}, lambda T, x, e: T.ldexp(x, e)),
    Case("nextafter", {"x": np.array([1.0, 0.0, -2.0]), "y": np.array([2.0, -1.0, -2.0])},
         lambda T, x, y: T.nextafter(x.detach(), y.detach())),
    Case("logit_eps", {"p": np.array([0.01, 0.2, 0.5, 0.97, 0.999])}, lambda T, p: T.logit(p, eps=0.05)),
    Case("xlogy", {"x": np.array([0.0, 1.0, 2.0]), "y": np.array([0.5, 2.0, 3.0])}, lambda T, x, y: T.xlogy(x, y)),
    Case("where_one_argument", {"m": np.array([[True, False], [True, True]])}, lambda T, m: T.where(m)),
    # ---- reductions and statistics
    Case("nansum_nanmean", {"x": np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, 6.0]])},
         lambda T, x: (T.nansum(x), T.nansum(x, dim=1), T.nanmean(x, dim=0, keepdim=True), x.nanmean())),
    Case("count_nonzero", {"x": np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])},
         lambda T, x: (T.count_nonzero(x), T.count_nonzero(x, dim=1))),
    Case("aminmax", {"x": distinct(3, 4)}, lambda T, x: (*T.aminmax(x), *T.aminmax(x, dim=1, keepdim=True))),
    Case("var_mean", {"x": randn(3, 4)}, lambda T, x: (*T.var_mean(x, 1), *T.var_mean(x, dim=0, correction=0))),
    Case("std_mean", {"x": randn(3, 4)},
         lambda T, x: (*T.std_mean(x), *T.std_mean(x, 1, unbiased=False, keepdim=True))),
    Case("cov", {"x": randn(3, 6)}, lambda T, x: (T.cov(x), T.cov(x, correction=0), x[0].cov())),
    Case("cov_weights", {"x": randn(2, 5), "f": np.array([1, 2, 1, 3, 1]), "a": np.abs(randn(5)) + 0.2},
         lambda T, x, f, a: T.cov(x, fweights=f, aweights=a)),
    Case("corrcoef", {"x": randn(3, 6)}, lambda T, x: T.corrcoef(x)),
    # ---- differences and integrals
    Case("diff", {"x": randn(3, 5), "p": randn(3, 1)},
         lambda T, x, p: (T.diff(x), T.diff(x, n=2, dim=0), x.diff(1, 1, prepend=p, append=p))),
    Case("gradient", {"x": randn(4, 5)}, lambda T, x: T.gradient(x)),
    Case("gradient_spacing", {"x": randn(4, 5), "c": np.array([0.0, 0.5, 1.5, 1.75, 3.0])},
         lambda T, x, c: T.gradient(x, spacing=(c.detach(),), dim=1, edge_order=2)),
    Case("gradient_scalar_spacing", {"x": randn(4, 5)},
         lambda T, x: T.gradient(x, spacing=2.0, dim=0, edge_order=2)),
    Case("trapezoid", {"y": randn(3, 5), "x": np.cumsum(np.abs(randn(5))) + 0.1},
         lambda T, y, x: (T.trapezoid(y, x), T.trapezoid(y, dx=0.5, dim=0), T.trapezoid(y))),
    Case("cumulative_trapezoid", {"y": randn(3, 5), "x": np.cumsum(np.abs(randn(5))) + 0.1},
         lambda T, y, x: (T.cumulative_trapezoid(y, x), T.cumulative_trapezoid(y, dx=0.5, dim=0))),
    # ---- shape
    Case("unbind", {"x": randn(2, 3)}, lambda T, x: T.unbind(x, 1)),
    Case("stacks", {"a": randn(2, 3), "b": randn(2, 3)},
         lambda T, a, b: (T.hstack([a, b]), T.vstack([a, b]), T.dstack([a, b]), T.column_stack([a, b]))),
    Case("stacks_1d", {"a": randn(3), "b": randn(3)},
         lambda T, a, b: (T.hstack([a, b]), T.vstack([a, b]), T.dstack([a, b]), T.column_stack([a, b]))),
    Case("atleast", {"a": np.array(2.0), "b": randn(3), "c": randn(2, 2)},
         lambda T, a, b, c: (*T.atleast_1d(a, b), *T.atleast_2d(a, b, c), *T.atleast_3d(a, b, c))),
    Case("block_diag", {"a": np.array(2.0), "b": randn(3), "c": randn(2, 2)}, lambda T, a, b, c: T.block_diag(a, b, c)),
    Case("diag_embed", {"x": randn(2, 3)}, lambda T, x: (T.diag_embed(x), T.diag_embed(x, 1), x.diag_embed(-2, 0, 2))),
    Case("diagflat", {"x": randn(2, 2)}, lambda T, x: (T.diagflat(x), x.diagflat(-1))),
    *[Case(f"rot90_{k}", {"x": randn(2, 3, 4)}, lambda T, x, k=k: T.rot90(x, k, [0, 2])) for k in (1, 2, 3, -1, 4)],
    Case("broadcast_tensors", {"a": randn(3, 1), "b": randn(4)}, lambda T, a, b: T.broadcast_tensors(a, b)),
    Case("unflatten_movedim_narrow", {"x": randn(2, 6)},
         lambda T, x: (T.unflatten(x, 1, (3, -1)), T.movedim(x, 0, 1), T.narrow(x, 1, -4, 3), x.narrow(0, 1, 1))),
    Case("triangle_indices", {}, lambda T: (T.tril_indices(3, col=4, offset=1), T.triu_indices(4, col=3, offset=-1))),
    Case("cartesian_prod", {"a": randn(2), "b": randn(3), "c": randn(2)}, lambda T, a, b, c: T.cartesian_prod(a, b, c)),
    Case("combinations", {"x": randn(4)},
         lambda T, x: (T.combinations(x), T.combinations(x, 3), T.combinations(x, 2, with_replacement=True))),
    # ---- edge values: inf, nan, -0.0, the largest and the smallest (subnormal) magnitudes
    Case("edge_rsqrt", {"x": np.abs(SPECIALS)}, lambda T, x: T.rsqrt(x)),
    Case("edge_floor_divide", {"x": SPECIALS, "y": np.array([2.0, 2.0, -2.0, 0.0, 3.0, -0.0, np.inf, 1e-300, 7.0])},
         lambda T, x, y: T.floor_divide(x.detach(), y.detach())),
    Case("edge_copysign", {"x": SPECIALS, "y": SPECIALS[::-1].copy()}, lambda T, x, y: T.copysign(x, y),
         gradient_differs="d copysign(x, y)/dx is ±1 at x = ±inf here; PyTorch's (result / x) gives NaN"),
    Case("edge_fmax_fmin", {"x": SPECIALS, "y": SPECIALS[::-1].copy()}, lambda T, x, y: (T.fmax(x, y), T.fmin(x, y))),
    Case("edge_lerp", {"x": SPECIALS, "y": np.full(9, 2.0)}, lambda T, x, y: (T.lerp(x, y, 0.25), T.lerp(y, x, 0.75))),
    Case("edge_frac_deg", {"x": SPECIALS}, lambda T, x: (T.frac(x), T.deg2rad(x), T.rad2deg(x))),
    Case("edge_ldexp", {"x": SPECIALS, "e": np.array([1.0, 2.0, -3.0, 4.0, 1.0, 1000.0, -1.0, 2.0, 3.0])},
         lambda T, x, e: T.ldexp(x, e)),
    Case("edge_nextafter", {"x": SPECIALS, "y": SPECIALS[::-1].copy()},
         lambda T, x, y: T.nextafter(x.detach(), y.detach())),
    Case("edge_heaviside", {"x": SPECIALS}, lambda T, x: x.heaviside(T.tensor(0.5, dtype=T.float64))),
    Case("edge_nansum_nanmean", {"x": SPECIALS.reshape(3, 3)},
         lambda T, x: (T.nansum(x, dim=1), T.nanmean(x, dim=0), T.nansum(x.detach()))),
    Case("edge_logcumsumexp", {"x": np.array([-np.inf, 0.0, -np.inf, 700.0, -700.0, 1e-300])},
         lambda T, x: T.logcumsumexp(x, 0),
         gradient_differs="a prefix of only -inf passes gradient 0 here; PyTorch's is NaN"),
    Case("edge_cumminmax", {"x": np.array([np.inf, -np.inf, 0.0, -0.0, 1e308, -1e308])},
         lambda T, x: (*T.cummax(x, 0), *T.cummin(x, 0))),
    Case("edge_quantile_median", {"x": np.array([[np.inf, -np.inf, 0.0, 1.0], [1e308, -1e308, 5e-324, -0.0]])},
         lambda T, x: (T.quantile(x, 0.25, dim=1), T.median(x, dim=1).values, T.kthvalue(x, 3, 1).values)),
    Case("edge_diff_trapezoid", {"x": np.array([1e308, -1e308, 0.0, 5e-324, -0.0])},
         lambda T, x: (T.diff(x), T.trapezoid(x), T.cumulative_trapezoid(x))),
    Case("edge_aminmax", {"x": np.array([np.inf, -np.inf, 0.0, -0.0, 5e-324])}, lambda T, x: T.aminmax(x)),
    Case("edge_scatter_reduce", {"x": np.array([np.inf, 0.0, -np.inf]), "i": np.array([0, 0, 1, 2, 2]),
                                 "s": np.array([-np.inf, 1e308, -0.0, 5e-324, 1.0])},
         lambda T, x, i, s: (T.scatter_reduce(x, 0, i, s, "amax"), T.scatter_reduce(x, 0, i, s, "amin"),
                             T.scatter_reduce(x.detach(), 0, i, s.detach(), "sum"),
                             T.scatter_reduce(x.detach(), 0, i, s.detach(), "prod"))),
    Case("empty_shapes", {"x": np.zeros((0, 3)), "i": np.zeros((0, 3), np.int64)},
         lambda T, x, i: (T.gather(x, 0, i), T.scatter_add(x, 0, i, x), T.nansum(x, dim=0), T.diff(x, dim=1),
                          T.cummax(x, 0).values, T.logcumsumexp(x, 0), T.cumulative_trapezoid(x, dim=1))),
    Case("zero_d", {"x": np.array(1.5)},
         lambda T, x: (T.kthvalue(x, 1).values, T.cummax(x, 0).values, T.logcumsumexp(x, 0), T.median(x, dim=0).values,
                       T.nan_to_num(x), T.rsqrt(x), T.atleast_2d(x), T.gather(x, 0, T.tensor(0)))),
    # ---- more of torch.Tensor's names
    Case("tensor_split", {"x": randn(10)}, lambda T, x: (*T.tensor_split(x, 3), *x.tensor_split([2, 5]))),
    Case("hvd_split", {"x": randn(4, 4, 2)},
         lambda T, x: (*T.hsplit(x, 2), *T.vsplit(x, [1, 3]), *x.dsplit(2))),
    Case("unfold", {"x": randn(3, 7)}, lambda T, x: (x.unfold(1, 3, 2), x.unfold(0, 2, 1))),
    Case("sum_to_size", {"x": randn(2, 3)}, lambda T, x: (x.sum_to_size(1, 3), x.sum_to_size((2, 1)))),
    Case("embedding_scatters", {"x": randn(4, 3), "s": randn(3), "t": randn(2, 3), "d": randn(2)},
         lambda T, x, s, t, d: (T.select_scatter(x, s, 0, 2), T.slice_scatter(x, t, 0, 1, 4, 2),
                                T.diagonal_scatter(x, d, 1))),
    Case("unique_consecutive", {"i": np.array([1, 1, 2, 2, 3, 1, 1, 2])},
         lambda T, i: T.unique_consecutive(i, return_inverse=True, return_counts=True)),
    Case("unique_consecutive_dim", {"i": np.array([[1, 1, 2], [1, 1, 2], [0, 0, 2]])},
         lambda T, i: T.unique_consecutive(i, return_counts=True, dim=0)),
    Case("histogram", {"x": np.array([1.0, 2.0, 1.0, 2.9, -1.0]), "w": np.array([1.0, 2.0, 4.0, 0.5, 3.0])},
         lambda T, x, w: (*T.histogram(x.detach(), 4, range=(0.0, 3.0), weight=w.detach()),
                          *x.detach().histogram(3, density=True))),
    Case("renorm", {"x": randn(3, 4) * 3}, lambda T, x: (T.renorm(x, 2, 0, 2.5), x.renorm(1, 1, 3.0))),
]
