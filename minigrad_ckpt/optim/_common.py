"""Small helpers the optimizers share."""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..creation import get_default_dtype
from ..functional.arguments import number
from ..tensor import Tensor


def zeros_state(p: Tensor, fill: float = 0.0) -> Tensor:
    """A state tensor like ``p`` (same shape, dtype, device), filled with ``fill``."""
    arr = p.device.xp.zeros_like(p._data)
    if isinstance(fill, Tensor):  # a tensor lr (Rprop's first step sizes): read as torch.full_like reads it
        fill = number("full_like", "fill_value", fill)
    if fill:
        arr += fill
    return Tensor.constant(arr, p.device)


def real_view(a: Any) -> Any:
    """The complex array ``a`` as floats of shape ``a.shape + (2,)`` (real, imaginary), sharing
    its memory: an update of the view is an update of ``a`` -- whatever ``a``'s strides, as PyTorch's
    ``view_as_real``: a trailing axis of one element is contiguous, so NumPy's ``view`` splits it into
    the two parts (a transposed parameter's last axis is not, and its own ``view`` refuses it)."""
    part = "float32" if a.dtype.itemsize == 8 else "float64"  # complex64 is two float32s
    try:
        return a[..., None].view(part)
    except ValueError:  # a backend whose view wants the array itself contiguous (which a parameter mostly is)
        return a.view(part).reshape(tuple(a.shape) + (2,))


def complex_of_real(a: Any, shape: tuple[int, ...]) -> Any:
    """The inverse of :func:`real_view`: floats of shape ``shape + (2,)`` as complex numbers of
    shape ``shape``, sharing their memory (``a`` must be contiguous)."""
    whole = "complex64" if a.dtype.itemsize == 4 else "complex128"
    return a.view(whole).reshape(shape)


def invalid(name: str, key: str, value: Any) -> str:
    """PyTorch's words for a bad hyper-parameter (a test written for its message matches), after
    the optimizer's name."""
    words = {"lr": "learning rate: ", "eps": "epsilon value: "}.get(key, f"{key} value: ")
    return f"{name}: Invalid {words}{value}"


def check_lr_elements(lr: Any) -> None:
    """PyTorch's first check in every optimizer's constructor: a tensor ``lr`` holds one value.  (Left
    to the range checks, a two-element lr failed as an ambiguous truth value, which names no lr.)"""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def check_hyper(name: str, **values: Any) -> None:
    """Raise PyTorch's ``ValueError`` for the first hyper-parameter that is negative (or NaN); a
    tensor ``lr`` of more than one element first (:func:`check_lr_elements`)."""
    check_lr_elements(values.get("lr"))
    for k, v in values.items():
        if not v >= 0:
            raise ValueError(invalid(name, k, v))


def scalar_state(value: float, times: float | None = None) -> float:
    """``value`` (times ``times``) as PyTorch keeps a scalar of an optimizer's state (ASGD's ``eta`` and
    ``mu``, NAdam's ``mu_product``): a 0-d tensor of float64 when the default dtype is float64, of
    float32 otherwise -- so under a float32 default it is rounded, and a product is taken in float32.
    A tensor ``value`` or ``times`` (from a tensor lr or beta) is read as its number; a NumPy
    floating ``value`` (``Optimizer.scalar_products``: the state tensor's own dtype, which a loaded
    state dict may have widened) keeps its dtype, the product taken in it as PyTorch's in-place one."""
    value = value.item() if isinstance(value, Tensor) else value
    times = times.item() if isinstance(times, Tensor) else times
    if isinstance(value, host_numpy.floating):
        return float(value if times is None else value * value.dtype.type(times))
    if host_numpy.dtype(get_default_dtype()) == host_numpy.float64:
        return float(value) if times is None else float(value) * times
    narrow = host_numpy.float32(value)
    return float(narrow if times is None else narrow * host_numpy.float32(times))


