"""PyTorch's top-level functions that a ported program calls by ``torch.<name>``: ``mg.amax``,
``mg.norm``, ``mg.addmm``, ``mg.isclose``, ``mg.lgamma``...

Each is a composition of the public math (no op class of its own): the tape records the
matmul and the add of ``addmm``, the reduction of ``amax``, so gradients, forward mode and
checkpointing come with the parts.  The signatures and the corner cases are PyTorch's:
``amax(x, dim=())`` reduces every dim, ``norm(x, 'nuc')`` is the matrix norm,
``addmm(..., beta=0)`` ignores ``input`` (a NaN there does not reach the result), and
``isclose`` calls two equal infinities close.  Tensor's methods of the same names are these
functions (``x.amax(1)`` is ``mg.amax(x, 1)``).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..backend import (
    Device,
    as_dtype,
    broadcast_refusal,
    cpp_type_name,
    fill_scalar,
    get_default_dtype,
    host_numpy,
    scalar_type_name,
)
from ..backend import get_device as _resolve_device
from ..ops import pointwise as _pw
from ..tape import apply, watch_versions
from ..tensor import Size, Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import linalg as la
from . import linalg_derived as lad
from . import math as mf
from . import namespace, promotion
from . import special as sp
from . import special_extended as spx
from . import torch_idioms as ti
from . import torch_methods as tmeth
from .arguments import (
    as_tensor,
    check_nonempty,
    in_default_float,
    in_float32_if_half,
    is_half_tensor,
    normalize_axis,
    number,
    numpy_keywords,
    one_device,
)
from .conversion import clone
from .errors import (
    DtypeNotImplemented,
    IndexRefused,
    InputMismatch,
    IntegerDivisionByZero,
    NeedsFloatingInput,
    RefusedArgument,
    TooFewDims,
    WrongTensorKind,
)
from .indexing import _index_array
from .products import same_batches
from .scatter import gather


def get_device(spec: Any = None, index: int | None = None) -> Device | int:
    """Two meanings, picked by the argument: of a Tensor, PyTorch's ``torch.get_device(t)`` -- its
    device's index, -1 on the CPU (``t.get_device()``); else the :class:`Device` that ``spec``
    names (None: the default device; ``"cuda:0"``, a Device, or an int, a CUDA ordinal)."""
    if isinstance(spec, Tensor):
        if index is not None:
            raise TypeError("get_device(tensor) takes no index")
        return -1 if spec.device.type == "cpu" else spec.device.index
    return _resolve_device(spec, index)


def _dims(x: Tensor, dim: Any) -> Any:
    """PyTorch's ``dim`` of a reduction: None and the empty tuple both mean every dim; a 0-d
    ``x`` takes 0 or -1."""
    dim = ti.reduction_axis(x, dim)
    return tuple(dim) if isinstance(dim, list) else dim


def _truth(name: str, input: Any, dim: Any, keepdim: bool) -> Tensor:  # noqa: A002
    """``all``/``any`` as PyTorch's: an empty ``dim`` list reduces nothing -- each element's
    truth, as a bool tensor of the input's shape (unlike ``sum``, for which it means every dim)."""
    x, nothing = as_tensor(input), isinstance(dim, (tuple, list)) and len(dim) == 0  # NumPy's axis=() too
    dims = () if nothing else _dims(x, dim)
    if isinstance(dims, tuple) and dims:  # a dim listed twice: PyTorch's RuntimeError, not NumPy's ValueError
        dims = normalize_axis(dims, x.ndim)
    truth = getattr(namespace, name)(x, axis=dims, keepdims=bool(keepdim))
    return tmeth.truth_in_input_dtype(x, truth)


