"""The public math API gathered: ``mg.exp``, ``mg.sum``, ``mg.matmul``, ...

Every function validates its arguments, normalizes them into an op's static
attributes (axes become a sorted tuple, shapes tuples of ints; see
:mod:`~minigrad_ckpt.functional.arguments`), and runs the op through
:func:`minigrad_ckpt.tape.apply`.  Signatures follow NumPy (``axis=``,
``keepdims=``, ``ddof=``).  The functions live by concept, mirroring
``minigrad_ckpt/ops``:

=================  =====================================================
``elementwise``    arithmetic, exponentials, trigonometry, rounding
``comparison``     comparisons, logical functions, ``isnan`` (no gradient)
``reduction``      sums, means, extrema, variance, scans, ``argmax``
``conversion``     ``astype``, ``clone``, ``to_device``
``shape``          reshapes, transposes, joins, splits, padding, tiling
``indexing``       ``x[index]``, its adjoint, gathers, sorting
``diagonal``       diagonals, traces, triangles, ``eye``
``products``       ``matmul``, ``einsum``, ``tensordot`` and friends
=================  =====================================================

This module is the whole of them in one namespace (what
:mod:`~minigrad_ckpt.functional.namespace` and Tensor's methods are built on).
"""

# ruff: noqa: F405  (``__all__`` names what the star imports bring, in the order docs/api.md lists it)
from __future__ import annotations

from .comparison import *  # noqa: F403
from .conversion import *  # noqa: F403
from .diagonal import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .indexing import *  # noqa: F403
from .products import *  # noqa: F403
from .reduction import *  # noqa: F403
from .shape import *  # noqa: F403

__all__ = [
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "negative", "exp", "log",
    "log1p", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "erf", "clip", "where", "tan", "sinh", "cosh",
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2",
    "expm1", "hypot", "logaddexp", "logaddexp2", "sinc", "square", "reciprocal", "cbrt", "floor", "ceil",
    "trunc", "round", "around", "mod", "remainder", "fmod", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "sign", "isnan", "isfinite",
    "sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "cumsum", "argmax", "argmin", "matmul",
    "einsum", "reshape", "transpose", "permute", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "sum_to", "concatenate", "stack", "split", "flip", "pad", "astype", "clone",
    "to_device", "getitem", "index_add", "take", "eye",
    "ravel", "flatten", "tile", "repeat", "roll", "diag", "diagonal", "trace", "tril", "triu", "tensordot",
    "dot", "inner", "outer", "kron", "cross", "cumprod", "sort", "argsort", "take_along_axis",
    "meshgrid",
]
