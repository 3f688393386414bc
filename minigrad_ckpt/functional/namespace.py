"""The differentiable namespace: what ``xp`` is in a backward that builds a graph.

When a gradient of a gradient is requested (``create_graph=True``), the tape
calls each op's ``backward`` with Tensors and with ``xp`` set to this module
(:data:`minigrad_ckpt.tape.differentiable_namespace`), so every name a backward
uses -- ``exp``, ``where``, ``sum_to``, ``index_add``, ``xp.inf``,
``xp.float32``, a kernel such as ``conv2d_input_grad`` -- must exist here with
the array namespace's signature.  Higher-order gradients then need no second
implementation of any backward.

It holds the public math (:mod:`~minigrad_ckpt.functional.math`), the
constants and dtype names of an array namespace, and a differentiable twin of
each registered kernel (``backend.register_kernel``), with the kernel's
argument order.
"""

from __future__ import annotations

from typing import Any

from ..backend import SUPPORTED_DTYPES, host_numpy
from ..ops import conv as _conv
from ..ops import indexing as _ix
from ..tape import apply
from ..tensor import Tensor
from . import linalg  # noqa: F401  (``xp.linalg`` of the differentiable namespace)
from .arguments import as_tensor, one_axis, shape_arg
from .math import *  # noqa: F403  (the public math is part of the namespace)
from .math import __all__ as _math_names
from .math import _index_array
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
                        dilation: Any) -> Tensor:
    op = _conv.MaxPool2dBackward(kernel=tuple(kernel), stride=tuple(stride), padding=tuple(padding),
                                 dilation=tuple(dilation))
    return apply(op, as_tensor(g), as_tensor(routing))


def keep_mask(like: Any, key: int, p: float) -> Tensor:
    """Dropout's keep-mask for ``like``'s shape (a constant bool tensor)."""
    like = as_tensor(like)
    return Tensor._wrap(like.device.xp.keep_mask(like.data, key, p), None, like.device)


def scatter_along_axis(values: Any, indices: Any, axis: int, shape: Any) -> Tensor:
    """Zeros of ``shape`` with ``values`` added at ``indices`` along ``axis``: the adjoint
    of ``take_along_axis`` (``values``/``indices`` already of one shape, indices in range)."""
    values = as_tensor(values)
    idx = _index_array("scatter_along_axis", indices, values)
    op = _ix.ScatterAlongAxis(axis=one_axis(axis, values.ndim), shape=shape_arg(shape))
    return apply(op, values, idx)


def zeros_like(x: Any) -> Tensor:
    """Zeros of ``x``'s shape, dtype and device (a constant; jvp rules fill absent tangents with it)."""
    x = as_tensor(x)
    return Tensor._wrap(x.device.xp.zeros_like(x.data), None, x.device)


def ones_like(x: Any) -> Tensor:
    """Ones of ``x``'s shape, dtype and device (a constant)."""
    x = as_tensor(x)
    return Tensor._wrap(x.device.xp.ones_like(x.data), None, x.device)


_LIKE = ["zeros_like", "ones_like"]  # the array namespace's constant makers
_KERNEL_TWINS = ["conv2d", "conv2d_input_grad", "conv2d_weight_grad", "max_pool2d", "max_pool2d_backward",
                 "keep_mask", "scatter_along_axis", "gammaln", "digamma", "polygamma", "gamma", "erfc", "erfinv",
                 "erfcinv", "betaln"]
_SUBMODULES = ["linalg"]
_CONSTANTS = ["inf", "nan", "pi", "newaxis", "errstate", "bool_"] + [
    dt.name for dt in SUPPORTED_DTYPES if dt.name != "bool"]
__all__ = list(_math_names) + _KERNEL_TWINS + _SUBMODULES + _LIKE + _CONSTANTS
