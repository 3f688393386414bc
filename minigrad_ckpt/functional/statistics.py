"""Reductions beyond sum and mean: ``nansum``, ``nanmean``, ``count_nonzero``, ``aminmax``,
``var_mean``/``std_mean``, and the covariance and correlation matrices ``cov`` and
``corrcoef``.

All are compositions of the engine's differentiable reductions, ``where`` and ``matmul``,
so their derivatives in every mode and order are those of the pieces: a NaN that
``nansum`` skips gets gradient 0, ``aminmax`` shares a tied extremum's gradient as
``amin``/``amax`` do.  NumPy's keywords (``axis``, ``keepdims``, ``ddof``) and PyTorch's
(``dim``, ``keepdim``, ``correction``) are both accepted, with the same meaning.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

from ..backend import host_numpy, scalar_type_name
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import linalg
from . import math as mf
from . import torch_idioms as ti
from .arguments import (
    as_tensor,
    in_default_float,
    in_float32_if_half,
    normalize_axis,
    number,
    reduction_dims,
    refuse_complex,
)
from .complex_numbers import conj, real
from .errors import EmptyReduction, EmptyReductionDim, InputMismatch, RefusedArgument, TooFewDims, WrongTensorKind
from .linalg_derived import vector_norm
from .return_types import return_type
from .scatter import constant
from .torch_idioms import with_dim

_UNSET: Any = ti._UNSET


def _nansum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """The sum with NaNs counted as zero (NumPy's and PyTorch's ``nansum``); a NaN gets gradient 0.  A
    bool third argument is PyTorch's ``keepdim``, as for :func:`_nanmean`: ``mg.nansum(x, 0, True)``."""
    if isinstance(dtype, bool):
        dtype, keepdims = None, dtype
    x = as_tensor(x)
    if x.dtype.kind in "fc":  # before a cast to dtype=: an integer has no NaN to find (torch zeroes it first too)
        x = mf.where(mf.isnan(x), 0, x)
    if dtype is None:
        return mf.sum(x, axis, keepdims=keepdims)
    return mf.sum(mf.astype(x, dtype), axis, dtype=dtype, keepdims=keepdims)  # int32 stays int32


def _nanmean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """The mean of the numbers, NaNs left out (NumPy's and PyTorch's ``nanmean``); NaN where a
    slice has no number.  A bool third argument is PyTorch's ``keepdim`` (NumPy's is ``dtype``,
    which a bool never is): ``mg.nanmean(x, 0, True)``."""
    if isinstance(dtype, bool):
        dtype, keepdims = None, dtype
    x = as_tensor(x)
    if dtype is not None:
        x = mf.astype(x, dtype)
    numbers = mf.logical_not(mf.isnan(x.detach()))
    count = mf.sum(mf.astype(numbers, x.dtype), axis, keepdims=keepdims)
    return _nansum(x, axis, keepdims=keepdims) / count


def _count_nonzero(x: Any, axis: Any = None, *, keepdims: bool = False) -> Tensor:
    """How many elements are non-zero, over ``axis`` (all for None): int64, no derivative."""
    x = as_tensor(x)
    return mf.sum(mf.astype(mf.not_equal(x.detach(), 0), "int64"), axis, keepdims=keepdims)


nansum = with_dim(_nansum, reduces=True)
nanmean = ti.floating_under_dim("nanmean", with_dim(_nanmean, reduces=True), dtype_casts_integers=False)
count_nonzero = with_dim(_count_nonzero, reduces=True)
for _fn, _name in ((nansum, "nansum"), (nanmean, "nanmean"), (count_nonzero, "count_nonzero")):
    _fn.__name__ = _fn.__qualname__ = _name


class MinMax(NamedTuple):
    """What ``aminmax`` returns, as ``torch.return_types.aminmax``."""

    min: Tensor
    max: Tensor


_aminmax = return_type(MinMax, "aminmax")  # torch.return_types' class of the answer


def aminmax(input: Any, *, dim: Any = None, keepdim: bool = False) -> MinMax:  # noqa: A002
    """The minimum and the maximum over ``dim`` (all elements for None), as ``torch.aminmax``;
    tied extrema share the gradient (``amin``/``amax``)."""
    refuse_complex("aminmax", input)
    x = as_tensor(input)
    if dim is not None and x.ndim == 0:
        normalize_axis(dim if dim != -1 else 0, 1)
        dim = None
    dim = reduction_dims(dim)
    _refuse_empty_aminmax(x, dim)
    return _aminmax(mf.min(x, dim, keepdims=keepdim), mf.max(x, dim, keepdims=keepdim))


