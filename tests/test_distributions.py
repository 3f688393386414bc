"""``mg.distributions`` (Categorical, Normal, Bernoulli, kl_divergence): a ported REINFORCE
(``Categorical(probs).sample()`` / ``.log_prob``) or VAE (``kl_divergence(Normal(...), Normal(0, 1))``)
was an AttributeError. Expected values: ``torch.distributions`` 2.13 on the same float64 inputs,
printed with ``.tolist()``; gradients are of ``log_prob(...).sum() + entropy().sum()`` (+ KL)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import Bernoulli, Categorical, Normal, kl_divergence


def _t(values, grad=False):
    return mg.tensor(values, dtype=mg.float64, requires_grad=grad)


def test_categorical_from_logits():
    lg = _t([[0.5, -1.0, 2.0, 0.0], [1.5, 1.5, -3.0, 0.25]], grad=True)
    d = Categorical(logits=lg)
    lp, ent = d.log_prob(mg.tensor([2, 0])), d.entropy()
    (lp.sum() + ent.sum()).backward()
    np.testing.assert_allclose(lp.numpy(), [-0.34234958238982216, -0.831871103247912], rtol=1e-12)
    np.testing.assert_allclose(ent.numpy(), [0.878281175268733, 1.0094995113250023], rtol=1e-12)
    np.testing.assert_allclose(lg.grad.numpy(), [
        [-0.0056931707961094796, 0.05176037200163504, -0.0906649056617532, 0.044597704456227634],
        [0.4874558938231113, -0.5125441061768887, 0.016063715590266685, 0.009024496763510761]], rtol=1e-10)
    assert d.batch_shape == (2,) and d.log_prob(mg.tensor([[0], [3]])).shape == (2, 2)  # broadcast, as torch


def test_categorical_from_probs_with_a_zero_and_its_kl():
    p = _t([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]], grad=True)
    d = Categorical(probs=p)
    lp, ent = d.log_prob(mg.tensor([1, 0])), d.entropy()
    (lp.sum() + ent.sum()).backward()
    np.testing.assert_allclose(lp.numpy(), [-1.2039728043259361, -36.04365338911715], rtol=1e-12)
    np.testing.assert_allclose(ent.numpy(), [1.0296530140645737, 0.6931471805599453], rtol=1e-12)
    np.testing.assert_allclose(p.grad.numpy(), [[-0.4202151016304734, 2.507653123594696, -1.3365058335046283],
                                                [36.350506208557206, 0.0, 0.0]], rtol=1e-10)
    q = Categorical(logits=_t([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    np.testing.assert_allclose(kl_divergence(Categorical(probs=p.detach()), q).numpy(),
                               [0.07795295037980704, 1.2144587838844352], rtol=1e-12)
    np.testing.assert_allclose(kl_divergence(q, Categorical(probs=p.detach())).numpy(),
                               [0.06825935238120795, math.inf], rtol=1e-12)


def test_normal_log_prob_entropy_kl_and_rsample():
    loc, scale = _t([0.5, -1.0], grad=True), _t([1.5, 0.25], grad=True)
    n = Normal(loc, scale)
    lp, ent, kl = n.log_prob(_t([0.0, -0.5])), n.entropy(), kl_divergence(n, Normal(0.0, 1.0))
    (lp.sum() + ent.sum() + kl.sum()).backward()
    np.testing.assert_allclose(lp.numpy(), [-1.3799591968683926, -1.532644172084782], rtol=1e-12)
    np.testing.assert_allclose(ent.numpy(), [1.824403641312837, 0.0326441720847821], rtol=1e-12)
    np.testing.assert_allclose(kl.numpy(), [0.3445348918918356, 1.4175443611198906], rtol=1e-12)
    np.testing.assert_allclose(loc.grad.numpy(), [0.2777777777777778, 7.0], rtol=1e-12)
    np.testing.assert_allclose(scale.grad.numpy(), [0.9074074074074074, 12.25], rtol=1e-12)
    s = n.rsample((4,))
    assert s.shape == (4, 2) and s.requires_grad and not n.sample().requires_grad
    with pytest.raises(ValueError, match="scale"):
        Normal(0.0, -1.0)


def test_bernoulli_from_logits_and_probs():
    bl = _t([0.5, -2.0, 3.0], grad=True)
    b = Bernoulli(logits=bl)
    lp, ent = b.log_prob(_t([1.0, 0.0, 0.0])), b.entropy()
    (lp.sum() + ent.sum()).backward()
    np.testing.assert_allclose(lp.numpy(), [-0.4740769841801067, -0.1269280110429727, -3.048587351573742], rtol=1e-12)
    np.testing.assert_allclose(ent.numpy(), [0.6628473185791794, 0.36533385508720784, 0.19086497110644196],
                               rtol=1e-12)
    np.testing.assert_allclose(bl.grad.numpy(), [0.2600388126973482, 0.09078424878489547, -1.0881041060151695],
                               rtol=1e-10)
    kl = kl_divergence(Bernoulli(logits=bl.detach()), Bernoulli(probs=_t([0.3, 0.0, 1.0])))
    np.testing.assert_allclose(kl.numpy(), [0.2212360848649342, math.inf, math.inf], rtol=1e-12)


def test_samples_follow_the_probabilities_and_have_the_batch_shape():
    mg.manual_seed(0)
    d = Categorical(probs=mg.tensor([[0.1, 0.9], [0.8, 0.2]]))
    s = d.sample((4000,))
    assert s.shape == (4000, 2) and s.dtype == mg.int64
    np.testing.assert_allclose(s.numpy().mean(axis=0), [0.9, 0.2], atol=0.03)
    assert Categorical(probs=mg.tensor([0.5, 0.5])).sample().shape == ()
    b = Bernoulli(probs=mg.tensor([0.25, 0.75])).sample((4000,))
    np.testing.assert_allclose(b.numpy().mean(axis=0), [0.25, 0.75], atol=0.03)
    with pytest.raises(ValueError, match="not both"):
        Categorical(probs=mg.ones(2), logits=mg.ones(2))
