"""Tensor's random fills in place: ``x.normal_()``, ``x.uniform_(-b, b)``, ``x.bernoulli_(p)``, ...

PyTorch code initialises with them (torchvision's ViT: ``torch.empty(1, n, d).normal_(std=0.02)``;
older code ``m.weight.data.normal_(0, 0.02)``). Each fill draws a fresh sample from the engine's
generator (one key per call, or ``generator=``) in the tensor's shape, dtype and device, and writes
it with ``copy_``. So the write follows the in-place rules: refused on a leaf that requires grad
outside ``no_grad``, recorded otherwise with no gradient to the values it overwrites (as
PyTorch's), seen by every view; and a checkpointed segment keeps the drawn sample as the constant
its replay reads, bit for bit.  Inside ``mg.func.vmap`` the write is judged as a draw of the vmap's
randomness, not as a value of the example (``Tensor._write_drawn``).  The laws are PyTorch's; the
numbers are the engine generator's.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from .. import creation
from .. import random as _random
from ..backend import broadcast_refusal, cpp_type_name, host_numpy, scalar_type_name
from ..tensor import Tensor
from .arguments import number, numbers
from .elementwise_compositions import zero_link
from .errors import ComplexNotImplemented, DtypeNotImplemented


def _require_float(x: Tensor, name: str) -> None:
    """PyTorch's kernels of these laws are floating only: its NotImplementedError (a RuntimeError too)."""
    if x.dtype.kind not in "fc":
        raise DtypeNotImplemented(f"{name} expects a floating point tensor, got {x.dtype}")


def _require_real(x: Tensor, name: str) -> None:
    """The laws with no complex counterpart refuse a complex tensor (PyTorch's do too)."""
    if x.dtype.kind == "c":
        raise ComplexNotImplemented(f"{name} draws real numbers; it is not implemented for a complex tensor "
                                    f"({x.dtype})")


def _location(x: Tensor, value: float) -> float | complex:
    """``value`` as a fill's location: of a complex ``x``, in both parts -- PyTorch fills a complex
    tensor through its real view, so ``normal_(mean=1.0)`` has mean ``1 + 1j`` and
    ``uniform_(-b, b)`` draws both parts from ``[-b, b)``."""
    return complex(value, value) if x.dtype.kind == "c" else value


def _uniform01(x: Tensor, generator: _random.Generator | None) -> Tensor:
    """Samples in [0, 1) shaped like ``x``, in its float dtype (float64 for an integer ``x``)."""
    dtype = x.dtype if x.dtype.kind == "f" else "float64"
    return creation.rand(*x.shape, dtype=dtype, device=x.device, generator=generator)



def _nothing_drawn(x: Tensor, what: str, operand: Tensor | None = None) -> Tensor:
    """The fill of a tensor on the meta device, once its arguments passed the checks every device's
    fill makes: no values to draw (PyTorch's meta fills draw nothing and take nothing from the
    generator), but the write's own rules are kept -- an empty meta value through ``copy_`` (a leaf
    that requires grad is refused; a tensor ``operand``, ``bernoulli_``'s ``p``, must broadcast to ``x``)."""
    shape = x.shape
    if operand is not None:
        with broadcast_refusal(x, operand):  # (the words of the CPU fill's comparison of the draws with p)
            shape = host_numpy.broadcast_shapes(x.shape, operand.shape)
    return x._write_drawn(creation.empty(shape, dtype=x.dtype, device=x.device), what, operand)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: _random.Generator | None = None) -> Tensor:
    """Fill with samples of N(mean, std^2) (a complex tensor: PyTorch's complex normal)."""
    mean, std = numbers("normal_", "float", mean=mean, std=std)
    _require_float(self, "normal_")
    creation.check_normal_std(std)
    if self.device.type == "meta":
        return _nothing_drawn(self, "normal_")
    z = creation.randn(*self.shape, dtype=self.dtype, device=self.device, generator=generator)
    return self._write_drawn(z * std + _location(self, mean), "normal_")