def _refuse_empty_aminmax(x: Tensor, dim: Any) -> None:
    """An empty ``x`` (or an empty ``dim``) has no extremes: PyTorch's ``aminmax`` refuses it in
    words of its own, not those of ``min``/``max``."""
    if dim is None and x.size == 0:
        raise EmptyReduction("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                             "has no identity.")
    if dim is not None:
        empty = [d for d in normalize_axis(dim, x.ndim) if x.shape[d] == 0]
        if empty:
            raise EmptyReductionDim(f"aminmax: Expected reduction dim {empty[0]} to have non-zero size.")


def _spread_and_mean(name: str) -> Any:
    spread = ti.var if name == "var_mean" else ti.std

    def fn(input: Any, dim: Any = None, unbiased: Any = _UNSET, keepdim: bool = False, *,  # noqa: A002
           correction: Any = _UNSET) -> tuple[Tensor, Tensor]:
        if isinstance(dim, (bool, host_numpy.bool_)):  # torch.var_mean(x, True): the unbiased overload, all of x
            if unbiased is not _UNSET:
                raise TypeError(f"{name}(x, unbiased) takes no other correction")
            dim, unbiased = None, bool(dim)
        c = ti.correction_of(name, _UNSET, correction, unbiased, torch_default=True)
        x = ti.floating(name, as_tensor(input))  # PyTorch's function only: its refusal of integers, as x.var()'s
        dim = ti.reduction_axis(x, dim)
        ti.warn_without_degrees_of_freedom(name, x, dim, c)
        with warnings.catch_warnings():  # (said once, in this function's name)
            warnings.filterwarnings("ignore", "(std|var)\\(\\): degrees of freedom", UserWarning)
            return spread(x, dim, c, keepdim), mf.mean(x, dim, keepdims=keepdim)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``({name.split('_')[0]}, mean)`` over ``dim`` in one call, as ``torch.{name}``: "
                  f"PyTorch's ``correction=1`` (Bessel's) by default; ``unbiased=False`` or ``correction=0`` "
                  f"divides by N.")
    return fn


var_mean = _spread_and_mean("var_mean")
std_mean = _spread_and_mean("std_mean")


def _observations(m: Any, y: Any, rowvar: bool) -> Tensor:
    """Variables as rows, observations as columns (NumPy's ``cov`` layout)."""
    x = as_tensor(m)
    if x.ndim > 2:
        raise InputMismatch(f"cov(): expected input to have two or fewer dimensions but got an input with "
                            f"{x.ndim} dimensions")
    x = mf.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = mf.transpose(x)
    if y is not None:
        x = mf.concatenate([x, _observations(y, None, rowvar)], axis=0)
    return in_default_float(x)  # integers in the default float dtype, as torch.cov (NumPy: float64)


