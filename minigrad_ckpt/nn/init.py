"""Weight initialisation, PyTorch's formulas, driven by the engine generator.

Every function fills a tensor in place (no gradient is recorded) and returns
it.  Randomness comes from :func:`minigrad_ckpt.manual_seed`'s generator, so a
seed reproduces a model exactly, on the CPU and on a GPU alike.
"""

from __future__ import annotations

import math
from typing import Any

from .. import random as _random
from ..backend import as_dtype
from ..creation import check_normal_std
from ..functional.errors import ComplexNotImplemented, RefusedArgument
from ..functional.random_fills import _require_float
from ..grad_mode import no_grad
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "xavier_uniform_",
    "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_", "eye_", "dirac_",
    "sparse_",
    # PyTorch's deprecated names without the underscore, each with its FutureWarning
    "uniform", "normal", "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
    "orthogonal", "sparse", "dirac", "eye",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table, its int 1 for the linear ones
    included); a ``leaky_relu`` slope must be an int or float, not a bool (PyTorch's ValueError)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, float) or (isinstance(param, int) and not isinstance(param, bool)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(t: Tensor) -> tuple[int, int]:
    if t.ndim < 2:
        raise ValueError(f"fan in/out need a tensor with at least 2 dimensions, got shape {t.shape}")
    receptive = 1
    for s in t.shape[2:]:
        receptive *= s
    return t.shape[1] * receptive, t.shape[0] * receptive


# PyTorch's private name, which custom reset_parameters() copied from torch's layers call
# (fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)).
_calculate_fan_in_and_fan_out = _fans


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    """The fan ``mode`` names, ``"fan_in"`` or ``"fan_out"`` in any case (PyTorch's private helper,
    which custom initialisations call too); any other mode is PyTorch's ValueError -- it is never
    read as ``fan_out``."""
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _zero_elements(tensor: Tensor) -> bool:
    """PyTorch's He initialisations leave a tensor of no elements as it is, with this warning."""
    if 0 not in tensor.shape:
        return False
    import warnings

    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=stacklevel_outside_the_engine())
    return True


def _fill(t: Tensor, values: Any, drawn_by: str | None = None) -> Tensor:
    """``values`` written into ``t``, not recorded; ``drawn_by``: the name of the random fill that
    drew them (inside ``vmap`` a draw of its randomness, :meth:`Tensor._write_drawn`)."""
    with no_grad():
        values = Tensor.constant(values, t.device)
        t.copy_(values) if drawn_by is None else t._write_drawn(values, drawn_by)
    return t


def _real_only(tensor: Tensor, name: str) -> None:
    if tensor.dtype.kind == "c":  # PyTorch's refuse it too (a truncation or a sign needs an order)
        raise ComplexNotImplemented(f"{name} is not implemented for a complex tensor ({tensor.dtype})")


