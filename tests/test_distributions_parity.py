"""``mg.distributions`` against ``torch.distributions`` 2.13 where the two disagreed: the checks of
``validate_args`` (PyTorch's default: on). A value outside the support (``Bernoulli.log_prob(0.5)``,
a category past the last) was scored (or an IndexError); a NaN ``loc``/``logits``/``probs`` or a
negative category probability was accepted; ``validate_args=False`` still refused a bad scale.
Expected errors and values: torch's, from the expressions quoted beside them."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D
from minigrad_ckpt.distributions import Bernoulli, Categorical, Distribution, Independent, Normal, constraints


def _t(values, dtype=mg.float64):
    return mg.tensor(values, dtype=dtype)


@pytest.fixture(autouse=True)
def _default_validation():
    """Every test starts from PyTorch's default (checks on) and leaves it so."""
    Distribution.set_default_validate_args(True)
    yield
    Distribution.set_default_validate_args(True)


def test_log_prob_refuses_values_outside_the_support():
    # torch: td.Bernoulli(tensor([0.2])).log_prob(tensor([0.5])) -> ValueError "... support (Boolean()) ..."
    with pytest.raises(ValueError, match=r"to be within the support \(Boolean\(\)\) of the distribution Bernoulli"):
        Bernoulli(_t([0.2])).log_prob(_t([0.5]))
    # torch: td.Categorical(tensor([.5, .5])).log_prob(tensor(5)) -> ValueError (an IndexError here before)
    with pytest.raises(ValueError, match=r"IntegerInterval\(lower_bound=0, upper_bound=1\)"):
        Categorical(_t([0.5, 0.5])).log_prob(mg.tensor(5))
    with pytest.raises(ValueError, match="IntegerInterval"):  # 0.5 is no category (it was read as 0)
        Categorical(_t([0.5, 0.5])).log_prob(_t(0.5))
    with pytest.raises(ValueError, match=r"support \(Real\(\)\)"):  # torch: Normal(0., 1.).log_prob(tensor(nan))
        Normal(0.0, 1.0).log_prob(_t(math.nan))
    with pytest.raises(ValueError, match=r"support \(Real\(\)\)"):  # torch: Normal(0., 1.).cdf(tensor(nan))
        Normal(0.0, 1.0).cdf(_t(math.nan))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        Normal(0.0, 1.0).log_prob(0.5)
    # torch: Normal(zeros(2), ones(2)).log_prob(zeros(3))
    with pytest.raises(ValueError, match=r"not broadcastable with batch_shape\+event_shape: \(3,\) vs \(2,\)"):
        Normal(_t([0.0, 1.0]), _t([1.0, 1.0])).log_prob(_t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="not broadcastable"):  # the base's check, under Independent
        Independent(Normal(_t(np.zeros((2, 3))), _t(np.ones((2, 3)))), 1).log_prob(_t(np.zeros((2, 4))))
    # values inside the support are scored as before, broadcast included
    assert Categorical(_t([[0.5, 0.5]] * 2)).log_prob(mg.tensor([[0], [1]])).shape == (2, 2)


def test_parameters_outside_their_constraint_are_refused_with_torchs_message():
    # torch: td.Normal(0., -1.) -> this message, word for word
    with pytest.raises(ValueError) as refused:
        Normal(0.0, -1.0)
    assert str(refused.value).startswith(
        "Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, scale: -1.0) "
        "to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:")
    bad = [(lambda: Normal(_t([math.nan]), _t([1.0])), r"parameter loc .* Real\(\)"),
           (lambda: Bernoulli(_t([math.nan])), r"parameter probs .* Interval\(lower_bound=0.0, upper_bound=1.0\)"),
           (lambda: Bernoulli(logits=_t([math.nan])), r"parameter logits .* Real\(\)"),
           (lambda: Categorical(_t([0.5, -0.1, 0.6])), r"parameter probs .* Simplex\(\)"),
           (lambda: Categorical(_t([0.0, 0.0])), r"Simplex\(\)"),
           (lambda: Categorical(logits=_t([0.5, math.nan])), r"IndependentConstraint\(Real\(\), 1\)"),
           (lambda: Categorical(_t(0.5)), "`probs` parameter must be at least one-dimensional.")]
    for build, message in bad:  # each was built (the NaNs flowed into every result) but the last
        with pytest.raises(ValueError, match=message):
            build()