@numpy_keywords
def amax(input: Any, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    """The maximum over ``dim`` (every dim for ``()``), as ``torch.amax``: values only, and the
    gradient shared evenly among tied maxima."""
    x = as_tensor(input)
    dims = _dims(x, dim)
    check_nonempty("amax", x, dims)  # (in its own name: mf.max would name itself)
    return mf.max(x, axis=dims, keepdims=bool(keepdim))


@numpy_keywords
def amin(input: Any, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    """The minimum over ``dim`` (every dim for ``()``), as ``torch.amin``."""
    x = as_tensor(input)
    dims = _dims(x, dim)
    check_nonempty("amin", x, dims)  # (in its own name: mf.min would name itself)
    return mf.min(x, axis=dims, keepdims=bool(keepdim))


def all(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001,A002
    """Whether every element (along ``dim``) is non-zero, a bool tensor (``torch.all``)."""
    return _truth("all", input, dim, keepdim)


def any(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001,A002
    """Whether some element (along ``dim``) is non-zero, a bool tensor (``torch.any``)."""
    return _truth("any", input, dim, keepdim)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """``torch.norm``'s routing: a number ``p`` (None: 2) is the vector norm over ``dim`` (every
    element for None); ``'fro'`` over at most two dims is the vector 2-norm; ``'nuc'`` (and
    ``'fro'`` over more dims) is the matrix norm over ``dim`` (all dims for None)."""
    p = number("norm", "p", p)
    x = as_tensor(input)
    if dtype is None:
        ti.floating("norm", x)
    dims = [dim] if isinstance(dim, int) else dim
    if not isinstance(p, str):
        return lad.vector_norm(x, 2.0 if p is None else p, dims, keepdim, dtype=dtype)
    if p == "fro" and (dims is None or len(dims) <= 2):
        return lad.vector_norm(x, 2, dims, keepdim, dtype=dtype)
    return lad.matrix_norm(x, p, list(range(x.ndim)) if dims is None else dims, keepdim, dtype=dtype)


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """``input == other``, or a finite ``|input - other| <= atol + rtol * |other|``: a bool
    constant (``torch.isclose``: equal infinities are close, NaNs only with ``equal_nan``; a tensor
    ``other`` of another dtype is its error, a number is taken in ``input``'s dtype)."""
    rtol, atol = number("isclose", "rtol", rtol, "float"), number("isclose", "atol", atol, "float")
    for word, tol in (("rtol", rtol), ("atol", atol)):  # a negative one would make nothing close
        if tol < 0:
            raise RefusedArgument(f"isclose: {word} must be greater than or equal to zero, but got {tol}")
    x, y = one_device("isclose", as_tensor(input), other)
    if isinstance(y, Tensor) and y.dtype != x.dtype:  # PyTorch's check (a number takes x's dtype)
        raise RuntimeError(f"{tmeth.scalar_type_name(x.dtype)} did not match {tmeth.scalar_type_name(y.dtype)}")
    xp, a, b = x.device.xp, x._data, as_tensor(y, x)._data
    with broadcast_refusal(a, b):
        host_numpy.broadcast_shapes(a.shape, b.shape)
    if a.dtype.kind == "b" and b.dtype.kind == "b":  # PyTorch measures bools as the default float
        a, b = a.astype(get_default_dtype()), b.astype(get_default_dtype())
    # PyTorch's tolerance for integers is in the default float dtype (NumPy's int * float is float64)
    scale = b.astype(get_default_dtype()) if b.dtype.kind in "iu" else b
    with namespace.errstate(invalid="ignore", over="ignore"):
        error = _distance(xp, a, b)
        close = (a == b) | (xp.isfinite(error) & (error <= atol + xp.abs(rtol * scale)))
    if equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b))
    return Tensor.constant(xp.asarray(close), x.device)


def _distance(xp: Any, a: Any, b: Any) -> Any:
    """``|a - b|``, exact for integers: the larger less the smaller in the unsigned type of
    their width (``2**31 - 1 - (-2**31)`` overflows int32, and wrapped it looked close)."""
    kind = xp.result_type(a, b)
    if kind.kind not in "iu":
        return xp.abs(a - b)
    unsigned = host_numpy.dtype(f"u{kind.itemsize}")
    return xp.maximum(a, b).astype(kind).astype(unsigned) - xp.minimum(a, b).astype(kind).astype(unsigned)


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """Whether :func:`isclose` holds everywhere (one Python bool, as ``torch.allclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).numpy().all())


def msort(input: Any) -> Tensor:  # noqa: A002
    """The values sorted along dim 0 (``torch.msort``: ``torch.sort(input, 0).values``)."""
    return ti.sort_pair(as_tensor(input), 0).values


def clamp_min(input: Any, min: Any) -> Tensor:  # noqa: A002
    """``max(input, min)`` (``torch.clamp_min``; the gradient flows where ``input >= min``)."""
    return ti.clamp(input, min, None)


def clamp_max(input: Any, max: Any) -> Tensor:  # noqa: A002
    """``min(input, max)`` (``torch.clamp_max``)."""
    return ti.clamp(input, None, max)


def polygamma(n: int, input: Any) -> Tensor:  # noqa: A002
    """``psi^(n)(input)``, PyTorch's argument order (``torch.polygamma(n, input)``)."""
    return sp.polygamma(n, input)


def mvlgamma(input: Any, p: int) -> Tensor:  # noqa: A002
    """The log of the multivariate gamma function of dimension ``p`` (``torch.mvlgamma``):
    ``p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(input - j / 2)`` for every ``input``, as
    PyTorch's (which, unlike SciPy's ``multigammaln``, does not refuse ``input <= (p - 1) / 2``);
    an int ``p >= 1`` (``TypeError``, ``RuntimeError`` otherwise), no bool ``input``."""
    if not isinstance(p, (int, host_numpy.integer)) or isinstance(p, bool):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    x = as_tensor(input)
    if x.dtype == "bool":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return spx.multigammaln_sum(in_default_float(x), int(p))


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of the 1-D ``x``: column ``j`` is ``x ** (N - 1 - j)`` (``x ** j``
    when ``increasing``), as ``torch.vander``.  Built as PyTorch's, by a cumulative product of
    copies of ``x``, so the gradient at ``x = 0`` is finite; integer input gives int64."""
    x = as_tensor(x)
    if x.ndim != 1:
        raise InputMismatch(f"vander: x must be a one-dimensional tensor, got {x.ndim}-D")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RefusedArgument(f"vander: N must be non-negative, got {n}")
    if x.dtype.kind in "biu":
        x = mf.astype(x, "int64")
    columns = [Tensor.constant(x.device.xp.ones((x.shape[0], min(n, 1)), x.dtype), x.device)]
    if n > 1:
        columns.append(ti.cumprod(mf.broadcast_to(mf.reshape(x, (-1, 1)), (x.shape[0], n - 1)), dim=1))
    out = ti.cat(columns, dim=1)
    return out if increasing else mf.flip(out, 1)


# PyTorch's fused BLAS forms: ``beta * input + alpha * (product)``.  Written as the expression,
# the tape records the product and the sum; with ``beta=0`` the input is ignored, NaNs included.
# With ``alpha=0`` BLAS's gemm and gemv do not read the matrices, so PyTorch's addmm, addbmm
# (real and complex) and addmv (real) answer ``beta * input`` whatever NaN or inf the operands
# hold; its half kernels, complex addmv, addr and baddbmm (below a size) do multiply: NaN.
_BLAS_DTYPES = ("float32", "float64", "complex64", "complex128")
_BLAS_REAL_DTYPES = ("float32", "float64")


def _scaled_sum(name: str, input: Any, product: Tensor, beta: Any, alpha: Any,  # noqa: A002
                skips: tuple[str, ...] = ()) -> Tensor:
    beta, alpha = number(name, "beta", beta), number(name, "alpha", alpha)  # (PyTorch's Scalars: no tensor's grad)
    beta, alpha = (promotion.real_coefficient(name, v, input, product) for v in (beta, alpha))
    if product.dtype.kind in "iu":
        beta, alpha = (_integral_coefficient(name, w, v) for w, v in (("beta", beta), ("alpha", alpha)))
    x = as_tensor(input, product)
    if product.dtype.kind == "b":
        return _logical_sum(x, product, beta, alpha)
    if alpha == 0 and str(product.dtype) in skips:
        # the product unread: its gradient is 0, so the operands' are 0 @ other^T, NaN where the other
        # operand holds a NaN or an inf, as PyTorch's alpha * (g @ other^T)
        kept = mf.where(False, x, 0) if beta == 0 else (x if beta == 1 else beta * x)
        return mf.where(True, kept, product)
    if alpha != 1:
        product = alpha * product
    if beta == 0:  # PyTorch: "input is ignored, and nan and inf in it will not be propagated"
        return mf.where(True, product, x)  # the product itself: -0.0 stays (adding 0 made it +0.0)
    return (x if beta == 1 else beta * x) + product


@in_float32_if_half
def _scaled_sum_in_float32(name: str, input: Any, a: Tensor, b: Tensor, product: Any, beta: Any,  # noqa: A002
                           alpha: Any) -> Tensor:
    """:func:`_scaled_sum` of float16 tensors as PyTorch's half ``addmm``, ``addmv`` and ``baddbmm``
    compute it: ``beta * input + alpha * product`` in float32, rounded to float16 once.  The product
    rounded first, then the sum, was 1.2 units in the last place off (PyTorch's: 0.5), and hundreds
    where the input cancels the product.  (Its half kernels read the operands whatever ``alpha``:
    no skipped dtypes.)"""
    return _scaled_sum(name, input, product(a, b), beta, alpha)


def _logical_sum(x: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """A fused form of bools stays bool, as PyTorch's ``addr``: ``(beta and input) or (alpha and
    product)`` (``beta=3`` is true; it made an int64 sum of 3s).  A float coefficient is refused."""
    for which, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, (float, host_numpy.floating)):
            raise RuntimeError(f"For integral input tensors, argument {which} must not be a floating point number.")
    return mf.logical_or(mf.logical_and(x, bool(beta)), mf.logical_and(product, bool(alpha)))


def _integral_coefficient(name: str, which: str, value: Any) -> Any:
    """A fused form's ``alpha`` or ``beta`` for an integer product, as PyTorch takes it: ``addr``
    refuses a float (or a bool) one, the matrix forms truncate it (``addmm(..., alpha=1.5)`` of
    integers scales by 1) -- a float left as it is made the result float."""
    if isinstance(value, (bool, host_numpy.bool_)) and name == "addr":
        raise RuntimeError(f"Boolean {which} only supported for Boolean results.")
    if isinstance(value, (float, host_numpy.floating)):
        if name == "addr":
            raise RuntimeError(f"For integral input tensors, argument {which} must not be a floating point number.")
        return int(value)
    return value


def _ranks(name: str, *tensors_and_ranks: tuple[Any, int]) -> list[Tensor]:
    out = []
    for t, rank in tensors_and_ranks:
        t = as_tensor(t)
        if t.ndim != rank:
            raise InputMismatch(f"{name}: expected a {rank}-D tensor, got {t.ndim}-D (as PyTorch's)")
        out.append(t)
    return out


def _fused_dtypes(name: str, input: Any, a: Tensor, b: Tensor) -> None:  # noqa: A002
    """PyTorch's fused products compute in one dtype: an input tensor or operand of another dtype is
    its ``RuntimeError``, in its words (``mg.addmm(f64, f32, f32)``: NumPy's promotion answered float64)."""
    i = input.dtype if isinstance(input, Tensor) else a.dtype
    if i == a.dtype == b.dtype or name == "addr":  # (addr is an outer product: PyTorch's promotes)
        return
    if name == "addmv":
        raise InputMismatch(f"addmv input tensors must have the same dtype, but got {scalar_type_name(i)}, "
                            f"{scalar_type_name(a.dtype)}, and {scalar_type_name(b.dtype)}")
    if name == "baddbmm" and i != a.dtype:
        raise InputMismatch(f"Input dtypes must be the same, got: input {cpp_type_name(i)}, batch1: "
                            f"{cpp_type_name(a.dtype)}, batch2: {cpp_type_name(b.dtype)}")
    if name == "baddbmm":
        raise InputMismatch(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")
    first, which = (i, "self") if i != b.dtype else (a.dtype, "mat1")  # addmm, addbmm
    raise InputMismatch(f"{which} and mat2 must have the same dtype, but got {scalar_type_name(first)} and "
                        f"{scalar_type_name(b.dtype)}")


def _addr_operands(input: Any, a: Tensor, b: Tensor) -> tuple[Any, Tensor, Tensor]:  # noqa: A002
    """``addr``'s operands in the dtype it computes in: PyTorch expands ``input`` to the outer
    product's shape first, so a 0-d input counts as a tensor with dimensions, and the product
    is taken in the common dtype (two uint8 vectors of 200 give 40000 beside a float input, not
    their uint8 product's 64)."""
    dtype = promotion.promote_types(a.dtype, b.dtype)
    dtype = promotion.promote_types(dtype, input.dtype) if isinstance(input, Tensor) else \
        promotion.result_type(input, a.to(dtype) if a.dtype != dtype else a)
    return tuple(v.to(dtype) if isinstance(v, Tensor) and v.dtype != dtype else v for v in (input, a, b))


def _two_operands(name: str, names: tuple[str, str], given: tuple, named: dict) -> tuple[Any, Any]:
    """The product's two operands, by position or by PyTorch's names for them (``mat1=``, ``vec=``,
    ``batch2=``), with Python's TypeErrors for an unknown, repeated or missing one."""
    for key in named:
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        if names.index(key) < len(given):
            raise TypeError(f"{name}() got multiple values for argument '{key}'")
    if len(given) > 2:
        raise TypeError(f"{name}() takes 3 positional arguments but {len(given) + 1} were given")
    values = list(given) + [named[n] for n in names[len(given):] if n in named]
    if len(values) < 2:
        missing = [n for n in names[len(given):] if n not in named]
        raise TypeError(f"{name}() missing required argument: '{missing[0]}'")
    return values[0], values[1]


def _fused_signature(names: tuple[str, str]) -> inspect.Signature:
    """``(input, <names>, *, beta=1, alpha=1)``: what help() and the API docs show."""
    positional = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="Any")
                  for n in ("input", *names)]
    keywords = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=1, annotation="Any")
                for n in ("beta", "alpha")]
    return inspect.Signature(positional + keywords, return_annotation="Tensor")