def uniform_(self: Tensor, *args: float, generator: _random.Generator | None = None, **bounds: float) -> Tensor:
    """Fill with samples of U[from, to): ``x.uniform_(-b, b)`` or PyTorch's keywords
    ``x.uniform_(**{"from": -b, "to": b})`` (``from`` is Python's keyword)."""
    _require_float(self, "uniform_")
    names = ("from", "to")
    if len(args) > 2 or set(bounds) - set(names) or any(n in bounds for n in names[:len(args)]):
        raise TypeError(f"uniform_(from=0, to=1, *, generator=None): got {args} and {sorted(bounds)}")
    low, high = (*args, *(bounds.get(n, d) for n, d in zip(names[len(args):], (0.0, 1.0)[len(args):])))
    low, high = numbers("uniform_", "float", **{"from": low, "to": high})
    if self.dtype.kind == "f":
        _check_uniform_bounds(low, high, self.dtype)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    if self.device.type == "meta":
        return _nothing_drawn(self, "uniform_")
    u = creation.rand(*self.shape, dtype=self.dtype, device=self.device, generator=generator)
    top = _below(high, self.dtype) if self.dtype.kind == "f" else None
    if u._data.__class__ is host_numpy.ndarray and self.dtype in _SCALED_IN_PLACE:
        # the fresh draws scaled in place, the clamp only where it changes something: the same bits as
        # the tensor arithmetic below, without three temporaries of the tensor's size (a 2048x512
        # float32 weight's uniform_ took 16.4 ms against torch's 2.9; rand alone 3.3)
        value = u._data
        host_numpy.multiply(value, high - low, out=value)
        host_numpy.add(value, low, out=value)
        if top is not None and top >= low and bool((value > top).any()):
            u = u.clamp(max=top)
        return self._write_drawn(u, "uniform_")
    value = u * (high - low) + _location(self, low)
    if top is not None and top >= low:  # rounding to the dtype reached ``to`` (float32's uniform_(1000, 1001)
        value = value.clamp(max=top)  # drew 1001.0): PyTorch's draws stay below it
    return self._write_drawn(value, "uniform_")


#: the dtypes whose scaling by a number is NumPy's on the array (float16's rounds through float32)
_SCALED_IN_PLACE = (host_numpy.dtype(host_numpy.float32), host_numpy.dtype(host_numpy.float64))


def _check_uniform_bounds(low: float, high: float, dtype: Any) -> None:
    """PyTorch's checks of a real ``uniform_``'s bounds: each within the dtype's range (a NaN is not), and
    ``to - from`` too -- the draws are ``from + u * (to - from)``, which would be inf (or be clamped)."""
    largest = float(host_numpy.finfo(dtype).max)
    for name, bound in (("from", low), ("to", high)):
        if not -largest <= bound <= largest:
            raise RuntimeError(f"{name} is out of bounds for {cpp_type_name(dtype)}")
    if high - low > largest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{scalar_type_name(dtype)}>::max(), but "
                           f"found to={high} and from={low} which result in to-from to exceed the limit")


