"""``mg.distributions.transforms``: PyTorch's invertible maps for ``TransformedDistribution`` --
``ExpTransform``, ``AffineTransform``, ``PowerTransform``, ``SigmoidTransform``, ``TanhTransform``,
``SoftplusTransform``, ``AbsTransform`` (not bijective) and ``ComposeTransform``; and the maps of whole events,
``SoftmaxTransform``, ``StickBreakingTransform``, ``LowerCholeskyTransform``, ``ReshapeTransform`` and
``IndependentTransform``
(and each one's ``.inv``) -- with PyTorch's forward, inverse, ``log_abs_det_jacobian``, ``sign``,
``domain``/``codomain`` and equality (two ``ExpTransform()`` are equal: KL between transformed
distributions asks). All are elementwise; ``AffineTransform(event_dim=n)`` sums its Jacobian over the
last ``n`` dims, as PyTorch's. ``cache_size=1`` keeps the last ``(x, y)`` pair, as PyTorch's: the
inverse of the very ``y`` a transform returned is the ``x`` it came from, not a recomputation -- which
``atanh(tanh(x))`` is not (it is inf once ``tanh(x)`` rounds to 1), so a ``TanhTransform(cache_size=1)``
policy's ``log_prob(rsample())`` stays finite and exact."""

from __future__ import annotations

import math
import weakref
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional import linalg
from ..functional.diagonal import eye as eye_matrix
from ..functional.shape import stack
from ..functional.torch_idioms import cat
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints

__all__ = ["Transform", "ExpTransform", "AffineTransform", "PowerTransform", "SigmoidTransform", "TanhTransform",
           "SoftplusTransform", "AbsTransform", "ComposeTransform", "identity_transform", "SoftmaxTransform",
           "StickBreakingTransform", "LowerCholeskyTransform", "ReshapeTransform", "IndependentTransform",
           "CatTransform", "StackTransform", "PositiveDefiniteTransform", "CumulativeDistributionTransform",
           "CorrCholeskyTransform"]


