"""Compositions of transforms and what a ``TransformedDistribution`` makes of them, as PyTorch's
test_transforms.py asks (test_compose_affine, test_compose_reshape, test_transformed_distribution, test_inv_inv);
a transform's ``sign`` where it has none; ``AffineTransform``'s constant Jacobian.

Found running that file, translated, against torch 2.13: a composition's domain was its first part's and its
codomain its last's whatever the others' event dims; a ``TransformedDistribution`` did not widen a base to its
maps' parameters' shape nor refuse a base of too few dims; ``sign`` was 1 for ``|x|``; ``t.inv`` was a new object
each time; an affine Jacobian of a number scale was ``x * 0 + log|scale|`` (NaN at an infinite ``x``)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import Dirichlet, Independent, Normal, TransformedDistribution
from minigrad_ckpt.distributions import transforms as T


@pytest.mark.parametrize("event_dims", [(0,), (1,), (2, 3), (0, 1, 2), (1, 2, 0), (2, 0, 1)], ids=str)
def test_a_composition_takes_the_largest_event_dim_of_its_parts(event_dims):
    parts = [T.AffineTransform(mg.zeros((1,) * e), 1.0, event_dim=e) for e in event_dims]
    transform = T.ComposeTransform(parts)
    assert transform.domain.event_dim == transform.codomain.event_dim == max(event_dims)
    base = Normal(0.0, 1.0)
    if transform.domain.event_dim:
        base = base.expand((1,) * transform.domain.event_dim)
    assert TransformedDistribution(base, parts).support.event_dim == max(event_dims)
    base = Dirichlet(mg.ones(5))
    if transform.domain.event_dim > 1:
        base = base.expand((1,) * (transform.domain.event_dim - 1))
    assert TransformedDistribution(base, parts).support.event_dim == max(1, max(event_dims))


@pytest.mark.parametrize("batch_shape", [(), (6,), (5, 4)], ids=str)
def test_a_chain_of_reshapes_counts_the_dims_each_one_needs(batch_shape):
    parts = [T.ReshapeTransform((), ()), T.ReshapeTransform((2,), (1, 2)),
             T.ReshapeTransform((3, 1, 2), (6,)), T.ReshapeTransform((6,), (2, 3))]
    transform = T.ComposeTransform(parts)
    assert transform.domain.event_dim == transform.codomain.event_dim == 2  # (3, 2) in, (2, 3) out
    data = mg.randn(*batch_shape, 3, 2)
    assert tuple(transform(data).shape) == batch_shape + (2, 3)
    dist = TransformedDistribution(Normal(data, 1.0), parts)
    assert (tuple(dist.batch_shape), tuple(dist.event_shape), dist.support.event_dim) == (batch_shape, (2, 3), 2)
    assert tuple(dist.log_prob(dist.sample()).shape) == batch_shape
    assert transform.inv.domain.event_dim == 2


def test_a_scalar_base_is_widened_to_the_maps_parameters():
    mg.manual_seed(0)
    loc = mg.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=mg.float64)
    dist = TransformedDistribution(Normal(0.0, 1.0), [T.AffineTransform(loc, 2.0)])
    assert (tuple(dist.batch_shape), tuple(dist.event_shape)) == ((5,), ())
    x = dist.sample((7,))
    assert tuple(x.shape) == (7, 5) and len(set(x.reshape(-1).tolist())) == 35  # 35 draws, not 7 broadcast
    value = mg.tensor([0.5, -1.0, 2.0, 3.0, 10.0], dtype=mg.float64)
    z = (value.numpy() - loc.numpy()) / 2.0
    expected = -0.5 * z ** 2 - 0.5 * math.log(2 * math.pi) - math.log(2.0)
    np.testing.assert_allclose(dist.log_prob(value).numpy(), expected, rtol=1e-12)


def test_a_base_of_too_few_dims_is_refused_and_an_event_map_reads_batch_dims_as_events():
    reshape = T.ReshapeTransform((4, 5), (20,))
    with pytest.raises(ValueError, match="at least 2, but got 1"):
        TransformedDistribution(Normal(mg.zeros(5), 1.0), [reshape])
    dist = TransformedDistribution(Normal(mg.zeros(3, 4, 5, dtype=mg.float64), 1.0), [reshape])
    assert (tuple(dist.batch_shape), tuple(dist.event_shape)) == ((3,), (20,))
    value = mg.zeros(3, 20, dtype=mg.float64)
    np.testing.assert_allclose(dist.log_prob(value).numpy(), [-10 * math.log(2 * math.pi)] * 3, rtol=1e-12)


def test_an_affine_map_of_a_matrix_tensor_after_a_reshape_to_matrices():
    # PyTorch's test_transformed_distribution case (base (4, 5), Affine of a (3, 4, 5) loc, reshape (4, 5) -> (20,)):
    # the base widened to (3, 4, 5), events of 20
    parts = [T.AffineTransform(mg.zeros(3, 4, 5), 1.0), T.ReshapeTransform((4, 5), (20,))]
    dist = TransformedDistribution(Normal(0.0, 1.0).expand((4, 5)), parts)
    assert (tuple(dist.batch_shape), tuple(dist.event_shape)) == ((3,), (20,))
    x = dist.sample((7,))
    assert tuple(x.shape) == (7, 3, 20) and tuple(dist.log_prob(x).shape) == (7, 3)
    assert tuple(dist.log_prob(x[0, 0]).shape) == (3,)


@pytest.mark.parametrize("make", [T.AbsTransform, T.SoftmaxTransform, T.StickBreakingTransform,
                                  T.LowerCholeskyTransform, T.CorrCholeskyTransform,
                                  lambda: T.ReshapeTransform((2,), (2,))],
                         ids=["abs", "softmax", "stick_breaking", "lower_cholesky", "corr_cholesky", "reshape"])
def test_a_map_that_is_not_monotone_elementwise_has_no_sign(make):
    transform = make()
    with pytest.raises(NotImplementedError):
        transform.sign
    with pytest.raises(NotImplementedError):
        transform.inv.sign


def test_a_cdf_through_abs_is_refused_and_through_monotone_maps_follows_their_sign():
    with pytest.raises(NotImplementedError):  # was Normal's cdf at |x|'s "inverse": 0.69 for P(|x| <= 0.5)
        TransformedDistribution(Normal(0.0, 1.0), [T.AbsTransform()]).cdf(mg.tensor(0.5))
    for transform in (T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.SoftplusTransform()):
        assert transform.sign == 1 and transform.inv.sign == 1
    falling = TransformedDistribution(Normal(0.0, 1.0), [T.ExpTransform(), T.AffineTransform(0.0, -1.0)])
    # P(-exp(z) <= -1) = P(z >= 0)
    assert falling.cdf(mg.tensor(-1.0)).item() == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("make", [T.ExpTransform, lambda: T.AffineTransform(mg.randn(3), 2.0),
                                  lambda: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)]),
                                  lambda: T.IndependentTransform(T.SigmoidTransform(), 1)],
                         ids=["exp", "affine", "compose", "independent"])
def test_the_inverse_is_one_object_whose_inverse_is_the_map(make):
    transform = make()
    inverse = transform.inv
    assert transform.inv is inverse and inverse.inv is transform and inverse.inv.inv is inverse
    copy = pickle.loads(pickle.dumps(transform))  # the weakly held inverse does not travel; a new one is made
    assert copy.inv.inv is copy


def test_an_affine_jacobian_of_a_number_scale_is_a_constant():
    x = mg.tensor([1.0, float("inf"), -float("inf")], dtype=mg.float64, requires_grad=True)
    transform = T.AffineTransform(0.0, 2.0, cache_size=1)
    y = transform(x)
    lad = transform.log_abs_det_jacobian(x, y)
    np.testing.assert_array_equal(lad.numpy(), [math.log(2.0)] * 3)  # was NaN at the infinities
    assert not lad.requires_grad
    np.testing.assert_array_equal(transform.inv.log_abs_det_jacobian(y, x).numpy(), [-math.log(2.0)] * 3)
    np.testing.assert_array_equal(T.identity_transform.log_abs_det_jacobian(x, x).numpy(), [0.0] * 3)


def test_an_independent_base_under_a_matrix_map_in_float32():
    base = Independent(Normal(mg.zeros(2, 3, dtype=mg.float32), mg.ones(2, 3, dtype=mg.float32)), 1)
    dist = TransformedDistribution(base, [T.ReshapeTransform((2, 3), (3, 2))])
    assert (tuple(dist.batch_shape), tuple(dist.event_shape)) == ((), (3, 2))
    log_prob = dist.log_prob(mg.zeros(3, 2, dtype=mg.float32))
    assert log_prob.dtype == mg.float32
    assert log_prob.item() == pytest.approx(-3 * math.log(2 * math.pi), rel=1e-6)


def test_a_widened_transformed_log_prob_under_vmap_and_grad():
    loc = mg.tensor([0.0, 1.0, 2.0], dtype=mg.float64)

    def log_prob(scale, value):
        dist = TransformedDistribution(Normal(0.0, 1.0), [T.AffineTransform(loc, scale), T.ExpTransform()])
        return dist.log_prob(value).sum()

    values = mg.tensor(np.exp(np.arange(12.0).reshape(4, 3) / 7), dtype=mg.float64)
    scale = mg.tensor(1.5, dtype=mg.float64)
    per_row = mg.func.vmap(log_prob, in_dims=(None, 0))(scale, values)
    loop = [log_prob(scale, values[i]).item() for i in range(4)]
    np.testing.assert_allclose(per_row.numpy(), loop, rtol=1e-12)
    # d/ds of sum_i [-(log v_i - loc_i)^2 / (2 s^2) - log s - log v_i]: sum_i [(log v_i - loc_i)^2 / s^3 - 1 / s]
    z = np.log(values.numpy()[1]) - loc.numpy()
    expected = float(np.sum(z ** 2 / 1.5 ** 3 - 1 / 1.5))
    np.testing.assert_allclose(mg.func.grad(log_prob)(scale, values[1]).item(), expected, rtol=1e-12)
