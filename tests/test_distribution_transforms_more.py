"""PyTorch's ``SoftplusTransform``, ``AbsTransform``, ``SoftmaxTransform``, ``StickBreakingTransform``,
``LowerCholeskyTransform``, ``ReshapeTransform``, ``IndependentTransform``, ``biject_to``/``transform_to``
and ``LogisticNormal`` (all AttributeErrors before): torch's maps, inverses and Jacobians, the transforms
``biject_to``/``transform_to`` give for each constraint, and LogisticNormal's log_prob and gradients are
replayed by tests/test_distributions_transformed_families.py (cases ``event_transforms``,
``constraint_maps``, ``logistic_normal``); here the flags, equality, reprs and refusals (torch's, quoted),
round trips, shapes of a TransformedDistribution whose map changes the event's size, Jacobians against
autograd, the strict devices and ``rsample`` at the seams."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams  # noqa: E402

C = D.constraints


def test_flags_equality_reprs_and_refusals_as_torch():
    assert [t.bijective for t in (D.SoftplusTransform(), D.AbsTransform(), D.SoftmaxTransform(),
                                  D.StickBreakingTransform(), D.LowerCholeskyTransform())] == [True, False, False,
                                                                                              True, False]
    assert D.StickBreakingTransform() == D.StickBreakingTransform() and D.SoftplusTransform() != D.AbsTransform()
    assert repr(D.IndependentTransform(D.SoftplusTransform(), 1)) == "IndependentTransform(SoftplusTransform(), 1)"
    assert repr(D.StickBreakingTransform().codomain) == "Simplex()"
    assert D.IndependentTransform(D.ExpTransform(), 2).domain.event_dim == 2
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        D.ReshapeTransform((3,), (2,))
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        D.biject_to(C.lower_cholesky)  # torch: no bijection registered for it (transform_to has one)
    assert type(D.transform_to(C.lower_cholesky)) is D.LowerCholeskyTransform
    assert type(D.biject_to(C.simplex)) is D.StickBreakingTransform
    assert type(D.transform_to(C.simplex)) is D.SoftmaxTransform
    assert type(D.biject_to(C.unit_interval)) is D.SigmoidTransform
    # torch registers positive's ExpTransform, then greater_than's map over it (one class): exp, then + 0
    assert [type(p) for p in D.biject_to(C.positive).parts] == [D.ExpTransform, D.AffineTransform]

    class Mine(C.Constraint):
        pass
    D.biject_to.register(Mine, lambda constraint: D.ExpTransform())
    assert type(D.biject_to(Mine())) is D.ExpTransform
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        D.biject_to.register(int, lambda constraint: D.ExpTransform())


@pytest.mark.parametrize("constraint", [C.real, C.positive, C.greater_than(1.5), C.less_than(2.0),
                                        C.interval(-1.0, 3.0), C.unit_interval, C.simplex, C.real_vector,
                                        C.independent(C.positive, 1), C.half_open_interval(0.0, 2.0)],
                         ids=repr)
def test_biject_to_lands_in_the_constraint_and_comes_back(constraint):
    x = mg.tensor(np.random.default_rng(0).normal(size=(4, 3)), dtype=mg.float64)
    t = D.biject_to(constraint)
    y = t(x)
    assert bool(constraint.check(y).all().item())
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-12)
    assert bool(constraint.check(D.transform_to(constraint)(x)).all().item())


def test_cat_and_stack_transforms_and_constraints():
    """``CatTransform``/``StackTransform``, ``constraints.cat``/``stack`` (torch's numbers: case ``cat_and_stack``)."""
    c = D.CatTransform([D.ExpTransform(), D.SigmoidTransform()], dim=1, lengths=[1, 3])
    s = D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=0)
    assert c.bijective and s.bijective and c.length == 4 and c.event_dim == 0
    assert repr(C.cat([C.positive, C.real])) == "Cat()" and repr(C.stack([C.positive])) == "Stack()"
    x = mg.tensor([[0.3, -1.2, 2.0, 0.5], [2.5, 0.05, -0.7, 1.0]], dtype=mg.float64)
    assert bool(c.codomain.check(c(x)).all().item()) and bool(s.codomain.check(s(x)).all().item())
    np.testing.assert_allclose(s.log_abs_det_jacobian(x, s(x)).numpy(), x.numpy())  # the rows' own slices
    # torch: "x.size(1) = 4 must equal length 3" (an AssertionError)
    with pytest.raises(AssertionError, match=r"x.size\(1\) = 4 must equal length 3"):
        D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=1, lengths=[1, 2])(x)
    with pytest.raises(AssertionError, match=r"lengths \(1\) must match transforms \(2\)"):
        D.CatTransform([D.ExpTransform(), D.ExpTransform()], lengths=[1])
    assert type(D.biject_to(C.cat([C.positive, C.simplex], 0, [1, 3]))) is D.CatTransform