def _on_device_of(v: Any, x: Tensor) -> Tensor:
    """Weights as a tensor on ``x``'s device (host data becomes a constant there)."""
    return v if isinstance(v, Tensor) else constant(host_numpy.asarray(v), x)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None, fweights: Any = None,
        aweights: Any = None, *, correction: Any = _UNSET) -> Tensor:
    """The covariance matrix of the variables in ``m``'s rows (columns for ``rowvar=False``),
    NumPy's ``cov`` with its frequency and importance weights; PyTorch's ``torch.cov(input,
    correction=1, fweights, aweights)`` means the same.  0-d for one variable."""
    x = _observations(m, y, rowvar)
    if correction is not _UNSET:
        ddof = number("cov", "correction", correction, "int")
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    # weights are real numbers even for complex observations: cast to the parts' dtype, so the
    # divisor stays real (a complex divisor cannot be clipped at 0)
    w_dtype = host_numpy.empty(0, dtype=x.dtype).real.dtype
    if fweights is not None:
        w = mf.astype(_checked_weights("fweights", fweights, x), w_dtype)
    if aweights is not None:
        a = mf.astype(_checked_weights("aweights", aweights, x), w_dtype)
        w = a if w is None else w * a
    if w is None:
        avg, fact = mf.mean(x, axis=1), x.shape[1] - ddof
    else:
        w_sum = mf.sum(w)
        avg = mf.sum(x * w, axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * mf.sum(w * a) / w_sum
    centered = x - mf.expand_dims(avg, 1)
    weighted = centered if w is None else centered * w
    c = mf.matmul(centered, mf.transpose(conj(weighted))) / _degrees_of_freedom(fact)
    return mf.reshape(c, ()) if c.shape == (1, 1) else c


def _checked_weights(name: str, weights: Any, x: Tensor) -> Tensor:
    """One weight per observation, none negative, frequencies whole numbers: PyTorch's refusals, its
    RuntimeErrors, each also NumPy's class (a 2-D or mis-sized weight would otherwise broadcast into a
    wrong covariance)."""
    w = _on_device_of(weights, x)
    if w.ndim > 1:
        raise InputMismatch(f"cov(): expected {name} to have one or fewer dimensions, got {w.ndim}")
    if w.size != x.shape[1]:
        raise InputMismatch(f"cov(): expected {name} to have the same numel as there are observations in "
                            f"the input ({x.shape[1]}), got {w.size}")
    if name == "fweights" and w.dtype.kind not in "iub":
        raise WrongTensorKind(f"cov(): expected fweights to have integral dtype but got fweights with "
                              f"{scalar_type_name(w.dtype)} dtype")
    if w.size and bool(mf.min(w) < 0):
        raise RefusedArgument(f"cov(): {name} cannot be negative")
    return w


def _degrees_of_freedom(fact: Any) -> Any:
    """``cov``'s divisor, at least 0, as PyTorch's and NumPy's: a correction at or past the number
    of observations divides by 0 (inf, or NaN for no observations) with their warning; a negative
    divisor would flip the covariance's sign silently."""
    if isinstance(fact, Tensor):
        return mf.clip(fact, 0, None)
    if fact <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "number of observations.", UserWarning, stacklevel=stacklevel_outside_the_engine())
        return 0
    return fact


def corrcoef(x: Any, y: Any = None, rowvar: bool = True) -> Tensor:
    """The correlation coefficients of the variables in ``x``'s rows: ``cov / (std_i std_j)``,
    clipped to ``[-1, 1]`` for real inputs (NumPy's and PyTorch's ``corrcoef``)."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = mf.sqrt(real(mf.diagonal(c)))
    c = c / mf.expand_dims(d, 1) / mf.expand_dims(d, 0)
    return c if c.dtype.kind == "c" else mf.clip(c, -1, 1)


@in_float32_if_half  # |x|^p overflows float16: rows of norm above 256 became 0
def renorm(input: Any, p: float, dim: int, maxnorm: float) -> Tensor:  # noqa: A002
    """Each slice along ``dim`` (the tensor with that index fixed) whose ``p``-norm exceeds
    ``maxnorm`` scaled down to norm ``maxnorm`` (``torch.renorm``; the scale is
    ``maxnorm / (norm + 1e-7)``, as PyTorch's); differentiable through the norm too."""
    p, maxnorm = number("renorm", "p", p), number("renorm", "maxnorm", maxnorm)
    x = as_tensor(input)
    linalg.floating_only("linalg.vector_norm", x)  # PyTorch's renorm is its vector norm's
    if x.ndim < 2:  # (PyTorch's RuntimeError: a slice of a vector is a number)
        raise TooFewDims(f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions")
    d = ti._one_dim("renorm", x, dim)
    if p <= 0:
        raise RefusedArgument(f"renorm: non-positive-norm not supported (p={p})")
    if maxnorm < 0:
        raise RefusedArgument(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    others = tuple(k for k in range(x.ndim) if k != d)
    # A slice left as it is (its norm within maxnorm, or NaN) is x itself: its derivative is the
    # identity, as PyTorch's renorm_backward and renorm_jvp (x * 1 would send x * 0, NaN at a NaN,
    # through the 1).  Its norm is taken of ones instead, so that no NaN or inf of the norm's own
    # derivative there meets the 0 the where sends back (0 * NaN is NaN).
    scaled = vector_norm(x.detach(), p, dim=others, keepdim=True) > maxnorm
    norm = vector_norm(mf.where(scaled, x, 1), p, dim=others, keepdim=True)  # (p = inf: the largest |x|)
    return mf.where(scaled, x * (maxnorm / (norm + 1e-7)), x)