class Transform:
    """An invertible map ``y = t(x)``: ``t(x)``, ``t.inv(y)``, ``log_abs_det_jacobian(x, y)``."""

    bijective = True
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    # the one inverse object handed out, held weakly as PyTorch's (so ``t.inv.inv is t``, with no cycle)
    _inverse_ref: Any = None

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)

    @property
    def event_dim(self) -> int:
        return self.domain.event_dim

    @property
    def sign(self) -> Any:
        """+1 or -1 where the map increases or decreases; PyTorch's base refuses (``|x|``, a softmax, a
        reshape have none), so ``TransformedDistribution.cdf`` through them raises rather than mislead."""
        raise NotImplementedError

    @property
    def inv(self) -> Transform:
        """The inverse map, the same object each time while it lives (``t.inv.inv is t``, as PyTorch's)."""
        inverse = self._inverse_ref() if self._inverse_ref is not None else None
        if inverse is None:
            inverse = self._make_inverse()
            self._inverse_ref = weakref.ref(inverse)
        return inverse

    def _make_inverse(self) -> Transform:
        return _InverseTransform(self)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_inverse_ref", None)  # a weak reference does not pickle; the inverse is remade on demand
        return state

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform keeping ``cache_size`` pairs (a new one where the size differs)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __call__(self, x: Tensor) -> Tensor:
        """``y = t(x)``; with a cache, the last ``y`` again where ``x`` is the last ``x`` (the same object)."""
        return self._through_cache(x, 0, self._call)

    def _inv_call(self, y: Tensor) -> Tensor:
        """``self.inv(y)``: the cached ``x`` where ``y`` is the ``y`` last returned (the same object)."""
        return self._through_cache(y, 1, self._inverse)

    def _through_cache(self, value: Tensor, side: int, compute: Any) -> Tensor:
        """``compute(value)``, or the other member of the cached ``(x, y)`` pair where ``value`` is its
        member ``side`` (0: ``x``, 1: ``y``); the pair is then ``value`` and the answer."""
        if not self._cache_size:
            return compute(value)
        pair = self._cached_x_y
        if value is pair[side]:
            return pair[1 - side]
        out = compute(value)
        self._cached_x_y = (value, out) if side == 0 else (out, value)
        return out

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        """The shape ``t(x)`` has for ``x`` of ``shape`` (the same, but for maps that change an event's size)."""
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        """The shape ``t.inv(y)`` has for ``y`` of ``shape``."""
        return tuple(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """``t.inv``: ``t`` read backwards (its inverse is ``t`` itself)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(transform._cache_size)
        self._inv = transform
        self.domain, self.codomain, self.bijective = transform.codomain, transform.domain, transform.bijective

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def __call__(self, x: Tensor) -> Tensor:  # through the forward transform's cache
        return self._inv._inv_call(x)

    def _inv_call(self, y: Tensor) -> Tensor:
        return self._inv(y)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._inv.with_cache(cache_size).inv

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return self._inv.forward_shape(shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = Transform.__hash__

    def __repr__(self) -> str:
        return f"_InverseTransform({self._inv!r})"


class _Stateless(Transform):
    """A transform with no parameters: any two of its class are equal (PyTorch's ``__eq__``)."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    __hash__ = Transform.__hash__


class ExpTransform(_Stateless):
    """``y = exp(x)``."""

    sign = 1
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class SigmoidTransform(_Stateless):
    """``y = sigmoid(x)``, clamped into ``[tiny, 1 - eps]`` as PyTorch's (so the inverse is finite)."""

    sign = 1
    codomain = constraints.unit_interval

    def _call(self, x: Tensor) -> Tensor:
        finfo = host_numpy.finfo(x.dtype)
        return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = host_numpy.finfo(y.dtype)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(_Stateless):
    """``y = tanh(x)`` (SAC's squashed Gaussian); the Jacobian in PyTorch's stable form."""

    sign = 1
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SoftplusTransform(_Stateless):
    """``y = log(1 + exp(x))``; inverse ``log(-expm1(-y)) + y``, PyTorch's stable form."""

    sign = 1
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return F.softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -F.softplus(-x)


class AbsTransform(_Stateless):
    """``y = |x|``: not bijective (PyTorch's ``bijective`` is False); its "inverse" is the identity, and it has
    no Jacobian."""

    codomain = constraints.positive
    bijective = False

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


def _sum_rightmost(value: Tensor, n: int) -> Tensor:
    return value.sum(tuple(range(-n, 0))) if n > 0 else value


def _sign_of(value: Any) -> Any:
    """The sign of a transform's parameter: a number's as a number, a tensor's as a tensor."""
    if isinstance(value, (int, float)):
        return 1 if value > 0 else -1 if value < 0 else 0
    return value.sign()


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` rightmost dims read as one event (Jacobian summed)."""

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim
        base = constraints.real if event_dim == 0 else constraints.independent(constraints.real, event_dim)
        self.domain = self.codomain = base

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self._event_dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return _sign_of(self.scale)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        """``shape`` broadcast with ``loc``'s and ``scale``'s: a tensor ``loc`` widens a scalar base."""
        return tuple(host_numpy.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                                 tuple(getattr(self.scale, "shape", ()))))

    inverse_shape = forward_shape

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if isinstance(self.scale, (int, float)):
            # a constant, as PyTorch's full_like: no graph through x (whose graph a backward of it would free)
            # and no NaN where x is infinite
            result = creation.full_like(x.detach(), math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
            shape = tuple(host_numpy.broadcast_shapes(tuple(result.shape), tuple(x.shape)))
            result = result.expand(*shape) if tuple(result.shape) != shape else result
        return _sum_rightmost(result, self._event_dim)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return _same(self.loc, other.loc) and _same(self.scale, other.scale)

    __hash__ = Transform.__hash__


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals (``exponent`` a tensor or number, as PyTorch's)."""

    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return _sign_of(self.exponent)

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    __hash__ = Transform.__hash__

    def __repr__(self) -> str:
        return "PowerTransform()"


def _same(a: Any, b: Any) -> bool:
    """PyTorch's test of two affine parameters: numbers by ``==``, tensors elementwise, all equal."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return bool((a == b).all().item())


def _composed_domain(parts: list[Transform]) -> constraints.Constraint:
    """The first part's domain, read over as many event dims as the whole chain needs (PyTorch's rule):
    ``[Affine(event_dim=0), Affine(event_dim=2)]`` takes matrices though its first part is elementwise,
    and a reshape that adds a dim needs one fewer on the way in."""
    event_dim = parts[-1].codomain.event_dim
    for part in reversed(parts):
        event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
    return _widened(parts[0].domain, event_dim)


def _composed_codomain(parts: list[Transform]) -> constraints.Constraint:
    """The last part's codomain over as many event dims as the chain's outputs have (PyTorch's rule)."""
    event_dim = parts[0].domain.event_dim
    for part in parts:
        event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
    return _widened(parts[-1].codomain, event_dim)


def _widened(constraint: constraints.Constraint, event_dim: int) -> constraints.Constraint:
    extra = event_dim - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


class ComposeTransform(Transform):
    """``parts`` applied in order (``ComposeTransform([])`` is the identity)."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.parts = [part.with_cache(cache_size) for part in parts] if cache_size else list(parts)
        if self.parts:
            self.domain, self.codomain = _composed_domain(self.parts), _composed_codomain(self.parts)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max((p.event_dim for p in self.parts), default=0)

    @property
    def sign(self) -> Any:  # type: ignore[override]
        sign: Any = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    def _make_inverse(self) -> Transform:
        inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
        inverse._inverse_ref = weakref.ref(self)  # its inverse is this composition again
        return inverse

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return tuple(shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return creation.zeros_like(x.detach())  # PyTorch's zeros_like: 0 at an infinite x too
        event_dim, total = self.domain.event_dim, 0
        for i, part in enumerate(self.parts):  # the intermediates from the parts' caches, the last is y
            y_part = y if i == len(self.parts) - 1 else part(x)
            total = total + _sum_rightmost(part.log_abs_det_jacobian(x, y_part), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
            x = y_part
        return total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = Transform.__hash__

    def __repr__(self) -> str:
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


#: PyTorch's identity map, an empty composition
identity_transform = ComposeTransform([])


# Transforms of whole events rather than elements: reals to the simplex (a softmax, not bijective; stick
# breaking, bijective: LogisticNormal's and biject_to(simplex)'s map), matrices to Cholesky factors, an event's
# shape, and a transform whose rightmost batch dims are read as event dims.

class SoftmaxTransform(_Stateless):
    """``y = softmax(x)`` over the last dim; its "inverse" is ``log y`` (one of the pre-images)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = False

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()


def _ones(like: Tensor, count: int) -> Tensor:
    return creation.ones(count, dtype=like.dtype, device=like.device)


def _stick_offsets(like: Tensor, count: int) -> Tensor:
    """``log(count), log(count - 1), ..., log(1)``: the shift that makes ``x = 0`` the simplex's centre."""
    return (count + 1 - _ones(like, count).cumsum(-1)).log()


class StickBreakingTransform(_Stateless):
    """``x`` in ``R^(K-1)`` to the ``K``-simplex by breaking a unit stick: ``z_i = sigmoid(x_i - log(K - i))``
    of what is left, the remainder last."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        finfo = host_numpy.finfo(x.dtype)
        z = (x - _stick_offsets(x, x.shape[-1])).sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        left = (1 - z).cumprod(-1)
        ones = _ones(x, 1).expand(*x.shape[:-1], 1)
        return cat([z, ones], -1) * cat([ones, left], -1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        offset = (y.shape[-1] - _ones(y, y_crop.shape[-1]).cumsum(-1)).log()
        # clamped: the stick left can round to 0 or below where y[-1] ~ 0 (PyTorch's)
        left = (1 - y_crop.cumsum(-1)).clamp(min=float(host_numpy.finfo(y.dtype).tiny))
        return y_crop.log() - left.log() + offset

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x = x - _stick_offsets(x, x.shape[-1])
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)  # 1 - sigmoid(x) = exp(-x) sigmoid(x)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return (*shape[:-1], shape[-1] + 1)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return (*shape[:-1], shape[-1] - 1)


class LowerCholeskyTransform(_Stateless):
    """The strictly lower triangle kept, the diagonal exponentiated (not bijective on all matrices: the
    upper triangle is dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky
    bijective = False

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_Stateless):
    """Square matrices to positive-definite ones: ``L L^T`` of the ``LowerCholeskyTransform`` of ``x`` (not
    bijective: the upper triangle is dropped); the inverse through the Cholesky factor."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite
    bijective = False

    def _call(self, x: Tensor) -> Tensor:
        factor = LowerCholeskyTransform()(x)
        return factor @ factor.transpose(-2, -1)

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: a distribution's support onto ``[0, 1]``; inverse its ``icdf``, log-Jacobian
    its ``log_prob`` (the density is the CDF's derivative)."""

    sign = 1
    codomain = constraints.unit_interval

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.distribution.support

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)


class ReshapeTransform(Transform):
    """An event of ``in_shape`` reshaped to ``out_shape`` (as many elements); its Jacobian is 0."""

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)
        self.domain = constraints.independent(constraints.real, len(self.in_shape))
        self.codomain = constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        return x.reshape(*x.shape[:x.ndim - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.reshape(*y.shape[:y.ndim - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return creation.zeros(*x.shape[:x.ndim - len(self.in_shape)], dtype=x.dtype, device=x.device)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return (*shape[:len(shape) - len(self.in_shape)], *self.out_shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return (*shape[:len(shape) - len(self.out_shape)], *self.in_shape)


class IndependentTransform(Transform):
    """``base_transform`` with its ``reinterpreted_batch_ndims`` rightmost batch dims read as event dims: its
    Jacobian summed over them."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


def _check_along(t: Tensor, dim: int, size: int, what: str, name: str) -> None:
    """PyTorch's assertions on the tensor a Cat/Stack transform is given."""
    if not -t.ndim <= dim < t.ndim:
        raise AssertionError(f"dim {dim} out of range for {name} with {t.ndim} dimensions")
    if t.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {t.shape[dim]} must equal {what} {size}")


class CatTransform(Transform):
    """``tseq[i]`` applied to the ``i``-th of consecutive slices (``lengths``, ones by default) along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        super().__init__(cache_size)
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else CatTransform(self.transforms, self.dim, self.lengths,
                                                                        cache_size)

    def _slices(self, t: Tensor) -> list[Tensor]:
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [t.narrow(self.dim, start, length) for start, length in zip(starts, self.lengths)]

    def _call(self, x: Tensor) -> Tensor:
        _check_along(x, self.dim, self.length, "length", "x")
        return cat([t(piece) for t, piece in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        _check_along(y, self.dim, self.length, "length", "y")
        return cat([t.inv(piece) for t, piece in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _check_along(x, self.dim, self.length, "length", "x")
        _check_along(y, self.dim, self.length, "length", "y")
        parts = [_sum_rightmost(t.log_abs_det_jacobian(xs, ys), self.event_dim - t.event_dim)
                 for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))]
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + self.event_dim
        # the slices' Jacobians side by side where dim is a batch dim, summed where it is inside the event
        return cat(parts, dim) if dim < 0 else sum(parts[1:], parts[0])


class StackTransform(Transform):
    """``tseq[i]`` applied to the ``i``-th entry along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        super().__init__(cache_size)
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.dim = dim

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else StackTransform(self.transforms, self.dim, cache_size)

    def _map(self, t: Tensor, name: str, each: Any) -> Tensor:
        """``each(i, transform, slice i)`` stacked back along ``dim``."""
        _check_along(t, self.dim, len(self.transforms), "len(transforms)", name)
        return stack([each(i, tf, t.select(self.dim, i)) for i, tf in enumerate(self.transforms)], self.dim)

    def _call(self, x: Tensor) -> Tensor:
        return self._map(x, "x", lambda i, tf, piece: tf(piece))

    def _inverse(self, y: Tensor) -> Tensor:
        return self._map(y, "y", lambda i, tf, piece: tf.inv(piece))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _check_along(y, self.dim, len(self.transforms), "len(transforms)", "y")
        return self._map(x, "x", lambda i, tf, piece: tf.log_abs_det_jacobian(piece, y.select(self.dim, i)))


def _tril_selection(n: int, diag: int, like: Tensor) -> Tensor:
    """The 0/1 matrix ``S`` (``N x n*n``) that reads the ``N`` entries of a ``n x n`` matrix on and below
    diagonal ``diag``, row by row (PyTorch's ``tril_matrix_to_vec`` order): ``vec = flat @ S^T``,
    ``flat = vec @ S`` -- differentiable both ways, on any device."""
    rows, cols = host_numpy.tril_indices(n, diag)
    selection = host_numpy.zeros((len(rows), n * n))
    selection[host_numpy.arange(len(rows)), rows * n + cols] = 1.0
    return creation.tensor(selection, dtype=like.dtype, device=like.device)


def _tril_size(count: int) -> int:
    """``D`` with ``D (D - 1) / 2 = count``, PyTorch's refusal otherwise."""
    d = round((0.25 + 2 * count) ** 0.5 + 0.5)
    if d * (d - 1) // 2 != count:
        raise ValueError("Input is not a flattened lower-diagonal number")
    return d


class CorrCholeskyTransform(_Stateless):
    """A vector of ``D (D - 1) / 2`` reals to the Cholesky factor of a ``D x D`` correlation matrix: ``tanh``
    into ``(-1, 1)``, then stick-breaking on the squares of each row (Stan's construction, PyTorch's)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky

    def _call(self, x: Tensor) -> Tensor:
        eps = float(host_numpy.finfo(x.dtype).eps)
        x = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        n = _tril_size(x.shape[-1])
        r = (x @ _tril_selection(n, -1, x)).reshape(*x.shape[:-1], n, n)
        left = (1 - r.pow(2)).sqrt().cumprod(-1)
        ones = creation.ones(*left.shape[:-1], 1, dtype=x.dtype, device=x.device)
        eye = eye_matrix(n, dtype=x.dtype, device=x.device)
        return (r + eye) * cat([ones, left[..., :-1]], -1)

    def _inverse(self, y: Tensor) -> Tensor:
        n = y.shape[-1]
        y_cumsum = 1 - (y * y).cumsum(-1)
        ones = creation.ones(*y.shape[:-1], 1, dtype=y.dtype, device=y.device)
        shifted = cat([ones, y_cumsum[..., :-1]], -1)
        selection = _tril_selection(n, -1, y).transpose(0, 1)
        t = (y.reshape(*y.shape[:-2], n * n) @ selection) / (shifted.reshape(*y.shape[:-2], n * n) @ selection).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Of ``x`` and the flattened strictly-lower part of ``y`` (the spaces differ in size), PyTorch's."""
        n = y.shape[-1]
        y1m_cumsum = (1 - (y * y).cumsum(-1)).reshape(*y.shape[:-2], n * n)
        stick_breaking = 0.5 * (y1m_cumsum @ _tril_selection(n, -2, y).transpose(0, 1)).log().sum(-1)
        return stick_breaking - 2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        d = _tril_size(shape[-1])
        return (*shape[:-1], d, d)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        return (*shape[:-2], shape[-1] * (shape[-1] - 1) // 2)