def test_positive_definite_and_cumulative_distribution_transforms():
    """torch's numbers: case ``matrix_and_cdf_transforms``; here the flags and the maps' ranges."""
    pd = D.PositiveDefiniteTransform()
    assert not pd.bijective and pd == D.PositiveDefiniteTransform() and type(
        D.transform_to(C.positive_definite)) is D.PositiveDefiniteTransform
    x = mg.tensor(np.random.default_rng(1).normal(size=(4, 3, 3)), dtype=mg.float64)
    assert bool(C.positive_definite.check(pd(x)).all().item())
    cd = D.CumulativeDistributionTransform(D.Gumbel(mg.tensor(0.0), mg.tensor(1.0)))
    assert cd.bijective and repr(cd.domain) == "Real()"
    assert repr(cd.codomain) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    # a TransformedDistribution through a CDF is uniform: log_prob 0 on (0, 1)
    u = D.TransformedDistribution(D.Gumbel(mg.tensor(0.0), mg.tensor(1.0)), cd)
    np.testing.assert_allclose(u.log_prob(mg.tensor([0.2, 0.7])).numpy(), 0.0, atol=1e-6)


def test_stick_breaking_jacobian_is_autograds():
    """``log|det dy/dx|`` of the first ``K - 1`` outputs (the last is fixed by the others) against the Jacobian."""
    x = mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64)
    t = D.StickBreakingTransform()
    jac = mg.func.jacrev(lambda v: t(v)[:-1])(x).numpy()
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).item(), np.log(abs(np.linalg.det(jac))), rtol=1e-12)


def test_a_transformed_distribution_takes_the_map_s_shape():
    base = D.Normal(mg.zeros(2, 3), 1.0)
    d = D.TransformedDistribution(base, D.StickBreakingTransform())
    assert d.batch_shape == (2,) and d.event_shape == (4,) and d.rsample((5,)).shape == (5, 2, 4)
    r = D.TransformedDistribution(D.Normal(mg.zeros(6), 1.0), D.ReshapeTransform((6,), (2, 3)))
    assert r.event_shape == (2, 3) and r.sample().shape == (2, 3)
    np.testing.assert_allclose(r.log_prob(mg.zeros(2, 3)).item(), -3 * np.log(2 * np.pi), rtol=1e-6)
    ln = D.LogisticNormal(mg.tensor([0.3, -1.0, 0.5]), mg.tensor([1.0, 0.5, 2.0]))
    assert ln.batch_shape == () and ln.event_shape == (4,) and repr(ln) == "LogisticNormal()" and ln.has_rsample
    assert ln.expand((3,)).rsample((2,)).shape == (2, 3, 4) and type(ln.expand((3,))) is D.LogisticNormal
    x = ln.sample((1000,))
    assert bool(C.simplex.check(x).all().item())


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    loc = mg.tensor([0.3, -1.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    ln = D.LogisticNormal(loc, 1.0)
    y = ln.rsample((2,))
    total = y.pow(2).sum() + ln.log_prob(y.detach()).sum()
    for t in (D.SoftplusTransform(), D.AbsTransform(), D.SoftmaxTransform(), D.biject_to(C.interval(-1.0, 3.0))):
        total = total + t(loc).sum()
    m = D.LowerCholeskyTransform()(loc.reshape(1, 3) * mg.ones(3, 1, dtype=dtype, device=device))
    (total + m.sum()).backward()
    assert str(loc.grad.device).startswith(device) and loc.grad.dtype == dtype
    assert bool(loc.grad.isfinite().all().item())


def _loss(loc, scale):
    return D.LogisticNormal(loc, scale).rsample((4,)).pow(2).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    loc = mg.tensor([0.3, -1.0, 0.5], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([1.0, 0.5, 2.0], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (loc, scale), seed=51)