def _fused_form(name: str, names: tuple[str, str], ranks: tuple[int, int], product: Any, doc: str,
                skips: tuple[str, ...] = (), operands: Any = None, half_once: bool = False) -> Any:
    """PyTorch's ``torch.<name>(input, a, b, *, beta=1, alpha=1)``: ``beta * input + alpha * product(a, b)``
    of operands of the given ranks and one dtype, ``a`` and ``b`` also by PyTorch's ``names`` for them
    (``addmm(input=c, mat1=a, mat2=b)``; the product unread at ``alpha=0`` in the dtypes ``skips``;
    ``operands(input, a, b)``, where given, puts them in the dtype the form computes in; ``half_once``:
    float16 in float32, rounded once, as :func:`_scaled_sum_in_float32`)."""
    def fn(input: Any, *given: Any, beta: Any = 1, alpha: Any = 1, **named: Any) -> Tensor:  # noqa: A002
        a, b = _two_operands(name, names, given, named)
        a, b = _ranks(name, (a, ranks[0]), (b, ranks[1]))
        _fused_dtypes(name, input, a, b)
        if ranks == (3, 3):  # baddbmm, addbmm: PyTorch's batches do not broadcast
            same_batches(a, b)
        if operands is not None:
            input, a, b = operands(input, a, b)  # noqa: A001
        if half_once and is_half_tensor(a):
            return _scaled_sum_in_float32(name, input, a, b, product, beta, alpha)
        return _scaled_sum(name, input, product(a, b), beta, alpha, skips)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__signature__ = _fused_signature(names)  # type: ignore[attr-defined]
    return fn


