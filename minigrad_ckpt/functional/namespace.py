"""The differentiable namespace: what ``xp`` is in a backward that builds a graph.

When a gradient of a gradient is requested (``create_graph=True``), the tape
calls each op's ``backward`` with Tensors and with ``xp`` set to this module
(:data:`minigrad_ckpt.tape.differentiable_namespace`), so every name a backward
uses -- ``exp``, ``where``, ``sum_to``, ``index_add``, ``xp.inf``,
``xp.float32``, a kernel such as ``conv2d_input_grad`` -- must exist here with
the array namespace's signature.  Higher-order gradients then need no second
implementation of any backward.

The names a backward may use are one list,
:func:`minigrad_ckpt.backend.backward_names`; this module offers every one
(``tests/test_namespace_contract.py`` checks it, ``docs/ops.md`` lists them):

* the public math (:mod:`~minigrad_ckpt.functional.math`), which covers most
  of the array whitelist (``tensordot``, ``cumprod``, ``sort``, ``tile``, ...);
* the rest of the whitelist: ``array_split`` as a composition of the math,
  ``asarray``/``ascontiguousarray``, and, where the result has no derivative
  (creation, ``isinf``, ``nonzero``, ``all``, dtype queries), the array
  function on the Tensors' data, wrapped as a constant;
* the constants and dtype names of an array namespace;
* a differentiable twin of each registered kernel (``backend.register_kernel``),
  with the kernel's argument order.

Creation functions with no tensor argument (``zeros(shape)``, ``eye(n)``) make
their constant on the default device (or ``device=``).  The engine runs a
recorded backward, and a forward-mode rule on Tensors, with the device of the
values they differentiate as the default (as PyTorch makes a node's device
current), so ``xp.eye(n)`` in a backward lands beside its tensors; the
``*_like`` forms, which follow their argument, say so without that help.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..backend import SUPPORTED_DTYPES, get_device, host_numpy
from ..ops import conv as _conv
from ..ops import elementwise as _el
from ..ops import indexing as _ix
from ..tape import apply
from ..tensor import Tensor
from . import fft, linalg  # noqa: F401  (``xp.fft``, ``xp.linalg`` of the differentiable namespace)
from .arguments import as_tensor, one_axis, shape_arg
from .complex_numbers import complex_from_parts, conj, imag, real  # noqa: F401  (xp.real and friends)
from .elementwise import where as _where
from .elementwise_compositions import frexp, ldexp  # noqa: F401  (xp.frexp's mantissa differentiable; xp.ldexp)
from .errors import RefusedArgument
from .indexing import _index_array
from .math import *  # noqa: F403  (the public math is part of the namespace)
from .math import __all__ as _math_names
from .shape import split
from .special import (  # noqa: F401  (kernel twins: xp.digamma and friends)
    betaln,
    digamma,
    erfc,
    erfcinv,
    erfinv,
    gamma,
    gammaln,
    polygamma,
)
from .special_bessel import (  # noqa: F401  (kernel twins)
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from .special_extended import erfcx, gammainc, gammaincc, i0, i0e, i1, i1e, zeta  # noqa: F401  (kernel twins)
from .special_polynomials import (  # noqa: F401  (kernel twins, of no derivative: their results need none)
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)

# Constants and dtypes, so backward code can write ``xp.inf`` or ``xp.float32``
# in either namespace.
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None
errstate = host_numpy.errstate
for _dt in SUPPORTED_DTYPES:
    if _dt.name != "bool":  # keep the builtin bool usable in this module
        globals()[_dt.name] = _dt.type
del _dt
bool_ = host_numpy.bool_


# ---------------------------------------------------------------------------
# The rest of the array whitelist.  Results without a derivative: the array
# function itself on the Tensors' data, wrapped as a constant.
# ---------------------------------------------------------------------------
def _constant_function(name: str, doc: str) -> Any:
    def fn(*args: Any, device: Any = None, **kwargs: Any) -> Any:
        found = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        dev = found[0]._device if found else get_device(device)
        raw = [a._data if isinstance(a, Tensor) else a for a in args]
        kw = {k: (v._data if isinstance(v, Tensor) else v) for k, v in kwargs.items()}
        return _wrap_constant(getattr(dev.xp, name)(*raw, **kw), dev)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _wrap_constant(result: Any, dev: Any) -> Any:
    if isinstance(result, (tuple, list)):
        return type(result)(_wrap_constant(r, dev) for r in result)
    if dev.xp.holds(result):
        return Tensor._wrap(result, None, dev)
    if isinstance(result, host_numpy.generic):  # a NumPy reduction's scalar: a 0-d constant
        return Tensor._wrap(dev.xp.asarray(result), None, dev)
    return result  # a dtype, a shape, a bool, a finfo: plain data


_CONSTANT_FUNCTIONS = {
    "zeros": "Zeros of ``shape`` (a constant).", "ones": "Ones of ``shape`` (a constant).",
    "empty": "An array of ``shape`` (a constant; zeros here).", "full": "``fill_value`` everywhere (a constant).",
    "arange": "Evenly spaced values (a constant).", "zeros_like": "Zeros shaped like ``x`` (a constant).",
    "ones_like": "Ones shaped like ``x`` (a constant).", "full_like": "``fill_value`` shaped like ``x`` (a constant).",
    "isinf": "Where ``x`` is infinite (bool, no derivative).",
    "signbit": "Where the sign bit of ``x`` is set, -0.0 included (bool, no derivative).",
    "all": "Whether all are true (no derivative).",
    "any": "Whether any is true (no derivative).", "count_nonzero": "How many are non-zero (no derivative).",
    "nonzero": "The indices of the non-zero elements (no derivative).",
    "broadcast_shapes": "NumPy's broadcast shape.", "result_type": "NumPy's result dtype.",
    "can_cast": "NumPy's casting rule.", "iinfo": "Integer type limits.", "finfo": "Float type limits.",
    "shares_memory": "Whether two tensors' arrays share memory.",
    "gcd": "The greatest common divisor of integers (no derivative).",
    "left_shift": "Integers shifted left (no derivative).", "right_shift": "Integers shifted right (no derivative).",
    "uniform_bits": "``n`` random uint64 values from ``key`` (the kernel; a constant).",
}
for _name, _doc in _CONSTANT_FUNCTIONS.items():
    globals()[_name] = _constant_function(_name, _doc)
del _name, _doc


def asarray(x: Any, dtype: Any = None) -> Tensor:
    """``x`` as a Tensor: a Tensor passes through (cast, differentiably, if ``dtype`` differs);
    other data becomes a constant."""
    if isinstance(x, Tensor):
        return x if dtype is None else astype(x, dtype)  # noqa: F405
    return as_tensor(x) if dtype is None else Tensor._from_data(x, dtype=dtype)


def pairwise_sum(x: Any, axes: Any, keepdims: bool = False) -> Tensor:
    """The array namespace's ``pairwise_sum``: the sum op, whose forward sums pairwise."""
    return sum(x, axis=axes, keepdims=keepdims)  # noqa: F405  (the public math's sum)


