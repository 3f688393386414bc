"""Every differentiable operation, one small class each, and the registry.

Importing this package registers all ops; :data:`registry` maps each op's
name to its class.  Read :mod:`.base` first: it states the op contract.
"""

from . import (  # noqa: F401
    activation,
    bessel,
    comparison,
    complex_numbers,
    conv,
    ctc,
    device,
    dropout,
    elementwise,
    fft,
    incomplete_gamma,
    indexing,
    interpolation,
    ldl,
    linalg,
    linear_cross_entropy,
    loss,
    lu,
    matrix,
    matrix_exp,
    norm,
    orthogonal_polynomials,
    pointwise,
    recurrent,
    reduction,
    regression_loss,
    scaled_special,
    shape,
    special,
    zeta,
)
from .base import FunctionOp, LinearOp, Op, add_tangents, get_op, registry
from .elementwise import BinaryElementwise, UnaryElementwise

__all__ = ["Op", "LinearOp", "FunctionOp", "registry", "get_op", "add_tangents", "UnaryElementwise",
           "BinaryElementwise"]