def _no_values(tensor: Tensor) -> bool:
    """Whether ``tensor`` is on the meta device, where a fill that computes its values itself (rather
    than through the tensor's own fills, which know the device) stops once its arguments are checked:
    there is nothing to write (PyTorch's fills of a model built there -- ``with torch.device("meta"):
    model = Net()`` -- draw nothing either)."""
    return tensor.device.type == "meta"


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from U(a, b), drawn from ``generator`` (a :class:`mg.Generator`) or the engine's
    (of a complex tensor, both parts): the tensor's own ``uniform_`` (the same checks and draws),
    not recorded -- PyTorch's ``nn.init`` fills under ``no_grad``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from N(mean, std^2), drawn from ``generator`` or the engine's (of a complex
    tensor, PyTorch's complex normal: each part N(mean, std^2 / 2)): the tensor's own ``normal_``,
    not recorded."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val`` in place (not recorded on the tape); returns ``tensor``."""
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros in place; returns ``tensor``."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones in place; returns ``tensor``."""
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: ``U(-b, b)`` with ``b = gain * sqrt(6 / (fan_in + fan_out))``, in place."""
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: ``N(0, std)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``, in place."""
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He initialisation: U(-b, b) with ``b = gain * sqrt(3 / fan)``."""
    if _zero_elements(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan) if fan else 0.0
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He normal: ``N(0, gain / sqrt(fan))`` for the ``nonlinearity``'s gain and ``mode``'s fan, in place."""
    if _zero_elements(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan) if fan else 0.0, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2) conditioned on ``[a, b]`` (absolute bounds, as PyTorch's; ViT-style
    initialisation). Drawn by rejection: values outside are drawn again with fresh keys, so the law is
    exactly the truncated normal (PyTorch 2.13 rejects too, with its own draws: the same law, other
    numbers). Where ``[a, b]`` holds under a quarter of the normal's mass (bounds in a tail, or narrow),
    rejection would need hundreds of draws of the whole tensor, so the CDF is inverted there. ``a == b``
    fills with ``a``; ``a > b`` is an error, as PyTorch's."""
    _real_only(tensor, "trunc_normal_")
    _require_float(tensor, "trunc_normal_")
    if a > b:  # PyTorch's uniform_(a, b) raises; a == b is a tensor of a
        raise RefusedArgument(f"trunc_normal_ expects a <= b, but found a={a} > b={b}")
    # a negative std: PyTorch's sampler reads only std ** 2 (its acceptance test), so |std|'s law
    std = abs(std)
    if _no_values(tensor):
        return tensor
    xp = tensor.device.xp
    alpha, beta = (a - mean) / std, (b - mean) / std
    if _standard_normal_mass(alpha, beta) < 0.25:
        key = _random.key_from(generator, "trunc_normal_")
        z = _truncated_standard_normal(xp, key, tensor.shape, tensor.dtype, alpha, beta)
        return _fill(tensor, xp.clip(z * std + mean, a, b).astype(tensor.dtype), "trunc_normal_")

    def draw() -> Any:  # a fresh key each time, from generator or the engine's
        return _random.normal(xp, _random.key_from(generator, "trunc_normal_"), tensor.shape, tensor.dtype) * std + mean

    values = draw()
    outside = (values < a) | (values > b)
    for _ in range(1000):  # a bound an std or more from the mean rejects few; [a, b] far out needs more
        if not bool(xp.scalar(outside.any())):
            return _fill(tensor, values, "trunc_normal_")
        values = xp.where(outside, draw(), values)
        outside = (values < a) | (values > b)
    raise ValueError(f"trunc_normal_: [{a}, {b}] holds too little of N({mean}, {std}^2) to draw from")


def _standard_normal_mass(alpha: float, beta: float) -> float:
    """``P(alpha <= Z <= beta)`` for ``Z ~ N(0, 1)``, with its digits in either tail (an interval above
    0 is measured as its mirror image below, where the CDF's values are small, not ``1 - small``)."""
    if alpha > 0:
        alpha, beta = -beta, -alpha
    return 0.5 * (math.erfc(-beta / math.sqrt(2)) - math.erfc(-alpha / math.sqrt(2)))