def ascontiguousarray(x: Any) -> Tensor:
    """``x`` itself: memory layout is the array namespace's concern, not the graph's."""
    return as_tensor(x)


# ---------------------------------------------------------------------------
# The rest of the array whitelist, differentiable: a composition of the math.
# ---------------------------------------------------------------------------
def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """NumPy's ``array_split``: like :func:`split`, but ``n`` sections need not divide evenly
    (the first ``len % n`` get one element more); split points are :func:`split`'s."""
    if not isinstance(indices_or_sections, (int, host_numpy.integer)):
        return split(x, indices_or_sections, axis)
    x = as_tensor(x)
    ax = one_axis(axis, x.ndim)
    n, k = x.shape[ax], int(indices_or_sections)
    if k <= 0:
        raise RefusedArgument(f"number of sections must be larger than 0, got {k}")
    sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
    return split(x, list(itertools.accumulate(sizes[:-1])), ax)


# ---------------------------------------------------------------------------
# Kernels (backend.register_kernel) as differentiable functions: the backward
# of Conv2d / MaxPool2d / Dropout calls these through ``xp`` when create_graph
# is on, with the kernels' argument order.
# ---------------------------------------------------------------------------


def conv2d(x: Any, w: Any, stride: Any, padding: Any, dilation: Any, groups: int) -> Tensor:
    op = _conv.Conv2d(stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation),
                      groups=int(groups))
    return apply(op, as_tensor(x), as_tensor(w))