def _below(bound: float, dtype: Any) -> float:
    """The largest value of the float ``dtype`` below ``bound``."""
    near = host_numpy.asarray(bound, dtype=dtype)
    return float(host_numpy.nextafter(near, dtype.type(-math.inf)) if near >= bound else near)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: _random.Generator | None = None) -> Tensor:
    """Fill with 1 where a uniform draw falls below ``p`` (a number, or a tensor broadcast to
    ``self``), 0 elsewhere; any dtype, as PyTorch's."""
    _require_real(self, "bernoulli_")
    prob = p if isinstance(p, Tensor) else float(p)
    if not isinstance(prob, Tensor) and not 0.0 <= prob <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={prob}")
    if self.device.type == "meta":  # (a meta p has no values to check either)
        return _nothing_drawn(self, "bernoulli_", prob if isinstance(prob, Tensor) else None)
    if isinstance(prob, Tensor) and prob.numel():  # PyTorch checks each p too (one read on the host)
        inside = (prob._data >= 0) & (prob._data <= 1)  # (NaN is outside)
        if not bool(prob.device.xp.scalar(inside.all())):
            raise RuntimeError("bernoulli_ expects every p of the tensor to be in [0, 1] (PyTorch's "
                               "'Expected p_in >= 0 && p_in <= 1 to be true')")
    below = (_uniform01(self, generator) < (prob.detach() if isinstance(prob, Tensor) else prob)).to(self.dtype)
    if isinstance(prob, Tensor) and prob.requires_grad and self.dtype.kind == "f":
        below = below + zero_link(prob, self.dtype)  # PyTorch's p, a tensor, is differentiated: gradient 0
    return self._write_drawn(below, "bernoulli_", operand=prob if isinstance(prob, Tensor) else None)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: _random.Generator | None = None) -> Tensor:
    """Fill with samples of the exponential law of rate ``lambd``: ``-log(1 - u) / lambd``."""
    lambd = number("exponential_", "lambd", lambd, "float")
    _require_real(self, "exponential_")
    _require_float(self, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    if self.device.type == "meta":
        return _nothing_drawn(self, "exponential_")
    return self._write_drawn(-(1 - _uniform01(self, generator)).log() / lambd, "exponential_")


def geometric_(self: Tensor, p: float, *, generator: _random.Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...)."""
    p = number("geometric_", "p", p, "float")
    _require_real(self, "geometric_")
    if self.dtype.kind == "b":  # (every draw is True: PyTorch has no such kernel)
        raise DtypeNotImplemented("geometric_ is not implemented for a bool tensor (PyTorch's \"geometric_cpu\" "
                                  "not implemented for 'Bool')")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self.device.type == "meta":
        return _nothing_drawn(self, "geometric_")
    u = _uniform01(self, generator)
    trials = ((1 - u).log() / math.log1p(-p)).ceil().clamp(min=1)
    return self._write_drawn(trials.to(self.dtype), "geometric_")


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: _random.Generator | None = None) -> Tensor:
    """Fill with ``exp(N(mean, std^2))``."""
    mean, std = numbers("log_normal_", "float", mean=mean, std=std)
    _require_real(self, "log_normal_")
    _require_float(self, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if self.device.type == "meta":
        return _nothing_drawn(self, "log_normal_")
    z = creation.randn(*self.shape, dtype=self.dtype, device=self.device, generator=generator)
    return self._write_drawn((z * std + mean).exp(), "log_normal_")


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: _random.Generator | None = None) -> Tensor:
    """Fill with samples of the Cauchy law: ``median + sigma * tan(pi * (u - 1/2))``."""
    median, sigma = numbers("cauchy_", "float", median=median, sigma=sigma)
    _require_real(self, "cauchy_")
    _require_float(self, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    if self.device.type == "meta":
        return _nothing_drawn(self, "cauchy_")
    return self._write_drawn(((_uniform01(self, generator) - 0.5) * math.pi).tan() * sigma + median, "cauchy_")


def random_(self: Tensor, *args: int, generator: _random.Generator | None = None, **bounds: int) -> Tensor:
    """Fill with integers drawn uniformly: ``random_(to)`` from ``[0, to)``, ``random_(from, to)`` from
    ``[from, to)``, ``random_()`` from ``[0, 2**mantissa]`` for a float dtype (every integer it holds
    exactly) or ``[0, max]`` for an integer dtype, as PyTorch's."""
    _require_real(self, "random_")
    names = ("from", "to")
    if len(args) > 2 or set(bounds) - set(names):
        raise TypeError(f"random_(from=0, to=None, *, generator=None): got {args} and {sorted(bounds)}")
    low, high = (0, args[0]) if len(args) == 1 else (*args, *([0, None][len(args):]))
    low, high = bounds.get("from", low), bounds.get("to", high)
    low = _integer_bound("from", low)  # (a float bound is PyTorch's TypeError; 1.5 drew zeros)
    high = _top_of(self) + 1 if high is None else _integer_bound("to", high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    creation._check_random_bounds(low, high, self.dtype)  # within the dtype (NumPy's cast wrapped them)
    if self.device.type == "meta":
        return _nothing_drawn(self, "random_")
    draw = creation.randint(int(low), int(high), tuple(self.shape), device=self.device, generator=generator)
    return self._write_drawn(draw.to(self.dtype), "random_")


def _integer_bound(name: str, v: Any) -> int:
    """A bound of ``random_``: an integer (a 0-d integer tensor too), as PyTorch's; a float or a bool
    is its TypeError."""
    if isinstance(v, (bool, host_numpy.bool_)) or not hasattr(v, "__index__"):
        raise TypeError(f"random_(): argument '{name}' must be int, not {type(v).__name__}")
    return operator.index(v)


def _top_of(x: Tensor) -> int:
    """The largest integer ``random_()`` draws for ``x``'s dtype."""
    dt = x.dtype
    if dt.kind == "b":
        return 1
    if dt.kind in "iu":
        return int(host_numpy.iinfo(dt).max)
    return 2 ** (int({2: 10, 4: 23, 8: 52}[dt.itemsize]) + 1)