addmm = _fused_form("addmm", ("mat1", "mat2"), (2, 2), mf.matmul,
                    "``beta * input + alpha * (mat1 @ mat2)`` of 2-D ``mat1``, ``mat2``.", _BLAS_DTYPES, half_once=True)
addmv = _fused_form("addmv", ("mat", "vec"), (2, 1), mf.matmul,
                    "``beta * input + alpha * (mat @ vec)``, a 2-D ``mat``, 1-D ``vec``.", _BLAS_REAL_DTYPES,
                    half_once=True)
addr = _fused_form("addr", ("vec1", "vec2"), (1, 1), mf.outer,
                   "``beta * input + alpha * outer(vec1, vec2)`` of 1-D vectors.",
                   operands=_addr_operands)  # (an outer product: PyTorch's promotes, the input a full-shape operand)
baddbmm = _fused_form("baddbmm", ("batch1", "batch2"), (3, 3), mf.matmul,
                      "``beta * input + alpha * (batch1 @ batch2)``, matrix by matrix of 3-D batches.", half_once=True)
addbmm = _fused_form("addbmm", ("batch1", "batch2"), (3, 3),
                     lambda a, b: ti.sum(mf.matmul(a, b), dim=0, dtype=a.dtype),  # (ints: int64)
                     "``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``: the batch's products summed.",
                     _BLAS_DTYPES)


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:  # noqa: A002
    """``input + value * tensor1 * tensor2``, rounded in PyTorch's order (``torch.addcmul``); bools
    throughout are PyTorch's ``NotImplementedError`` (it has no bool kernel).  Floating and complex
    tensors are one op, PyTorch's kernel and derivatives (:class:`~minigrad_ckpt.ops.pointwise.Addcmul`)."""
    t1 = as_tensor(tensor1)
    if isinstance(input, Tensor) and isinstance(tensor2, Tensor) and input.dtype.kind == t1.dtype.kind == \
            tensor2.dtype.kind == "b":
        raise DtypeNotImplemented("\"addcmul_cpu_out\" not implemented for 'Bool'")
    x, t1, t2 = promotion.promoted(as_tensor(input, t1), t1, as_tensor(tensor2, t1))
    value = _coefficient_in("addcmul", value, x.dtype, x)
    if x.dtype.kind in "fc":
        return apply(_pw.Addcmul(value=value), x, t1, t2)
    return x + (t1 if value == 1 else value * t1) * t2


