"""minigrad_ckpt: a reverse-mode autograd engine on NumPy (CPU) and CuPy (GPU),
with activation checkpointing on the tape and msgpack training-state snapshots.

    import minigrad_ckpt as mg

    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad            # tensor([2., 4., 6.])

Read ``docs/tape.md`` for how it works and ``docs/reading-the-code.md`` for
the order in which to read the package.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

from . import anomaly, backend, ops, random, tape  # noqa: F401
from .backend import Device, device, get_default_device, get_device, set_default_device
from .creation import (
    arange, empty, full, full_like, get_default_dtype, linspace, ones, ones_like, rand, randint, randn, randperm,
    set_default_dtype, tensor, zeros, zeros_like,
)
from .functional import (
    abs, add, argmax, argmin, astype, broadcast_to, clip, clone, concatenate, cos, cumsum, divide, einsum,
    equal, erf, exp, expand_dims, eye, flip, getitem, greater, greater_equal, isfinite, isnan, less,
    less_equal, log, log1p, logical_and, logical_not, logical_or, logsumexp, matmul, max, maximum, mean,
    min, minimum, moveaxis, multiply, negative, not_equal, pad, permute, power, prod, reshape, sigmoid,
    sign, sin, split, sqrt, squeeze, stack, std, subtract, sum, sum_to, swapaxes, take, tanh, transpose,
    var, where,
)
from .functional import (  # NumPy's other elementwise functions
    arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, around, cbrt, ceil, cosh, exp2, expm1,
    floor, fmod, hypot, log2, log10, logaddexp, logaddexp2, mod, reciprocal, remainder, round, sinc, sinh,
    square, tan, trunc,
)
from .functional import (  # NumPy's other shape and product functions
    argsort, cross, cumprod, diag, diagonal, dot, flatten, inner, kron, meshgrid, outer, ravel, repeat, roll,
    sort, take_along_axis, tensordot, tile, trace, tril, triu,
)
from .functional import ValuesIndices, cat, unsqueeze  # PyTorch's names
from .functional.complex_numbers import (
    angle, complex, conj, imag, is_complex, polar, real, view_as_complex, view_as_real,
)
from .functional.elementwise_compositions import (  # more elementwise functions
    copysign, deg2rad, floor_divide, fmax, fmin, frac, heaviside, isinf, isneginf, isposinf, ldexp, lerp, logit,
    nan_to_num, nextafter, rad2deg, rsqrt, signbit, xlogy,
)
from .functional.statistics import (  # reductions and statistics
    MinMax, aminmax, corrcoef, count_nonzero, cov, nanmean, nansum, renorm, std_mean, var_mean,
)
from .functional.differences import cumulative_trapezoid, diff, gradient, trapezoid
from .functional.shape_compositions import (  # more shape functions
    atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_tensors, cartesian_prod, column_stack, combinations,
    diag_embed, diagflat, dsplit, dstack, hsplit, hstack, movedim, narrow, rot90, tensor_split, tril_indices,
    triu_indices, unflatten, vsplit, vstack,
)
from .functional.scatter import (  # PyTorch's gather/scatter family
    argwhere, diagonal_scatter, gather, index_copy, index_fill, index_put, index_reduce, index_select, masked_fill,
    masked_scatter, masked_select, nonzero, put, scatter, scatter_add, scatter_reduce, select_scatter, slice_scatter,
)
from .functional.scatter import index_add_along as index_add
from .functional.selection import (  # selection and ordering
    Histogram, bincount, bucketize, cummax, cummin, histc, histogram, kthvalue, logcumsumexp, median, mode,
    nanmedian, nanquantile, quantile, searchsorted, unique, unique_consecutive,
)
from .functional.torch_idioms import (  # PyTorch's names
    absolute, acos, acosh, asin, asinh, atan, atan2, atanh, chunk, clamp, concat, div, eq, ge, gt, le, lt, mul,
    ne, neg, numel, pow, sub, t, topk, true_divide, unbind,
)
from .functional.tensor_methods import bind as _bind
from .grad_mode import enable_grad, is_grad_enabled, is_recomputing, no_grad, set_grad_enabled
from .random import get_rng_state, manual_seed, set_rng_state
from .backward import backward, grad
from .anomaly import (
    AnomalyError, detect_anomaly, is_anomaly_check_inf_enabled, is_anomaly_check_nan_enabled, is_anomaly_enabled,
    set_detect_anomaly,
)
from .backward_steps import BackwardStep, backward_steps
from .tensor import Tensor

# The one binding point (DeZero's ``setup_variable``): Tensor gets its methods and
# operators, the tape its differentiable namespace.  Nothing below tensor.py knows
# the layers above it; this call links them, before anything computes.
_bind()

float16 = backend.host_numpy.dtype("float16")
float32 = backend.host_numpy.dtype("float32")
float64 = backend.host_numpy.dtype("float64")
int8 = backend.host_numpy.dtype("int8")
int16 = backend.host_numpy.dtype("int16")
int32 = backend.host_numpy.dtype("int32")
int64 = backend.host_numpy.dtype("int64")
uint8 = backend.host_numpy.dtype("uint8")
bool_ = backend.host_numpy.dtype("bool")
complex64 = backend.host_numpy.dtype("complex64")
complex128 = backend.host_numpy.dtype("complex128")
# PyTorch's dtype names (``mg.double``, ``mg.float``, ...): ``torch.float`` is float32, ``torch.int`` int32.
double, half, long, short = float64, float16, int64, int16
float, int, bool = float32, int32, bool_  # noqa: A001  (attributes of the package, as in torch)


def from_dlpack(obj: object) -> Tensor:
    """A Tensor sharing memory with any DLPack-capable array (NumPy, CuPy, PyTorch...)."""
    array, dev = backend.from_dlpack(obj)
    return Tensor.constant(array, dev)


def from_numpy(array: Any) -> Tensor:
    """A CPU Tensor sharing memory with the NumPy array ``array`` (no copy), as ``torch.from_numpy``.

    Writing into either one changes both; use ``mg.tensor(array)`` for a copy.
    """
    if not isinstance(array, backend.host_numpy.ndarray):
        raise TypeError(f"from_numpy needs a numpy.ndarray, got {type(array).__name__}; use mg.tensor(...)")
    return Tensor.constant(array, backend.cpu)


from . import (  # noqa: E402  (need the names above)
    accelerator, checkpoint, cuda, distributed, fft, func, linalg, memory, nn, optim, snapshot, special, testing,
    utils, viz,
)
from .executor import Executor  # noqa: E402
from .nn.functional.distance import cdist  # noqa: E402  (PyTorch has it at the top level only)
from .snapshot.saveload import load, save  # noqa: E402

__all__ = [
    # tensors and creation
    "Tensor", "tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "zeros_like", "ones_like",
    "full_like", "rand", "randn", "randint", "randperm", "eye", "from_dlpack", "from_numpy", "get_default_dtype",
    "set_default_dtype",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64", "complex128",
    "double", "half", "long", "short",  # mg.float, mg.int, mg.bool too, kept out of ``import *`` (builtins)
    # devices and randomness
    "Device", "device", "get_device", "get_default_device", "set_default_device", "manual_seed",
    "get_rng_state", "set_rng_state",
    # autograd
    "backward", "backward_steps", "BackwardStep", "grad", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "is_recomputing",
    # anomaly mode
    "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "is_anomaly_check_inf_enabled", "AnomalyError",
    # math
    "abs", "add", "subtract", "multiply", "divide", "power", "negative", "exp", "log", "log1p", "sqrt", "sin",
    "cos", "tanh", "sigmoid", "erf", "sign", "maximum", "minimum", "clip", "where", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "isnan",
    "isfinite", "matmul", "einsum", "sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "cumsum",
    "argmax", "argmin", "reshape", "transpose", "permute", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "sum_to", "concatenate", "stack", "split", "flip", "pad", "getitem", "take", "astype",
    "clone",
    "tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "log2",
    "log10", "exp2", "expm1", "hypot", "logaddexp", "logaddexp2", "sinc", "square", "reciprocal", "cbrt",
    "floor", "ceil", "round", "around", "trunc", "mod", "remainder", "fmod",
    "ravel", "flatten", "tile", "repeat", "roll", "diag", "diagonal", "trace", "tril", "triu", "tensordot", "dot",
    "inner", "outer", "kron", "cross", "cumprod", "sort", "argsort", "take_along_axis", "meshgrid",
    # PyTorch's names
    "cat", "unsqueeze", "ValuesIndices", "save", "load", "cdist",
    # PyTorch's gather/scatter family
    "gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill", "index_reduce",
    "index_put", "index_select", "masked_fill", "masked_select", "masked_scatter", "put", "nonzero", "argwhere",
    "select_scatter", "slice_scatter", "diagonal_scatter",
    # more elementwise functions
    "rsqrt", "frac", "lerp", "deg2rad", "rad2deg", "ldexp", "copysign", "fmax", "fmin", "heaviside", "nan_to_num",
    "floor_divide", "isinf", "isposinf", "isneginf", "signbit", "nextafter", "logit", "xlogy",
    # reductions, statistics, differences and integrals
    "nansum", "nanmean", "count_nonzero", "aminmax", "MinMax", "var_mean", "std_mean", "cov", "corrcoef", "renorm",
    "diff", "gradient", "trapezoid", "cumulative_trapezoid",
    # more shape functions
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "block_diag",
    "diag_embed", "diagflat", "rot90", "broadcast_tensors", "unflatten", "movedim", "narrow", "cartesian_prod",
    "combinations", "tril_indices", "triu_indices", "tensor_split", "hsplit", "vsplit", "dsplit",
    # selection and ordering
    "topk", "kthvalue", "median", "nanmedian", "quantile", "nanquantile", "mode", "cummax", "cummin",
    "logcumsumexp", "unique", "unique_consecutive", "searchsorted", "bucketize", "histc", "histogram", "Histogram",
    "bincount", "chunk", "unbind", "clamp",
    # PyTorch's names of the functions above
    "mul", "sub", "div", "true_divide", "neg", "pow", "eq", "ne", "lt", "le", "gt", "ge", "acos", "asin", "atan",
    "atan2", "acosh", "asinh", "atanh", "absolute", "concat", "t", "numel",
    # complex numbers
    "complex", "real", "imag", "conj", "is_complex", "angle", "polar", "view_as_real", "view_as_complex",
    # the rest of the system
    "Executor", "fft", "func", "linalg", "special", "nn", "optim", "utils", "distributed", "checkpoint", "snapshot",
    "testing", "memory", "viz", "cuda", "accelerator", "ops", "tape", "anomaly",
]
