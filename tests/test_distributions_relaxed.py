"""``RelaxedBernoulli``, ``RelaxedOneHotCategorical`` (with their bases ``relaxed.LogitRelaxedBernoulli``,
``relaxed.ExpRelaxedCategorical``) and ``OneHotCategoricalStraightThrough``, PyTorch's (they were
AttributeErrors): torch's log_prob/expand/gradient numbers are replayed by
tests/test_distributions_transformed_families.py (cases ``relaxed``, ``relaxed_gradients``); here the draws
(fixed seeds, statistics: a relaxed Bernoulli lands above 1/2 with probability ``probs``, the argmax of a
relaxed one-hot is a categorical draw of ``probs``), shapes, torch's refusals, the straight-through gradient,
float32 and the strict devices, and ``rsample`` inside ``mg.checkpoint.checkpoint`` and under ``mg.func.grad``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams  # noqa: E402


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_relaxed_draws_harden_to_the_discrete_ones(dtype):
    mg.manual_seed(21)
    probs = mg.tensor([0.2, 0.7, 0.9], dtype=dtype)
    x = D.RelaxedBernoulli(mg.tensor(0.3, dtype=dtype), probs=probs).rsample((20000,))
    assert x.shape == (20000, 3) and x.dtype == dtype and bool(((x >= 0) & (x <= 1)).all().item())
    np.testing.assert_allclose((x.numpy() > 0.5).mean(0), probs.numpy(), atol=0.012)
    logits = mg.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 1.0]], dtype=dtype)
    y = D.RelaxedOneHotCategorical(mg.tensor(0.5, dtype=dtype), logits=logits).rsample((20000,))
    assert y.shape == (20000, 2, 3) and y.dtype == dtype
    np.testing.assert_allclose(y.numpy().sum(-1), 1.0, rtol=1e-5)
    picked = np.eye(3)[y.numpy().argmax(-1)].mean(0)  # Gumbel-max: the argmax is Categorical(logits)
    np.testing.assert_allclose(picked, mg.softmax(logits, -1).numpy(), atol=0.012)


def test_shapes_refusals_and_reprs_as_torch():
    d = D.RelaxedOneHotCategorical(mg.tensor(0.5), probs=mg.tensor([[0.2, 0.8]] * 4))
    assert d.batch_shape == (4,) and d.event_shape == (2,) and d.rsample((3,)).shape == (3, 4, 2)
    assert d.expand((5, 4)).rsample().shape == (5, 4, 2) and type(d.expand((5, 4))) is D.RelaxedOneHotCategorical
    b = D.RelaxedBernoulli(mg.tensor(0.5), probs=0.3)
    assert b.batch_shape == () and b.rsample((2,)).shape == (2,) and b.has_rsample and d.has_rsample
    assert repr(b) == "RelaxedBernoulli()" and repr(d) == "RelaxedOneHotCategorical()"
    # torch: "Expected parameter probs (Tensor of shape ()) of distribution LogitRelaxedBernoulli(probs: 1.5) to
    # satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0), but found invalid values: 1.5"
    with pytest.raises(ValueError, match=r"parameter probs \(Tensor of shape \(\)\) of distribution "
                                         r"LogitRelaxedBernoulli\(probs: 1.5\) to satisfy the constraint Interval"):
        D.RelaxedBernoulli(mg.tensor(0.5), probs=mg.tensor(1.5))
    with pytest.raises(ValueError, match=r"of distribution Categorical\(probs: \(2,\)\) to satisfy the constraint "
                                         r"Simplex\(\)"):
        D.RelaxedOneHotCategorical(mg.tensor(0.5), probs=mg.tensor([-0.1, 1.1]))
    with pytest.raises(ValueError, match=r"within the support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\) of "
                                         r"the distribution RelaxedBernoulli\(\)"):
        D.RelaxedBernoulli(mg.tensor(0.5), probs=mg.tensor(0.5)).log_prob(mg.tensor(1.5))
    with pytest.raises(ValueError, match=r"within the support \(Simplex\(\)\) of the distribution "
                                         r"RelaxedOneHotCategorical\(\)"):
        D.RelaxedOneHotCategorical(mg.tensor(0.5), probs=mg.tensor([0.5, 0.5])).log_prob(mg.tensor([0.3, 0.3]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.RelaxedBernoulli(mg.tensor(0.5))


def test_straight_through_is_the_draw_with_the_gradient_of_probs():
    mg.manual_seed(22)
    logits = mg.tensor([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]], dtype=mg.float64, requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(logits=logits)
    assert d.has_rsample and type(d.expand((3, 2))) is D.OneHotCategoricalStraightThrough
    x = d.rsample((4,))
    assert x.shape == (4, 2, 3) and set(np.unique(x.detach().numpy())) <= {0.0, 1.0}
    np.testing.assert_array_equal(x.detach().numpy().sum(-1), 1.0)
    weights = mg.tensor(np.arange(24.0).reshape(4, 2, 3), dtype=mg.float64)
    (got,) = mg.autograd.grad((x * weights).sum(), [logits])
    (want,) = mg.autograd.grad((mg.softmax(logits, -1) * weights.sum(0)).sum(), [logits])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    logits = mg.tensor([[0.5, -1.0, 2.0]], dtype=dtype, device=device, requires_grad=True)
    temperature = mg.tensor(0.7, dtype=dtype, device=device, requires_grad=True)
    rb, rc = D.RelaxedBernoulli(temperature, logits=logits), D.RelaxedOneHotCategorical(temperature, logits=logits)
    st = D.OneHotCategoricalStraightThrough(logits=logits)
    x, y = rb.rsample((2,)), rc.rsample((2,))
    total = (x.sum() + rb.log_prob(x.detach()).sum() + y.pow(2).sum() + rc.log_prob(y.detach()).sum()
             + (st.rsample((3,)) * mg.arange(3, dtype=dtype, device=device)).sum())
    total.backward()
    for t in (logits, temperature):
        assert str(t.grad.device).startswith(device) and t.grad.dtype == dtype
        assert bool(t.grad.isfinite().all().item())


def _loss(temperature, logits):
    x = D.RelaxedBernoulli(temperature, logits=logits).rsample((3,))
    y = D.RelaxedOneHotCategorical(temperature, logits=logits).rsample((3,))
    z = D.OneHotCategoricalStraightThrough(logits=logits).rsample((3,))
    return x.pow(2).sum() + (y * mg.arange(3, dtype=y.dtype)).sum() + (z * mg.arange(3, dtype=z.dtype)).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    temperature = mg.tensor(0.7, dtype=mg.float64, requires_grad=True)
    logits = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (temperature, logits), seed=23)