def test_validate_args_false_skips_the_checks_as_torch():
    assert Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0  # torch: .scale.item() == -1.0; refused before
    assert Bernoulli(_t([2.0]), validate_args=False).probs.tolist() == [2.0]
    # torch: Bernoulli(tensor(.2, dtype=float64), validate_args=False).log_prob(tensor(.5, dtype=float64)).item()
    np.testing.assert_allclose(Bernoulli(_t(0.2), validate_args=False).log_prob(_t(0.5)).item(),
                               -0.916290731874155, rtol=1e-12)
    # torch: Bernoulli(tensor([.2, .7], dtype=float64), validate_args=False).log_prob(1.0).tolist()
    # (an AttributeError here before)
    np.testing.assert_allclose(Bernoulli(_t([0.2, 0.7]), validate_args=False).log_prob(1.0).numpy(),
                               [-1.6094379124341003, -0.35667494393873245], rtol=1e-12)
    Distribution.set_default_validate_args(False)  # for every distribution built without validate_args
    assert Categorical(_t([0.5, 0.5])).log_prob(_t(0.5)).shape == ()
    assert Normal(0.0, 1.0, validate_args=True).expand((2,))._validate_args  # torch keeps it through expand
    with pytest.raises(ValueError, match="support"):
        Bernoulli(_t([0.2]), validate_args=True).expand((3, 1)).log_prob(_t([0.5]))