def _coefficient_in(name: str, value: Any, dtype: Any, x: Tensor) -> Any:
    """``addcmul``'s and ``addcdiv``'s ``value`` as PyTorch converts it to the dtype they compute in
    (the operands' common one, so ``value * tensor1`` is never rounded or wrapped in ``tensor1``'s
    own): a complex one beside real tensors by :func:`promotion.real_coefficient`, a float for an
    integer sum truncated, as C's cast (``value=1.7`` scales integers by 1).  A tensor is read as PyTorch
    reads a Scalar (:func:`~.arguments.number`): one that requires grad is its TypeError."""
    value = number(name, "value", value)
    kernel_dtype = host_numpy.float32 if dtype == host_numpy.float16 else dtype  # (PyTorch's half kernel: float)
    value = fill_scalar(name, promotion.real_coefficient(name, value, x), kernel_dtype)  # (out of range: an error)
    if dtype.kind in "iu" and isinstance(value, (float, host_numpy.floating)):
        return int(value)
    return value.item() if isinstance(value, host_numpy.generic) else value  # (an op's attribute: a Python number)


_ADDCDIV_OF_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:  # noqa: A002
    """``input + value * tensor1 / tensor2``, rounded in PyTorch's order (``torch.addcdiv``); two
    integral ``tensor1`` and ``tensor2`` are PyTorch's refusal (its old truncating division).  One op,
    PyTorch's kernel and derivatives (:class:`~minigrad_ckpt.ops.pointwise.Addcdiv`)."""
    t1 = as_tensor(tensor1)
    if t1.dtype.kind in "biu" and as_tensor(tensor2, t1).dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_OF_INTEGERS)
    x, t1, t2 = promotion.promoted(as_tensor(input, t1), t1, as_tensor(tensor2, t1))
    value = _coefficient_in("addcdiv", value, x.dtype, x)
    return apply(_pw.Addcdiv(value=value), x, t1, t2)  # (floating or complex: two integral tensors were refused)


# PyTorch's top-level names of Tensor methods (``torch.mm(a, b)`` is ``a.mm(b)``) and small queries.
def logdet(input: Any) -> Tensor:  # noqa: A002
    """``log(det(input))``: NaN for a negative determinant, ``-inf`` for zero (``torch.logdet``).

    From ``slogdet``, as PyTorch's: the determinant itself over- or underflows long before its
    logarithm does (60 eigenvalues of 10 in float32: ``det`` is inf, ``logdet`` 138.2).  A real
    matrix's NaN at a negative determinant sends no gradient back, as PyTorch's; a complex
    matrix's is ``log(sign) + log|det|``."""
    la.floating_only("logdet", as_tensor(input))
    sign, logabs = la.slogdet(input)
    if sign.dtype.kind == "c":
        return mf.log(sign) + logabs
    return mf.where(sign < 0, host_numpy.nan, logabs)