def conv2d_input_grad(g: Any, w: Any, x_shape: Any, stride: Any, padding: Any, dilation: Any,
                      groups: int) -> Tensor:
    op = _conv.Conv2dInputGrad(x_shape=tuple(x_shape), stride=tuple(stride), padding=tuple(padding),
                               dilation=tuple(dilation), groups=int(groups))
    return apply(op, as_tensor(g), as_tensor(w))


def conv2d_weight_grad(x: Any, g: Any, w_shape: Any, stride: Any, padding: Any, dilation: Any,
                       groups: int) -> Tensor:
    op = _conv.Conv2dWeightGrad(w_shape=tuple(w_shape), stride=tuple(stride), padding=tuple(padding),
                                dilation=tuple(dilation), groups=int(groups))
    return apply(op, as_tensor(x), as_tensor(g))


def max_pool2d(values: Any, routing: Any, kernel: Any, stride: Any, padding: Any,
               dilation: Any) -> Tensor:
    op = _conv.MaxPool2d(kernel=tuple(kernel), stride=tuple(stride), padding=tuple(padding),
                         dilation=tuple(dilation))
    return apply(op, as_tensor(values), as_tensor(routing))


def max_pool2d_backward(g: Any, routing: Any, kernel: Any, stride: Any, padding: Any,
                        dilation: Any, top: Any = None) -> Tensor:
    del top  # the array kernel's shortcut (the window maxima, known already): the op takes them again
    op = _conv.MaxPool2dBackward(kernel=tuple(kernel), stride=tuple(stride), padding=tuple(padding),
                                 dilation=tuple(dilation))
    return apply(op, as_tensor(g), as_tensor(routing))


def keep_connected(value: Any, like: Any) -> Tensor:
    return apply(_el.KeepConnected(), as_tensor(value), as_tensor(like))


def gradient_where(mask: Any, v: Any) -> Tensor:
    return _where(mask, v, 0)


def zero_gradient_on_graph(like: Any) -> Tensor:
    like = as_tensor(like)
    return apply(_el.KeepConnected(), Tensor.constant(like.device.xp.zeros_like(like._data), like.device), like)


def keep_mask(like: Any, key: int, p: float) -> Tensor:
    """Dropout's keep-mask for ``like``'s shape (a constant bool tensor)."""
    like = as_tensor(like)
    return Tensor._wrap(like.device.xp.keep_mask(like._data, key, p), None, like.device)


def scatter_along_axis(values: Any, indices: Any, axis: int, shape: Any) -> Tensor:
    """Zeros of ``shape`` with ``values`` added at ``indices`` along ``axis``: the adjoint
    of ``take_along_axis`` (``values``/``indices`` already of one shape, indices in range)."""
    values = as_tensor(values)
    idx = _index_array("scatter_along_axis", indices, values)
    op = _ix.ScatterAlongAxis(axis=one_axis(axis, values.ndim), shape=shape_arg(shape))
    return apply(op, values, idx)


_KERNEL_TWINS = ["conv2d", "conv2d_input_grad", "conv2d_weight_grad", "max_pool2d", "max_pool2d_backward",
                 "keep_connected", "gradient_where", "zero_gradient_on_graph", "keep_mask", "scatter_along_axis",
                 "gammaln", "digamma", "polygamma", "gamma",
                 "erfc", "erfinv", "erfcinv", "betaln", "complex_from_parts"]
_SUBMODULES = ["linalg", "fft"]
_CONSTANTS = ["inf", "nan", "pi", "newaxis", "errstate", "bool_"] + [dt.name for dt in SUPPORTED_DTYPES]
_ARRAY_FUNCTIONS = [*_CONSTANT_FUNCTIONS, "asarray", "ascontiguousarray", "array_split", "real", "imag", "conj"]
__all__ = list(_math_names) + _ARRAY_FUNCTIONS + _KERNEL_TWINS + _SUBMODULES + _CONSTANTS

# Last, so that the builtin ``bool`` stays usable in the functions above:
# ``xp.bool`` is the dtype, as in an array namespace.
globals()["bool"] = host_numpy.bool_