def scalar_tensor(value: Any, single: bool = False) -> Tensor:
    """``value`` as PyTorch keeps a scalar of an optimizer's state (``step``, ASGD's ``eta`` and
    ``mu``, NAdam's ``mu_product``): a 0-d tensor on the host of PyTorch's scalar dtype -- float64
    when the default dtype is float64, float32 otherwise; float32 always if ``single`` (the step
    count of a group PyTorch steps with its fused kernels)."""
    value = value.item() if isinstance(value, Tensor) else value
    wide = not single and host_numpy.dtype(get_default_dtype()) == host_numpy.float64
    return Tensor.constant(host_numpy.asarray(value, dtype=host_numpy.float64 if wide else host_numpy.float32))


def as_number(x: Any) -> Any:
    """A hyper-parameter's derived scalar as a number: a 0-d tensor (from a tensor lr or beta,
    computed in its dtype, as PyTorch computes it) read as its value; a number as it is."""
    return x.item() if isinstance(x, Tensor) else x


def plain_number(x: Any) -> bool:
    """Whether a hyper-parameter is a Python int or float: NumPy's rules make it weak (a float32 array
    times it stays float32) on whole arrays and pieces alike (``Optimizer.piecewise_rule``).  A tensor or
    NumPy one goes through the in-place methods' conversions, on the whole arrays."""
    return x.__class__ is float or x.__class__ is int


def as_one_value(x: Any) -> Any:
    """A hyper-parameter's derived scalar that stays a tensor (computed in a tensor lr's dtype, as
    PyTorch computes it) as a 0-d one: an lr of shape (1,) is one value, never wider than a 0-d
    parameter it scales in place; a number as it is."""
    return x.reshape(()) if isinstance(x, Tensor) and x.ndim else x


def kernel_flags(name: str, **flags: Any) -> dict[str, Any]:
    """PyTorch's keyword arguments beside the hyper-parameters, kept in each group as PyTorch keeps
    them: ``maximize`` (the step ascends; the base step negates the gradient), and ``foreach``,
    ``fused``, ``capturable``, which pick PyTorch's kernels, not its math, so they change nothing
    here.  ``differentiable=True`` (autograd through the step itself) is refused: the step runs
    under ``no_grad``."""
    if flags.get("fused") and flags.get("differentiable"):  # PyTorch's refusals, at construction, in its order
        raise RuntimeError("`fused` does not support `differentiable`")
    if flags.get("fused") and flags.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if flags.get("differentiable"):
        raise ValueError(f"{name}: differentiable=True is not supported (the step is not recorded on the tape)")
    return flags


def refuse_complex_when_fused(opt: Any, p: Tensor, group: dict[str, Any], later: Exception | None = None) -> None:
    """PyTorch's refusal of a complex parameter ``p`` in a ``fused=True`` group (its fused kernels step
    floating-point parameters only): its check's RuntimeError -- or, for SGD and Adagrad, which check
    only the first parameter with a gradient, ``later`` (their kernel's own refusal) when ``p`` is
    not that one."""
    if not group.get("fused"):
        return
    first = next((q for g in opt.param_groups for q in g["params"] if q.grad is not None), None)
    if later is not None and first is not p:
        raise later
    raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                       f"devices but {p.dtype} and {p.device.type}")


def check_betas(name: str, betas: Any) -> tuple[float, float]:
    b = tuple(betas)
    if len(b) != 2:
        raise ValueError(f"{name}: betas must be two numbers in [0, 1), got {betas}")
    for i, beta in enumerate(b):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"{name}: Invalid beta parameter at index {i}: {beta}")
    return b


def update_moments(state: dict[str, Any], g: Any, b1: float, b2: float) -> tuple[Any, Any]:
    """Adam's moment updates in place, ``m += (1 - b1) (g - m)`` and ``v = b2 v + (1 - b2) g^2``;
    returns the arrays of ``state["exp_avg"]`` and ``state["exp_avg_sq"]``."""
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    m, v = exp_avg._data, exp_avg_sq._data
    # tensor betas as PyTorch weighs with them: 1 - b1 in the parameter's dtype (it casts beta1 so), 1 - b2 in
    # b2's, each then a number -- a 0-d tensor would round a 0-d parameter's update (a NumPy scalar) to float32
    exp_avg.add_((1 - as_number(b1)) * (g - m))  # PyTorch's lerp for weights below 0.5; in place, m updated too
    exp_avg_sq.mul_(b2).add_(as_number(1 - b2) * (g * g))
    return m, v