def dist(input: Any, other: Any, p: float = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm of ``input - other`` over every element (``torch.dist``)."""
    p = number("dist", "p", p)
    diff = as_tensor(input) - other
    if diff.dtype.kind in "biu":  # PyTorch's own words (its linalg's say "linalg.vector_norm: ...")
        raise NeedsFloatingInput("norm(): input dtype should be either floating point or complex. Got "
                                 f"{scalar_type_name(diff.dtype)} instead.")
    # backward reads the difference, a copy: the operands' versions are watched, as PyTorch's op saves them
    return watch_versions(la.norm(mf.ravel(diff), None if p == 2 else p),
                          [t for t in (input, other) if isinstance(t, Tensor)])


def fliplr(input: Any) -> Tensor:  # noqa: A002
    """Reversed along dim 1 (``torch.fliplr``)."""
    return mf.flip(_at_least_dims("fliplr", 2, as_tensor(input)), 1)


def flipud(input: Any) -> Tensor:  # noqa: A002
    """Reversed along dim 0 (``torch.flipud``)."""
    return mf.flip(_at_least_dims("flipud", 1, as_tensor(input)), 0)


def _at_least_dims(name: str, ndim: int, x: Tensor) -> Tensor:
    """``x``, or PyTorch's refusal of fewer dims than ``name`` flips along (not a dim out of range)."""
    if x.ndim < ndim:
        raise TooFewDims(f"{name}: Input must be >= {ndim}-d, got {x.ndim} dims")
    return x


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,  # noqa: A002
                      output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` times along ``dim`` (flattened for None), as ``torch.repeat_interleave``;
    ``repeats`` is a count or one count per element (a list or a tensor).  With ``input`` alone, it is
    the counts and each index is repeated by its own (``repeat_interleave(tensor([1, 0, 2]))`` is
    ``[0, 2, 2]``).  ``output_size`` is the result's length along ``dim``: another is PyTorch's error."""
    if repeats is None:
        counts = _repeat_counts(as_tensor(input))
        indices = namespace.arange(counts.size, dtype="int64", device=counts.device)
        out = mf.repeat(indices, mf.reshape(counts, (-1,)).tolist()) if counts.size else indices
    else:
        if isinstance(repeats, Tensor):
            repeats = _repeat_counts(repeats).tolist()
        out = mf.repeat(as_tensor(input), repeats, dim)
    if output_size is not None and output_size != (out.shape[dim] if dim is not None else out.size):
        raise RefusedArgument(f"repeat_interleave: allocated size does not match required size (output_size="
                              f"{output_size}, the repeats give {out.shape[dim] if dim is not None else out.size})")
    return out


def _repeat_counts(counts: Tensor) -> Tensor:
    """``repeat_interleave``'s counts, a 0-d or 1-D integer tensor, or PyTorch's errors (floats have
    no kernel: its NotImplementedError)."""
    if counts.ndim > 1:
        raise WrongTensorKind(f"repeat_interleave: repeats (the counts) must be 0-dim or 1-dim tensor, got "
                              f"{counts.ndim} dims")
    if counts.dtype.kind not in "iu":
        raise DtypeNotImplemented(f"repeat_interleave: the counts must be integers, got {counts.dtype}")
    return counts


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Tensor:  # noqa: A002
    """``input`` gathered at ``indices`` along ``dim`` (both flattened for None), as ``torch.take_along_dim``.

    Flattened, it is PyTorch's ``gather`` of the flat input: a negative index is out of range
    (RuntimeError), not counted from the end.  Along a dim negative indices count from the end;
    an index past either end is an ``IndexError`` here, where PyTorch 2.13 wraps it (``% size``)."""
    x = as_tensor(input)
    if dim is None:  # PyTorch flattens both and gathers (NumPy's axis=None wants 1-D indices)
        return gather(mf.ravel(x), 0, mf.ravel(as_tensor(indices, x)))
    if isinstance(indices, Tensor) and indices.dtype != host_numpy.int64:  # along a dim, int64 alone
        raise IndexRefused(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{scalar_type_name(indices.dtype)}")
    _index_array("take_along_dim", indices, x)  # (its dtype along a dim: int64 alone, as PyTorch's)
    return mf.take_along_axis(x, indices, dim)


def positive(input: Any) -> Tensor:  # noqa: A002
    """``input`` itself (``torch.positive``, the ``+x`` operator); a bool tensor is PyTorch's refusal."""
    x = as_tensor(input)
    if x.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


def is_floating_point(input: Any) -> bool:  # noqa: A002
    """Whether ``input``'s dtype is a float dtype (``torch.is_floating_point``)."""
    return as_tensor(input).dtype.kind == "f"


def is_nonzero(input: Any) -> bool:  # noqa: A002
    """The truth of a one-element tensor (``torch.is_nonzero``; more elements raise)."""
    return bool(as_tensor(input))


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a Tensor (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


@numpy_keywords
def softmax(input: Any, dim: Any = tmeth._UNSET, dtype: Any = None) -> Tensor:  # noqa: A002
    """``exp(x) / sum(exp(x))`` along ``dim`` (required, as PyTorch's), cast to ``dtype`` first (``torch.softmax``);
    complex input is refused, as PyTorch's."""
    x = tmeth.refuse_complex_input("softmax", as_tensor(input))
    return tmeth.softmax_method(x if dtype is None else mf.astype(x, dtype), dim)


@numpy_keywords
def log_softmax(input: Any, dim: Any = tmeth._UNSET, dtype: Any = None) -> Tensor:  # noqa: A002
    """``x - logsumexp(x)`` along ``dim``, cast to ``dtype`` first (``torch.log_softmax``); complex refused."""
    x = tmeth.refuse_complex_input("log_softmax", as_tensor(input))
    return tmeth.log_softmax_method(x if dtype is None else mf.astype(x, dtype), dim)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Where ``elements`` is one of ``test_elements``, a bool constant (``torch.isin``; complex refused, as there)."""
    x, test = one_device("isin", tmeth.refuse_complex_input("isin", as_tensor(elements)), test_elements)
    test = as_tensor(test, x)._data.reshape(-1)
    found = (x._data[..., None] == test).any(axis=-1)
    return Tensor.constant(~found if invert else found, x.device)


def isreal(input: Any) -> Tensor:  # noqa: A002
    """Where ``input``'s imaginary part is zero (everywhere, for a real dtype), as ``torch.isreal``."""
    x = as_tensor(input)
    xp = x.device.xp
    real = xp.imag(x._data) == 0 if x.dtype.kind == "c" else xp.ones(x.shape, dtype=bool)
    return Tensor.constant(real, x.device)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of flat ``indices``, one int64 tensor per dim (``torch.unravel_index``).
    Refused as PyTorch's: indices that are not integers (a float or bool tensor, which NumPy's casts
    would have truncated), a shape that is not ints or has a negative size, a zero size."""
    idx = as_tensor(indices)
    shape = _unravel_shape(shape)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {idx.dtype}")
    if 0 in shape and idx.numel():
        raise IntegerDivisionByZero("ZeroDivisionError: unravel_index of a shape with a size of 0")
    rest, coords = idx._data.astype("int64"), []
    for size in reversed(shape):  # the last dim varies fastest (row-major)
        coords.append(rest % size)
        rest = rest // size
    return tuple(Tensor.constant(c, idx.device) for c in reversed(coords))


def _unravel_shape(shape: Any) -> tuple[int, ...]:
    """``unravel_index``'s shape, checked with PyTorch's words (an int is a 1-D shape)."""
    if isinstance(shape, (int, host_numpy.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, Tensor) or not isinstance(shape, (tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    bad = next((s for s in shape if isinstance(s, bool) or not isinstance(s, (int, host_numpy.integer))), None)
    if bad is not None:
        raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(bad)}")
    shape = tuple(int(s) for s in shape)
    if [s for s in shape if s < 0]:
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    return shape


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape the given shapes broadcast to (``torch.broadcast_shapes``), a ``Size`` as PyTorch's
    (a tuple still, as NumPy's: ``mg.FloatTensor(mg.broadcast_shapes(a, b))`` is a tensor of that shape);
    shapes that do not broadcast are PyTorch's RuntimeError (and NumPy's ValueError, whose words follow)."""
    shapes = tuple((s,) if isinstance(s, int) else tuple(s) for s in shapes)
    try:
        return Size(host_numpy.broadcast_shapes(*shapes))
    except ValueError as err:
        if [n for s in shapes for n in s if n < 0]:  # a negative size: NumPy's ValueError, as PyTorch's
            raise
        words = str(err)  # NumPy's: "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch ..."
        raise RefusedArgument(words[:1].upper() + words[1:]) from None


def result_type(tensor1: Any, tensor2: Any) -> Any:
    """The dtype an elementwise function computes ``tensor1`` and ``tensor2`` (tensors or Python
    numbers) in, by PyTorch's rules (``torch.result_type``): ``float32`` with an int64 tensor is
    float32, beside a 0-d float64 tensor float32, an int64 tensor with a Python float the default
    float dtype (see :mod:`~minigrad_ckpt.functional.promotion`)."""
    return promotion.result_type(tensor1, tensor2)


def promote_types(type1: Any, type2: Any) -> Any:
    """The smallest dtype both dtypes convert to by PyTorch's table (``torch.promote_types``):
    across categories the higher one's dtype (``int64`` with ``float16`` is float16; NumPy's
    ``promote_types`` gives float64)."""
    return promotion.promote_types(as_dtype(type1), as_dtype(type2))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether an in-place op may write a ``from_`` result into a ``to`` tensor by PyTorch's
    casting rule (``torch.can_cast``): never to a lower category (float to an integer, complex
    to a float, a number to bool); any size within a category (float64 to float32 is allowed)."""
    order = "buifc"
    a, b = as_dtype(from_).kind, as_dtype(to).kind
    return order.index(a) <= order.index(b) or (a, b) == ("u", "i") or (a, b) == ("i", "u")


def svd(input: Any, some: bool = True, compute_uv: bool = True) -> la.SVDFactors:
    """PyTorch's (deprecated) ``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^H`` -- ``V``,
    where ``linalg.svd`` gives ``Vh``; ``some=False`` the full ``U`` and ``V``; without
    ``compute_uv``, ``U`` and ``V`` zero-filled ``(m, m)`` and ``(n, n)``, as PyTorch's."""
    if compute_uv:
        return tmeth.svd_method(as_tensor(input), some)
    x = as_tensor(input)
    s = la.svdvals(x)
    m, n = x.shape[-2:]
    xp, lead = x.device.xp, x.shape[:-2]
    return la.svd_answer(Tensor.constant(xp.zeros(lead + (m, m), dtype=x.dtype), x.device), s,
                         Tensor.constant(xp.zeros(lead + (n, n), dtype=x.dtype), x.device))


def qr(input: Any, some: bool = True) -> la.QRResult:
    """PyTorch's (deprecated) ``torch.qr``: the reduced ``(Q, R)``, or the complete one with
    ``some=False`` (``linalg.qr``'s modes)."""
    return la.qr_answer._make(la.qr(input, "reduced" if some else "complete"))


def slogdet(input: Any) -> la.SlogdetResult:  # noqa: A002
    """PyTorch's ``torch.slogdet`` and ``x.slogdet()``: ``linalg.slogdet``'s ``(sign, logabsdet)``,
    as ``torch.return_types.slogdet``."""
    return la.slogdet_answer._make(la.slogdet(input))


def cholesky(input: Any, upper: bool = False) -> Tensor:
    """PyTorch's (deprecated) ``torch.cholesky``: the lower factor ``L``, or ``L^H`` with ``upper``
    (``x.cholesky``'s, integers refused as there)."""
    return tmeth.cholesky_method(input, upper=upper)


def pinverse(input: Any, rcond: float = 1e-15) -> Tensor:
    """PyTorch's ``torch.pinverse``: the pseudo-inverse, singular values below ``rcond`` times the
    largest taken as zero (``rcond`` 1e-15 by default, where ``linalg.pinv``'s tolerance grows
    with the size)."""
    return la.pinv(input, number("pinverse", "rcond", rcond, "float"))


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """PyTorch's ``torch.rsub``: ``other - alpha * input``, ``alpha * input`` in the dtype of the
    difference (see ``mg.sub``)."""
    return mf.subtract(other, input, alpha=alpha)


#: PyTorch's top-level in-place functions, each ``input.<name>(...)`` (``torch.sin_(b)`` of the tensors
#: tutorial); the nn ones (``dropout_``), and those Tensor does not offer (``gcd_``, ``resize_as_``), left out
TORCH_IN_PLACE = ("abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
                  "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_",
                  "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
                  "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "i0_", "index_put_", "ldexp_", "log10_",
                  "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
                  "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
                  "trunc_", "xlogy_", "zero_", "gcd_", "lcm_")


def in_place_function(name: str) -> Any:
    """PyTorch's ``torch.<name>(input, ...)``: Tensor's in-place method ``input.<name>(...)``, under its
    in-place rules (a leaf that requires grad refused); anything but a tensor is PyTorch's TypeError."""

    def function(input: Any, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``mg.{name}(input, ...)``: ``input.{name}(...)``, PyTorch's top-level in-place function."
    return function


# ---- PyTorch's top-level twins of Tensor methods (``torch.is_conj(x)`` is ``x.is_conj()``) ----
def is_conj(input: Any) -> bool:  # noqa: A002
    """``torch.is_conj``: always False here -- a conjugate is computed, never a lazy bit on a view."""
    return as_tensor(input).is_conj()


def is_neg(input: Any) -> bool:  # noqa: A002
    """``torch.is_neg``: always False here -- a negation is computed, never a lazy bit on a view."""
    return as_tensor(input).is_neg()


def resolve_conj(input: Any) -> Tensor:  # noqa: A002
    """``torch.resolve_conj``: the tensor itself (there is no lazy conjugate bit to resolve)."""
    return as_tensor(input).resolve_conj()


def resolve_neg(input: Any) -> Tensor:  # noqa: A002
    """``torch.resolve_neg``: the tensor itself (there is no lazy negative bit to resolve)."""
    return as_tensor(input).resolve_neg()


def is_signed(input: Any) -> bool:  # noqa: A002
    """``torch.is_signed``: whether the dtype holds negative numbers (floats, complex, signed ints)."""
    return as_tensor(input).is_signed()


def is_same_size(input: Any, other: Any) -> bool:  # noqa: A002
    """``torch.is_same_size``: whether the two shapes are equal."""
    return as_tensor(input).is_same_size(as_tensor(other))


def detach(input: Any) -> Tensor:  # noqa: A002
    """``torch.detach``: ``input.detach()``, the same memory without history."""
    return as_tensor(input).detach()


def split_with_sizes(input: Any, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``torch.split_with_sizes``: pieces of the listed sizes along ``dim``."""
    return as_tensor(input).split_with_sizes(split_sizes, dim)


def fill(input: Any, value: Any) -> Tensor:  # noqa: A002
    """``torch.fill``: a new tensor of ``input``'s shape, dtype and device holding ``value`` (the
    out-of-place ``fill_``; a 0-d tensor ``value`` gets the gradient, summed)."""
    x = as_tensor(input)
    if isinstance(value, Tensor) and value.requires_grad:
        return clone(mf.broadcast_to(mf.astype(value, x.dtype), x.shape))
    return x.clone().fill_(value)  # differentiable in ``input`` (a zero gradient), as torch's


def chain_matmul(*matrices: Any) -> Tensor:
    """``torch.chain_matmul`` (deprecated there for ``linalg.multi_dot``): the product of the matrices,
    in the cheapest order; one matrix is itself."""
    import warnings

    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=stacklevel_outside_the_engine())
    return as_tensor(matrices[0]) if len(matrices) == 1 else lad.multi_dot(list(matrices))