def test_support_arg_constraints_repr_and_param_shape_as_torch():
    # torch: repr(td.Normal(0., 1.).support), .arg_constraints, and the same of Bernoulli/Categorical/Independent
    assert repr(Normal(0.0, 1.0).support) == "Real()"
    assert {k: repr(v) for k, v in Normal.arg_constraints.items()} == {
        "loc": "Real()", "scale": "GreaterThan(lower_bound=0.0)"}
    assert repr(Bernoulli(0.3).support) == "Boolean()"
    assert {k: repr(v) for k, v in Categorical.arg_constraints.items()} == {
        "probs": "Simplex()", "logits": "IndependentConstraint(Real(), 1)"}
    assert repr(Categorical(mg.ones(3)).support) == "IntegerInterval(lower_bound=0, upper_bound=2)"
    assert repr(Independent(Normal(mg.zeros(2, 3), mg.ones(2, 3)), 1).support) == "IndependentConstraint(Real(), 1)"
    assert constraints.simplex.check(_t([[0.25, 0.75], [0.5, 0.6]])).tolist() == [True, False]
    assert repr(Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(Categorical(logits=mg.zeros(2))) == "Categorical(logits: (2,))"
    assert Bernoulli(mg.full((2, 3), 0.5)).param_shape == (2, 3)  # torch: Bernoulli(...).param_shape


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_checks_on_the_strict_devices_and_under_vmap(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    c = Categorical(logits=mg.zeros(2, 4, device=device))
    assert c.log_prob(mg.tensor([1, 3], device=device)).dtype == mg.float32
    with pytest.raises(ValueError, match="support"):
        c.log_prob(mg.tensor([1, 4], device=device))
    p = _t(0.3)
    scores = mg.func.vmap(lambda v: Bernoulli(p).log_prob(v))(_t([1.0, 0.0]))
    np.testing.assert_allclose(scores.numpy(), [math.log(0.3), math.log(0.7)], rtol=1e-12)
    with pytest.raises(ValueError, match="support"):
        mg.func.vmap(lambda v: Bernoulli(p).log_prob(v))(_t([1.0, 0.5]))
    # the checks do not stop a gradient: d/dp log p = 1/p at value 1
    np.testing.assert_allclose(mg.func.grad(lambda q: Bernoulli(q).log_prob(_t(1.0)))(p).item(), 1 / 0.3, rtol=1e-12)


def test_what_a_distribution_lacks_is_not_implemented_as_torch():
    # torch: td.Bernoulli(0.3).cdf(tensor(1.)), td.Normal(0., 1.).enumerate_support(),
    # td.Independent(td.Normal(zeros(2), ones(2)), 1).cdf(zeros(2)) -> NotImplementedError (AttributeError here)
    for ask in (lambda: Bernoulli(0.3).cdf(_t(1.0)), lambda: Categorical(mg.ones(3)).icdf(_t(0.5)),
                lambda: Normal(0.0, 1.0).enumerate_support(),
                lambda: Independent(Normal(mg.zeros(2), mg.ones(2)), 1).cdf(mg.zeros(2)),
                lambda: Distribution().mean, lambda: Distribution().entropy()):
        with pytest.raises(NotImplementedError):
            ask()


class _Exponential(Distribution):
    """A program's own distribution, written as for PyTorch (its ``Exponential``, shortened)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        self.rate = rate
        super().__init__(tuple(rate.shape), validate_args=validate_args)

    def rsample(self, sample_shape=()):
        return -mg.rand(*self._extended_shape(sample_shape), dtype=self.rate.dtype).log1p() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value


def test_a_programs_own_distribution_builds_on_the_base_as_torch():
    # super().__init__(batch_shape, validate_args=...) was object.__init__'s TypeError
    d = _Exponential(_t([0.5, 2.0]))
    assert d.batch_shape == (2,) and d.rsample((3,)).shape == (3, 2) and d._extended_shape((4,)) == (4, 2)
    assert repr(d) == "_Exponential(rate: (2,))"
    # torch: the same class over td.Distribution, _Exponential(tensor([0.5, 2.])).log_prob(tensor([1., 3.]))
    np.testing.assert_allclose(d.log_prob(_t([1.0, 3.0])).numpy(), [-1.1931471805599454, -5.306852819440055],
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"parameter rate .* GreaterThan\(lower_bound=0.0\)"):
        _Exponential(_t([-1.0]))
    assert _Exponential(_t([-1.0]), validate_args=False).rate.item() == -1.0
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([-1.0, 1.0]))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_a_number_parameter_goes_to_the_other_parameters_device(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    loc = mg.zeros(3, device=device, requires_grad=True)
    n = Normal(loc, 2.0)  # torch: Normal(loc.cuda(), 2.0).scale.device is cuda (broadcast_all)
    assert str(n.scale.device).startswith(device) and str(n.entropy().device).startswith(device)  # were cpu
    x = n.rsample((2,))  # was a device mismatch
    (n.log_prob(x).sum() + n.cdf(x).sum()).backward()
    assert str(loc.grad.device).startswith(device)
    assert str(Normal(0.0, mg.ones(2, device=device)).loc.device).startswith(device)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("scale_of", ["tensor", "number"])
def test_a_normal_built_from_leaves_is_differentiated_twice_as_torch(dtype, scale_of):
    # torch: Normal(loc, scale).loc is loc (broadcast_all keeps a tensor already of the shape), so
    # log_prob(x).sum().backward() then entropy().sum().backward() runs; mg's expand of the same
    # shape was a graph node the first backward freed ("backward through the graph a second time")
    loc = _t([0.5, -1.0], dtype=dtype).requires_grad_()
    scale = _t([2.0, 0.5], dtype=dtype).requires_grad_() if scale_of == "tensor" else 2.0
    d = Normal(loc, scale)
    assert d.loc is loc and (scale_of == "number" or d.scale is scale)
    x = _t([1.0, 0.0], dtype=dtype)
    d.log_prob(x).sum().backward()
    d.mean.sum().backward()  # d/dloc 1
    s, diff = (np.array([2.0, 0.5]) if scale_of == "tensor" else 2.0), np.array([0.5, 1.0])
    np.testing.assert_allclose(loc.grad.numpy(), diff / s ** 2 + 1, rtol=1e-6)
    if scale_of == "tensor":
        d.entropy().sum().backward()  # d/dscale 1/scale, after the log_prob's -1/scale + (x-loc)^2/scale^3
        np.testing.assert_allclose(scale.grad.numpy(), diff ** 2 / s ** 3, rtol=1e-6)


def test_normal_refuses_a_parameter_that_is_neither_a_number_nor_a_tensor_as_torch():
    # torch: Normal([0.], 1.) -> ValueError from broadcast_all (mg: float([0.]) was a TypeError)
    with pytest.raises(ValueError, match="Input arguments must all be instances of Number"):
        Normal([0.0], 1.0)


class _ExponentialWithExpand(Distribution):
    """The same, as programs often write it: no ``has_rsample``, and an ``expand`` by PyTorch's helpers."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.positive
    rsample, log_prob = _Exponential.rsample, _Exponential.log_prob

    def __init__(self, rate, validate_args=None):
        self.rate = rate
        super().__init__(tuple(rate.shape), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(_ExponentialWithExpand, _instance)
        new.rate = self.rate.expand(*batch_shape)
        super(_ExponentialWithExpand, new).__init__(tuple(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new


class _Renamed(_ExponentialWithExpand):
    def __init__(self, scale):
        super().__init__(1 / scale)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_a_programs_own_distribution_samples_with_rsample_and_expands_as_torch(dtype):
    rate = _t([1.0, 2.0], dtype=dtype).requires_grad_()
    d = _ExponentialWithExpand(rate)
    # torch's base sample is rsample under no_grad: mg's went to a private drawer (NotImplementedError)
    drawn = d.sample((3,))
    assert drawn.shape == (3, 2) and drawn.dtype == dtype and not drawn.requires_grad
    # torch: the same class over td.Distribution, .expand((3, 2)).log_prob(tensor(1.)) -> [[-1., log 2 - 2]] * 3
    e = d.expand((3, 2))  # _get_checked_instance was an AttributeError
    assert type(e) is _ExponentialWithExpand and e.batch_shape == (3, 2)
    np.testing.assert_allclose(e.log_prob(_t(1.0, dtype=dtype)).detach().numpy(),
                               [[-1.0, math.log(2.0) - 2.0]] * 3, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="defines a custom __init__ method must also define a custom "
                                                  r"\.expand\(\) method"):
        _Renamed(_t([1.0], dtype=dtype)).expand((2, 1))
    with pytest.raises(NotImplementedError):  # torch: the base's expand is NotImplementedError (was AttributeError)
        _Exponential(rate).expand((3, 2))
    # torch's repr: a 0-d parameter as a number, a one-element tensor as the tensor, others by their shape
    assert repr(_Exponential(_t(2.0))) == "_Exponential(rate: 2.0)"
    assert repr(_Exponential(_t([2.0]))) == f"_Exponential(rate: {_t([2.0])})"


# torch 2.13: repr(c), c.is_discrete, c.event_dim, c.check(tensor(VALUES)).tolist() for each of its constraints
VALUES = [[0.0, 1.0, 2.5], [-1.0, 0.5, 0.5], [0.0, 0.25, 0.75]]
TORCH_CONSTRAINTS = [
    ("nonnegative", "GreaterThanEq(lower_bound=0.0)", False, 0, [[1, 1, 1], [0, 1, 1], [1, 1, 1]]),
    ("nonnegative_integer", "IntegerGreaterThan(lower_bound=0)", True, 0, [[1, 1, 0], [0, 0, 0], [1, 0, 0]]),
    ("positive_integer", "IntegerGreaterThan(lower_bound=1)", True, 0, [[0, 1, 0], [0, 0, 0], [0, 0, 0]]),
    ("real_vector", "IndependentConstraint(Real(), 1)", False, 1, [1, 1, 1]),
    ("boolean", "Boolean()", True, 0, [[1, 1, 0], [0, 0, 0], [1, 0, 0]]),
    ("simplex", "Simplex()", False, 1, [0, 0, 1]),
    ("unit_interval", "Interval(lower_bound=0.0, upper_bound=1.0)", False, 0, [[1, 1, 0], [0, 1, 1], [1, 1, 1]]),
]


@pytest.mark.parametrize("name, shown, discrete, event_dim, inside", TORCH_CONSTRAINTS, ids=lambda v: str(v)[:20])
def test_the_constraints_a_programs_own_distribution_names_are_torchs(name, shown, discrete, event_dim, inside):
    # nonnegative, nonnegative_integer, positive_integer, real_vector and is_discrete were AttributeErrors
    c = getattr(constraints, name)
    assert (repr(c), c.is_discrete, c.event_dim) == (shown, discrete, event_dim)
    assert c.check(_t(VALUES)).numpy().astype(int).tolist() == inside


def test_constraints_made_with_bounds_and_the_discrete_flag_as_torch():
    values = _t([0.0, 0.5, 1.0, 2.0])
    # torch: greater_than_eq(0.5) -> GreaterThanEq(lower_bound=0.5), [F, T, T, T];
    # half_open_interval(0., 1.) -> [T, T, F, F]
    assert repr(constraints.greater_than_eq(0.5)) == "GreaterThanEq(lower_bound=0.5)"
    assert constraints.greater_than_eq(0.5).check(values).numpy().tolist() == [False, True, True, True]
    assert repr(constraints.half_open_interval(0.0, 1.0)) == "HalfOpenInterval(lower_bound=0.0, upper_bound=1.0)"
    assert constraints.half_open_interval(0.0, 1.0).check(values).numpy().tolist() == [True, True, False, False]
    # torch: Categorical(...).support.is_discrete True, Normal's False, independent(boolean, 1) True
    assert Categorical(_t([0.5, 0.5])).support.is_discrete and not Normal(0.0, 1.0).support.is_discrete
    assert constraints.independent(constraints.boolean, 1).is_discrete


class _Poisson(Distribution):
    """A program's own count distribution, written as for PyTorch with its constraints."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        self.rate = rate
        super().__init__(tuple(rate.shape), validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return value * self.rate.log() - self.rate - (value + 1).lgamma()


def test_a_programs_own_count_distribution_checks_as_torch():
    d = _Poisson(_t([0.5, 2.0]))
    # torch: the same class over td.Distribution, .log_prob(tensor([0., 3.])) -> [-0.5, 3 log 2 - 2 - log 6]
    np.testing.assert_allclose(d.log_prob(_t([0.0, 3.0])).numpy(), [-0.5, 3 * math.log(2) - 2 - math.log(6)],
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"support \(IntegerGreaterThan\(lower_bound=0\)\)"):
        d.log_prob(_t([0.5, 1.0]))
    with pytest.raises(ValueError, match=r"parameter rate .* GreaterThanEq\(lower_bound=0.0\)"):
        _Poisson(_t([-1.0]))
    assert _Poisson(_t([0.0])).support.is_discrete


def _subclass_with_own_log_prob(base):
    """A program's subclass that changes one formula (a tempered log-density), its __init__ inherited."""
    return type(f"Tempered{base.__name__}", (base,), {"log_prob": lambda self, value: 0.5 * base.log_prob(self, value)})


EXPANDABLE = [
    (lambda: _subclass_with_own_log_prob(Normal)(_t([0.0, 1.0]), _t([1.0, 2.0])), _t([0.5, 0.5])),
    (lambda: _subclass_with_own_log_prob(Bernoulli)(_t([0.25, 0.5])), _t([1.0, 0.0])),
    (lambda: _subclass_with_own_log_prob(Categorical)(_t([[0.25, 0.75], [0.5, 0.5]])), mg.tensor([1, 0])),
    (lambda: _subclass_with_own_log_prob(D.Uniform)(_t([0.0, 1.0]), _t([2.0, 3.0])), _t([0.5, 1.5])),
]


@pytest.mark.parametrize("build, value", EXPANDABLE, ids=["Normal", "Bernoulli", "Categorical", "Uniform"])
def test_expand_keeps_a_programs_subclass_and_validate_args_as_torch(build, value):
    # torch: expand fills a new instance of type(self) (_get_checked_instance); mg's built the base class,
    # so the subclass's own log_prob was silently dropped (here: twice the tempered value)
    d = build()
    e = d.expand((3, 2))
    assert type(e) is type(d) and e.batch_shape == (3, 2)
    np.testing.assert_allclose(e.log_prob(value).numpy(), np.broadcast_to(d.log_prob(value).numpy(), (3, 2)))
    inner = Independent(d, 1).expand((3,))  # through Independent (and a mixture), the components stay theirs
    assert type(inner.base_dist) is type(d) and inner.batch_shape == (3,) and inner.event_shape == (2,)
    np.testing.assert_allclose(inner.log_prob(value).numpy(), [d.log_prob(value).sum().item()] * 3)
    # torch: Independent(..., validate_args=False).expand(...)._validate_args is False (mg's was the default)
    assert Independent(d, 1, validate_args=False).expand((3,))._validate_args is False
    assert type(D.MixtureSameFamily(Categorical(_t([0.5, 0.5])), d).expand((3,)).component_distribution) is type(d)
