"""The distributions themselves (see the package docstring)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.arguments import broadcast_shapes
from ..functional.elementwise import erf, where
from ..functional.special import erfinv
from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Size, Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import constraints

__all__ = ["Distribution", "Categorical", "Normal", "Bernoulli", "Independent"]


def _as_float_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    """``value`` itself if a tensor, else a number made a tensor of ``like``'s dtype and device
    (PyTorch's ``broadcast_all``: ``Normal(loc_on_gpu, 1.0)`` has its scale beside its loc)."""
    if isinstance(value, Tensor):
        return value
    if like is None:
        return creation.tensor(float(value))
    return creation.tensor(float(value), dtype=like.dtype, device=like.device)


def _clamp_probs(probs: Tensor) -> Tensor:
    """PyTorch's ``clamp_probs``: into ``[eps, 1 - eps]`` of the dtype, so their logs are finite."""
    eps = float(host_numpy.finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(host_numpy.broadcast_shapes(tuple(a), tuple(b)))


def _broadcast_all(*values: Any) -> list[Tensor]:
    """PyTorch's ``broadcast_all``: numbers become tensors of the first tensor's dtype and device,
    then all are broadcast to one shape. A tensor already of that shape is kept itself, not an
    ``expand`` of it (``Normal(loc, scale).loc is loc``, as PyTorch's): an expand is a node of the
    graph, freed by the first ``backward()``, so a distribution built from leaves could not be
    differentiated twice (PyTorch's can: ``log_prob(x).backward()``, then ``entropy().backward()``)."""
    if not all(isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = [_as_float_tensor(v, like) for v in values]
    shape = broadcast_shapes("broadcast_all", *(tuple(t.shape) for t in tensors))  # PyTorch's RuntimeError
    return [t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors]


def _where(mask: Tensor, value: float, t: Tensor) -> Tensor:
    """``t`` with ``value`` where ``mask`` (PyTorch's formulas write ``t[mask] = value``)."""
    return where(mask.expand(*t.shape), creation.full_like(t, value), t)


def _read_through(holder: str, name: str) -> property:
    """A read-only property answering ``self.<holder>.<name>``: a parameter kept by the distribution this
    one is built on (a ``Multinomial``'s ``probs`` are its ``Categorical``'s)."""
    def read(self: Any) -> Any:
        for step in holder.split("."):  # a dotted path reaches through nested holders
            self = getattr(self, step)
        return getattr(self, name)
    return property(read, doc=f"``{holder}``'s ``{name}``.")


def _icdf_draws(dist: Any, like: Tensor, sample_shape: Any) -> Tensor:
    """``dist.icdf(u)`` for uniform ``u`` of the sample's shape, in ``like``'s dtype and device: the
    reparameterized draw of a family whose inverse CDF is closed-form (differentiable in its parameters)."""
    shape = dist._extended_shape(sample_shape)
    return dist.icdf(creation.rand(*shape, dtype=like.dtype, device=like.device))


def _shape(sample_shape: Any) -> Size:
    return Size(sample_shape) if not isinstance(sample_shape, int) else Size((sample_shape,))


class Distribution:
    """The shared surface: ``batch_shape``, ``event_shape``, ``sample``, ``log_prob``, ``entropy``.

    A sample's shape is ``sample_shape + batch_shape + event_shape``, as PyTorch's: ``event_shape``
    is ``()`` for a distribution of scalars (one category, one real, one bit), ``(K,)`` for one of
    vectors (``OneHotCategorical``, ``Dirichlet``, ``MultivariateNormal``, an ``Independent``).

    ``validate_args`` (PyTorch's default: on) checks the given parameters against
    ``arg_constraints`` when built, and the values given to ``log_prob`` (and ``cdf``) against
    ``support``: a ``ValueError`` with PyTorch's message instead of a NaN or a wrong number
    (``Bernoulli(0.2).log_prob(tensor(0.5))`` is no probability). ``validate_args=False`` (or
    :meth:`set_default_validate_args`) skips both checks, as PyTorch's, and their host syncs.
    """

    _batch_shape: Size = Size()
    _event_shape: Size = Size()
    has_enumerate_support = False
    arg_constraints: dict[str, constraints.Constraint] = {}
    #: the parameters this instance was given (of ``arg_constraints``): the ones checked and printed
    #: (empty: those of ``arg_constraints`` the instance has, PyTorch's rule for a program's own subclass)
    _given: tuple[str, ...] = ()
    _validate_args = True

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: bool | None = None) -> None:
        """PyTorch's base constructor, for a program's own distribution: it sets its parameters,
        then calls ``super().__init__(batch_shape, event_shape, validate_args)`` to have them checked."""
        self.batch_shape, self.event_shape = _shape(batch_shape), _shape(event_shape)
        if type(self).arg_constraints is Distribution.arg_constraints and (
                validate_args if validate_args is not None else self._validate_args):
            # PyTorch's base answers NotImplementedError; its constructor warns and checks nothing
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                          "or initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=stacklevel_outside_the_engine())
        self._check_parameters(validate_args)

    # The two shapes are Sizes, as PyTorch's: a program reads ``d.batch_shape.numel()``, and
    # ``mg.FloatTensor(d.batch_shape)`` must be a tensor of that shape, not the tuple's numbers as data.
    # Every family assigns them (often a plain ``tuple(...)``), so the setters convert.
    @property
    def batch_shape(self) -> Size:
        """The shape of the independent, differently parametrised draws (a ``Size``)."""
        return self._batch_shape

    @batch_shape.setter
    def batch_shape(self, shape: Any) -> None:
        self._batch_shape = _shape(shape)

    @property
    def event_shape(self) -> Size:
        """The shape of one draw (a ``Size``): ``()`` for a scalar, ``(K,)`` for a vector."""
        return self._event_shape

    @event_shape.setter
    def event_shape(self, shape: Any) -> None:
        self._event_shape = _shape(shape)

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a sample (PyTorch's helper)."""
        return _shape(sample_shape) + self.batch_shape + self.event_shape

    def _parameter_names(self) -> tuple[str, ...]:
        return self._given or tuple(name for name in self.arg_constraints if name in vars(self))

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """PyTorch's switch for the checks of ``validate_args`` in every distribution built after
        it without an explicit ``validate_args`` (programs turn it off for speed)."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects a bool")
        Distribution._validate_args = value

    def _check_parameters(self, validate_args: Any) -> None:
        """Keep ``validate_args`` (None: the default) and, when on, refuse a parameter outside
        its constraint with PyTorch's ``ValueError``."""
        if validate_args is not None:
            self._validate_args = bool(validate_args)
        if not self._validate_args:
            return
        for name in self._parameter_names():
            value, constraint = getattr(self, name), self.arg_constraints[name]
            if not bool(constraint.check(value).all().item()):
                raise ValueError(f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of distribution "
                                 f"{self!r} to satisfy the constraint {constraint!r}, "
                                 f"but found invalid values:\n{value}")

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's check of a value given to ``log_prob``: a tensor, broadcastable against
        ``batch_shape + event_shape``, inside ``support``."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual, expected = tuple(value.shape), tuple(self.batch_shape) + tuple(self.event_shape)
        if self.event_shape and actual[len(actual) - len(self.event_shape):] != tuple(self.event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {actual} vs {self.event_shape}.")
        if any(i != 1 and j != 1 and i != j for i, j in zip(reversed(actual), reversed(expected))):
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:  # a program's own distribution without one: PyTorch warns, checks nothing
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=stacklevel_outside_the_engine())
            return
        if not bool(support.check(value).all().item()):
            raise ValueError(f"Expected value argument (Tensor of shape {actual}) to be within the support "
                             f"({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    @property
    def support(self) -> constraints.Constraint:
        raise NotImplementedError

    def __repr__(self) -> str:
        """PyTorch's: the given parameters, each by its value if it has one element (a number for a 0-d
        tensor, else the tensor), else its shape."""
        shown = (f"{name}: {v.item() if v.ndim == 0 else v if v.numel() == 1 else tuple(v.shape)}"
                 for name, v in ((n, getattr(self, n)) for n in self._parameter_names()))
        return f"{type(self).__name__}({', '.join(shown)})"

    # What a distribution does not define is PyTorch's NotImplementedError, not an AttributeError:
    # a program asks ``Bernoulli(p).cdf(x)`` or ``Normal(...).enumerate_support()`` and catches that.
    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    def log_prob(self, value: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def cdf(self, value: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not enumerate its support")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation, ``variance.sqrt()`` (PyTorch's default)."""
        return self.variance.sqrt()

    def perplexity(self) -> Tensor:
        """``exp(entropy)``: the number of equally likely outcomes with the same entropy."""
        return self.entropy().exp()

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))`` (PyTorch's older spelling)."""
        return self.sample((n,))

    def _enumerate(self, values: Tensor, expand: bool) -> Tensor:
        """``values`` (the support, 1-D) as a column over the batch dims: ``(K, 1, ..., 1)``, or
        ``(K, *batch_shape)`` when ``expand`` -- what PyTorch's ``enumerate_support`` gives."""
        values = values.reshape(-1, *(1,) * len(self.batch_shape))
        return values.expand(-1, *self.batch_shape) if expand else values

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``rsample`` without gradient, as PyTorch's base: a program's own distribution that
        defines only ``rsample`` (whatever its ``has_rsample`` says) samples with it; one with no
        reparameterization (``Categorical``, ``Bernoulli``) defines ``sample`` itself."""
        with no_grad():
            return self.rsample(sample_shape)

    has_rsample = False

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample")

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        raise NotImplementedError(f"{type(self).__name__} does not implement expand")

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """PyTorch's helper for a program's own ``expand``: a bare instance of ``type(self)`` to
        fill in (or ``_instance``), refused where a subclass of ``cls`` has its own ``__init__``
        (that subclass must define its own ``expand``)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expanded(self, cls: type, _instance: Any, batch_shape: Any, event_shape: Any = (),
                  **fields: Any) -> Any:
        """What every ``expand`` here returns, as PyTorch's: an instance of ``type(self)`` (a
        program's subclass stays itself, its own ``log_prob`` and all) holding ``fields`` (views
        of this one's parameters: checked once, when built), with this one's ``validate_args``."""
        new = self._get_checked_instance(cls, _instance)
        for name, value in fields.items():
            setattr(new, name, value)
        Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


def _init_parameters(dist: Distribution, values: tuple[Any, ...], validate_args: Any) -> None:
    """Set ``dist``'s parameters (named by its ``_given``, in order) to ``values`` broadcast against
    each other, its batch shape to theirs, and check them: what most constructors here do."""
    tensors = _broadcast_all(*values)
    for name, tensor in zip(dist._given, tensors):
        setattr(dist, name, tensor)
    dist.batch_shape = tuple(tensors[0].shape)
    dist._check_parameters(validate_args)


class _CenteredAtLoc:
    """Mean and mode both ``loc`` (a family centred on its location parameter)."""

    loc: Tensor

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc


class Categorical(Distribution):
    """Categories ``0..K-1`` with probabilities ``probs`` (normalized along the last dim) or
    ``logits`` (unnormalized log-probabilities); exactly one of the two."""

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None, validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._given = ("probs",)
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = _clamp_probs(self.probs).log()
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self._given = ("logits",)
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self.probs = F.softmax(self.logits, dim=-1)
        self._num_events = self.probs.shape[-1]
        self.batch_shape = tuple(self.probs.shape[:-1])
        self._check_parameters(validate_args)

    has_enumerate_support = True
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple(self.probs.shape)

    @property
    def mean(self) -> Tensor:
        """NaN for every batch element, as PyTorch's: category labels have no mean."""
        return creation.full(self.batch_shape, math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def variance(self) -> Tensor:
        """NaN, as :attr:`mean`."""
        return creation.full(self.batch_shape, math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        """The most probable category (the first of ties), an int64 tensor of ``batch_shape``."""
        return self.probs.argmax(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every category ``0..K-1`` along a new first dim (int64), for summing over outcomes."""
        return self._enumerate(creation.arange(self._num_events, device=self.probs.device), expand)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        """The same distribution repeated over a larger ``batch_shape`` (views, no copy)."""
        shape = _shape(batch_shape)
        return self._expanded(Categorical, _instance, shape, probs=self.probs.expand(*shape, self._num_events),
                              logits=self.logits.expand(*shape, self._num_events), _num_events=self._num_events,
                              _given=self._given)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = _shape(sample_shape)
        n = 1
        for s in shape:
            n *= s
        with no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            # (batch, n), drawn as PyTorch's sample draws them: one torch.multinomial call
            drawn = creation.multinomial(rows, n, replacement=True)
            return drawn.T.reshape(*shape, *self.batch_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """``log p(value)``, ``value`` broadcast against the batch shape (PyTorch's gather)."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = (*_broadcast(value.shape[:-1], self.batch_shape), 1)
        log_pmf = self.logits.expand(*shape[:-1], self._num_events)
        return log_pmf.gather(-1, value.expand(*shape)).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(host_numpy.finfo(self.logits.dtype).min)
        return -(self.logits.clamp(min=min_real) * self.probs).sum(-1)


class Normal(Distribution):
    """The Gaussian ``N(loc, scale**2)``; ``loc`` and ``scale`` broadcast (numbers become tensors
    of the other's dtype, or the default dtype)."""

    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = _broadcast_all(loc, scale)
        self.batch_shape = tuple(self.loc.shape)
        self._check_parameters(validate_args)

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    _given = ("loc", "scale")

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    @property
    def mode(self) -> Tensor:
        return self.loc

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        shape = _shape(batch_shape)
        return self._expanded(Normal, _instance, shape, loc=self.loc.expand(*shape), scale=self.scale.expand(*shape))

    def cdf(self, value: Any) -> Tensor:
        """``P(X <= value) = (1 + erf((value - loc) / (scale * sqrt 2))) / 2``, differentiable in
        all three."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Any) -> Tensor:
        """The quantile function, :meth:`cdf`'s inverse: ``loc + scale * sqrt 2 * erfinv(2 value - 1)``."""
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + eps * scale`` with ``eps`` standard normal: differentiable in ``loc`` and ``scale``."""
        eps = creation.randn(*_shape(sample_shape), *self.batch_shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


def _binary_parameters(probs: Any, logits: Any) -> tuple[Tensor, Tensor, tuple[str, ...]]:
    """``(probs, logits, given)`` of a two-outcome family from exactly one of ``probs`` and ``logits``
    (PyTorch's ``probs_to_logits(is_binary=True)``: the logit of the clamped probability)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        probs = _as_float_tensor(probs)
        clamped = _clamp_probs(probs)
        return probs, clamped.log() - (-clamped).log1p(), ("probs",)
    logits = _as_float_tensor(logits)
    return logits.sigmoid(), logits, ("logits",)


class _TwoOutcomeParameters(Distribution):
    """What the families given by one ``probs`` or ``logits`` per element share (``Bernoulli``,
    ``ContinuousBernoulli``, ``LogitRelaxedBernoulli``): both kept, and both expanded."""

    probs: Tensor
    logits: Tensor

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple(self.probs.shape)

    def _expanded_with_parameters(self, cls: type, _instance: Any, batch_shape: Any, **fields: Any) -> Any:
        # both kept (not recomputed from one another), so an expanded copy's numbers are the original's
        shape = _shape(batch_shape)
        return self._expanded(cls, _instance, shape, probs=self.probs.expand(*shape),
                              logits=self.logits.expand(*shape), _given=self._given, **fields)


class Bernoulli(_TwoOutcomeParameters):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0; exactly one of the two."""

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self.probs, self.logits, self._given = _binary_parameters(probs, logits)
        self.batch_shape = tuple(self.probs.shape)
        self._check_parameters(validate_args)

    has_enumerate_support = True
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @property
    def mode(self) -> Tensor:
        """1 where ``probs > 1/2``, 0 where below, NaN at exactly 1/2 (no single mode), as PyTorch's."""
        with no_grad():
            mode = (self.probs >= 0.5).to(self.probs.dtype)
            return _where(self.probs == 0.5, math.nan, mode)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The two outcomes ``0., 1.`` (in the probabilities' dtype) along a new first dim."""
        return self._enumerate(creation.arange(2, dtype=self.probs.dtype, device=self.probs.device), expand)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return self._expanded_with_parameters(Bernoulli, _instance, batch_shape)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return creation.bernoulli(self.probs.expand(*_shape(sample_shape), *self.batch_shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self.logits)  # a number, when not validated (PyTorch's broadcast_all)
        logits = self.logits.expand(*_broadcast(self.logits.shape, value.shape))
        return -F.binary_cross_entropy_with_logits(logits, value.expand(*logits.shape), reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


def _sum_rightmost(value: Tensor, n: int) -> Tensor:
    """``value`` summed over its last ``n`` dims (all of them for the events of :class:`Independent`)."""
    return value.sum(tuple(range(-n, 0))) if n > 0 else value


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims read as one
    event: ``Independent(Normal(mu, std), 1)`` is a diagonal Gaussian over vectors, whose
    ``log_prob`` and ``entropy`` sum over the vector (what SAC/PPO and VAE code write)."""

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: Any = None) -> None:
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, reinterpreted_batch_ndims
        self.batch_shape, self.event_shape = shape[:len(shape) - event_dim], shape[len(shape) - event_dim:]
        self._check_parameters(validate_args)

    arg_constraints: dict[str, constraints.Constraint] = {}

    @property
    def support(self) -> constraints.Constraint:
        """The base's support, held by the whole event at once."""
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        shape = _shape(batch_shape)
        base = self.base_dist.expand(shape + tuple(self.event_shape[:self.reinterpreted_batch_ndims]))
        return self._expanded(Independent, _instance, shape, self.event_shape, base_dist=base,
                              reinterpreted_batch_ndims=self.reinterpreted_batch_ndims)