def _truncated_standard_normal(xp: Any, key: int, shape: tuple[int, ...], dtype: Any, alpha: float,
                               beta: float) -> Any:
    """``N(0, 1)`` conditioned on ``[alpha, beta]`` by inverting its CDF: ``u`` uniform between
    ``Phi(alpha)`` and ``Phi(beta)``, ``z = Phi^-1(u) = -sqrt(2) erfcinv(2u)``, in float64 for a float64
    tensor, float32 otherwise (no float64 array on a float32-only device).  An interval above 0 is
    drawn as its mirror image below 0 and negated, for the same reason as in ``_standard_normal_mass``."""
    work = xp.float64 if as_dtype(dtype).itemsize == 8 else xp.float32
    mirrored = alpha > 0
    if mirrored:
        alpha, beta = -beta, -alpha
    low, high = 0.5 * math.erfc(-alpha / math.sqrt(2)), 0.5 * math.erfc(-beta / math.sqrt(2))
    if work(high) == 0:  # the interval lies past the working precision's tail: the law piles up on its near end
        z = xp.full(shape, beta, dtype=work)
    else:
        u = _random.uniform(xp, key, shape, work) * (high - low) + low
        z = xp.clip(xp.erfcinv(u * 2) * -math.sqrt(2), alpha, beta)  # the clip: round-off at the ends
    return -z if mirrored else z


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (the trailing axes flattened), times ``gain``: PyTorch's
    recipe, the Q of a Gaussian matrix's QR with R's diagonal signs folded in (a uniform draw)."""
    _real_only(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    _require_float(tensor, "orthogonal_")
    if _no_values(tensor):
        return tensor
    rows, cols = tensor.shape[0], tensor.numel() // tensor.shape[0]
    xp = tensor.device.xp
    wide = "float64" if tensor.dtype.itemsize == 8 else "float32"
    flat = _random.normal(xp, _random.key_from(generator, "orthogonal_"), (rows, cols), wide)
    if rows < cols:
        flat = flat.T
    q, r = xp.linalg.qr(flat)
    q = q * xp.sign(xp.diagonal(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (q * gain).reshape(tensor.shape).astype(tensor.dtype), "orthogonal_")


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the diagonal), as PyTorch's ``eye_``."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if _no_values(tensor):
        return tensor
    return _fill(tensor, tensor.device.xp.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: the convolution passes its input
    channels through (per group), as PyTorch's ``dirac_``."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    if _no_values(tensor):
        return tensor
    xp = tensor.device.xp
    values = xp.zeros(tensor.shape, dtype=tensor.dtype)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, tensor.shape[1])):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _fill(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill a 2-D tensor as a sparse matrix (Martens 2010, PyTorch's ``sparse_``): values from
    N(0, std^2) (of a complex tensor, the complex normal of ``normal_``), then in each column
    ``ceil(sparsity * rows)`` rows, chosen at random, set to 0."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    _require_float(tensor, "sparse_")
    check_normal_std(std)
    rows, cols = tensor.shape
    # PyTorch zeroes row_indices[:ceil(sparsity * rows)]: a slice, so a count past either end is clipped
    # to it, and a negative one counts from the end (sparsity -0.5 of 4 rows zeroes 2 per column)
    zeros = len(range(rows)[:math.ceil(sparsity * rows)])
    if _no_values(tensor):
        return tensor
    xp = tensor.device.xp
    if tensor.dtype.kind == "c":  # PyTorch's tensor.normal_: each part N(0, std^2 / 2), not a real draw cast
        values = normal_(tensor, 0.0, std, generator=generator)._data
    else:
        values = _random.normal(xp, _random.key_from(generator, "sparse_"), tensor.shape, tensor.dtype) * std
    # the top 53 bits of uniform draws, as integers: a float64 uniform's order without a float64
    # array (which a float32 model on a device need not hold)
    bits = _random.uniform_bits(xp, _random.key_from(generator, "sparse_"), rows * cols)
    draws = (bits >> xp.uint64(11)).reshape(tensor.shape)
    rank = xp.argsort(xp.argsort(draws, axis=0), axis=0)  # each column's rows in a random order
    return _fill(tensor, xp.where(rank < zeros, 0, values).astype(tensor.dtype), "sparse_")


def _deprecated(fill: Any) -> Any:
    """PyTorch's old name of ``fill`` (``xavier_uniform`` for ``xavier_uniform_``), with its FutureWarning."""
    old, new = fill.__name__[:-1], fill.__name__

    def deprecated(*args: Any, **kwargs: Any) -> Tensor:
        import warnings

        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.", FutureWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return fill(*args, **kwargs)

    deprecated.__name__ = deprecated.__qualname__ = old
    deprecated.__doc__ = f"PyTorch's deprecated name of :func:`{new}` (a FutureWarning, then the same fill)."
    return deprecated


uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse, dirac, eye = _deprecated(orthogonal_), _deprecated(sparse_), _deprecated(dirac_), _deprecated(eye_)


# PyTorch's private fills, which initialisation code copied from torch's own (timm's trunc_normal_
# of old, custom reset_parameters) calls: the same fills, under the names it calls them by.
def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator: Any = None) -> Tensor:
    return uniform_(tensor, a, b, generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator: Any = None) -> Tensor:
    return normal_(tensor, mean, std, generator)


def _no_grad_trunc_normal_(tensor: Tensor, mean: float, std: float, a: float, b: float,
                           generator: Any = None) -> Tensor:
    return trunc_normal_(tensor, mean, std, a, b, generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    return constant_(tensor, val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    return zeros_(tensor)
