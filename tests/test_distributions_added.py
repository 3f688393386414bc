"""What ported RL/VAE programs reach for beyond ``log_prob``/``entropy``: ``Categorical``'s
``mode``/``mean``/``variance``/``enumerate_support``, ``Normal.cdf``/``icdf``/``mode``,
``Bernoulli``'s ``variance``/``stddev``/``mode``/``enumerate_support``, ``expand``, and the
``mg.distributions.kl`` module (``kl_divergence``, ``register_kl``). Each was an AttributeError.

Expected values: ``torch.distributions`` 2.13 on the same float64 inputs, printed with
``.tolist()`` (the torch expression is in each comment); gradients also by ``mg.testing.gradcheck``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import Bernoulli, Categorical, Distribution, Normal
from minigrad_ckpt.distributions.kl import kl_divergence, register_kl
from minigrad_ckpt.testing import gradcheck


def _t(values, grad=False, dtype=mg.float64):
    return mg.tensor(values, dtype=dtype, requires_grad=grad)


LOGITS = [[0.5, -1.0, 2.0, 0.0], [1.5, 1.5, -3.0, 0.25]]


def test_categorical_mode_mean_variance_and_shapes():
    d = Categorical(logits=_t(LOGITS))
    # torch: c.mode.tolist() == [2, 0]; c.mean / c.variance: full of nan, float64, shape (2,)
    assert d.event_shape == () and d.mode.tolist() == [2, 0] and d.mode.dtype == mg.int64
    for stat in (d.mean, d.variance):
        assert stat.shape == (2,) and stat.dtype == mg.float64 and np.isnan(stat.numpy()).all()
    # ties: the first, as torch.argmax -- Categorical(probs=[[.3,.3,.4],[.5,.5,0]]).mode == [2, 0]
    assert Categorical(probs=_t([[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]])).mode.tolist() == [2, 0]
    assert d.sample((3,)).shape == (3, 2) and d.sample().shape == (2,)


def test_categorical_enumerate_support_and_expand():
    d = Categorical(logits=_t(LOGITS))
    # torch: c.enumerate_support().tolist() (int64, (4, 2)); enumerate_support(False).shape == (4, 1)
    support = d.enumerate_support()
    assert support.dtype == mg.int64 and support.tolist() == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert d.enumerate_support(expand=False).shape == (4, 1)
    # summing over outcomes (the reason programs enumerate): log_prob of the support is each row's log-probs
    np.testing.assert_allclose(d.log_prob(support).exp().sum(0).numpy(), [1.0, 1.0], rtol=1e-12)
    assert Categorical(probs=_t([0.3, 0.7])).enumerate_support().tolist() == [0, 1]
    # torch: c.expand((5, 2)).batch_shape == (5, 2), .logits.shape == (5, 2, 4)
    e = d.expand((5, 2))
    assert e.batch_shape == (5, 2) and e.logits.shape == (5, 2, 4) and e.sample((3,)).shape == (3, 5, 2)
    np.testing.assert_array_equal(e.probs.numpy()[4], d.probs.numpy())


def test_normal_cdf_icdf_and_their_gradients_match_torch():
    loc, scale = _t([0.3, -1.2, 2.0], grad=True), _t([0.5, 1.5, 2.5], grad=True)
    d = Normal(loc, scale)
    cdf = d.cdf(_t([0.1, 0.0, 3.0]))
    cdf.sum().backward()
    # torch: Normal(loc, scale).cdf(tensor([0.1, 0., 3.])), .sum().backward()
    np.testing.assert_allclose(cdf.numpy(), [0.3445782583896759, 0.7881446014166033, 0.6554217416103242], rtol=1e-12)
    np.testing.assert_allclose(loc.grad.numpy(), [-0.7365402806066464, -0.1931277018409885, -0.1473080561213293],
                               rtol=1e-10)
    np.testing.assert_allclose(scale.grad.numpy(), [0.29461611224265855, -0.1545021614727908, -0.05892322244853173],
                               rtol=1e-10)
    loc.grad = scale.grad = None
    q = _t([0.1, 0.5, 0.975], grad=True)
    d = Normal(loc, scale)  # a fresh graph: the first backward freed this one's
    icdf = d.icdf(q)
    icdf.sum().backward()
    # torch: Normal(loc, scale).icdf(q) with q = tensor([0.1, 0.5, 0.975]), .sum().backward()
    np.testing.assert_allclose(icdf.numpy(), [-0.3407757827723004, -1.2, 6.899909961350135], rtol=1e-10)
    np.testing.assert_allclose(loc.grad.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(scale.grad.numpy(), [-1.2815515655446008, 0.0, 1.959963984540054], atol=1e-12)
    np.testing.assert_allclose(q.grad.numpy(), [2.8490299280585027, 3.759942411946501, 42.775207700831764], rtol=1e-9)
    assert d.mode is d.loc or np.array_equal(d.mode.numpy(), [0.3, -1.2, 2.0])
    assert d.event_shape == () and d.rsample((4, 2)).shape == (4, 2, 3)


def test_normal_cdf_icdf_gradcheck_and_float32():
    def cdf_icdf(loc, scale, x, q):
        d = Normal(loc, scale)
        return d.cdf(x) + d.icdf(q)

    inputs = (_t([0.3, -1.2], grad=True), _t([0.5, 1.5], grad=True), _t([0.1, 0.0], grad=True),
              _t([0.2, 0.7], grad=True))
    assert gradcheck(cdf_icdf, inputs)
    # float32 in, float32 out: torch gives icdf [-0.3407757878303528, 0.7223271131515503]
    d32 = Normal(_t([0.3, -1.2], dtype=mg.float32), _t([0.5, 1.5], dtype=mg.float32))
    out = d32.icdf(_t([0.1, 0.9], dtype=mg.float32))
    assert out.dtype == mg.float32 and d32.cdf(_t([0.1, 0.0], dtype=mg.float32)).dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), [-0.3407757878303528, 0.7223271131515503], rtol=1e-5)


def test_normal_expand_and_rsample_gradients():
    loc, scale = _t([0.3, -1.2], grad=True), _t([0.5, 1.5], grad=True)
    e = Normal(loc, scale).expand((3, 2))
    assert e.batch_shape == (3, 2) and e.rsample((4,)).shape == (4, 3, 2)

    def draw(loc, scale):
        mg.manual_seed(0)
        return Normal(loc, scale).rsample((5,))

    assert gradcheck(draw, (loc, scale))


def test_bernoulli_variance_stddev_mode_support():
    p = _t([0.2, 0.5, 0.9], grad=True)
    b = Bernoulli(probs=p)
    (b.variance.sum() + b.stddev.sum()).backward()
    # torch: Bernoulli(probs=p): (b.variance.sum() + b.stddev.sum()).backward()
    np.testing.assert_allclose(b.variance.numpy(), [0.16000000000000003, 0.25, 0.08999999999999998], rtol=1e-12)
    np.testing.assert_allclose(b.stddev.numpy(), [0.4, 0.5, 0.3], rtol=1e-12)
    np.testing.assert_allclose(p.grad.numpy(), [1.35, 0.0, -2.1333333333333333], atol=1e-12)
    # torch: Bernoulli(probs=tensor([.2, .5, .9, 0.])).mode.tolist() == [0.0, nan, 1.0, 0.0]
    mode = Bernoulli(probs=_t([0.2, 0.5, 0.9, 0.0])).mode
    np.testing.assert_array_equal(mode.numpy(), [0.0, math.nan, 1.0, 0.0])
    # torch: .enumerate_support().tolist() == [[0.]*4, [1.]*4], float64; (2, 1) unexpanded
    b4 = Bernoulli(probs=_t([0.2, 0.5, 0.9, 0.0]))
    assert b4.enumerate_support().tolist() == [[0.0] * 4, [1.0] * 4] and b4.enumerate_support().dtype == mg.float64
    assert b4.enumerate_support(expand=False).shape == (2, 1) and b4.event_shape == ()
    e = b4.expand((3, 4))
    assert e.batch_shape == (3, 4) and e.sample().shape == (3, 4)
    np.testing.assert_array_equal(e.probs.numpy()[2], b4.probs.numpy())


def test_kl_normal_normal_values_and_gradients():
    ploc, pscale = _t([0.0, 1.0], grad=True), _t([1.0, 0.5], grad=True)
    qloc, qscale = _t([0.5, -1.0], grad=True), _t([2.0, 1.5], grad=True)
    k = mg.distributions.kl.kl_divergence(Normal(ploc, pscale), Normal(qloc, qscale))
    k.sum().backward()
    # torch: kl.kl_divergence(Normal(ploc, pscale), Normal(qloc, qscale)), .sum().backward()
    np.testing.assert_allclose(k.numpy(), [0.3493971805599453, 1.5430567331125542], rtol=1e-12)
    np.testing.assert_allclose(ploc.grad.numpy(), [-0.125, 0.8888888888888888], rtol=1e-12)
    np.testing.assert_allclose(pscale.grad.numpy(), [-0.75, -1.7777777777777777], rtol=1e-12)
    np.testing.assert_allclose(qloc.grad.numpy(), [0.125, -0.8888888888888888], rtol=1e-12)
    np.testing.assert_allclose(qscale.grad.numpy(), [0.34375, -0.5925925925925926], rtol=1e-12)
    assert gradcheck(lambda a, b, c, d: kl_divergence(Normal(a, b), Normal(c, d)), (ploc, pscale, qloc, qscale))


def test_kl_categorical_and_bernoulli_gradients_match_torch():
    l1 = _t([[0.5, -1.0, 2.0], [1.5, 0.0, -3.0]], grad=True)
    l2 = _t([[0.0, 1.0, -0.5], [0.25, 0.75, 2.0]], grad=True)
    k = kl_divergence(Categorical(logits=l1), Categorical(logits=l2))
    k.sum().backward()
    # torch: kl.kl_divergence(Categorical(logits=l1), Categorical(logits=l2)), .sum().backward()
    np.testing.assert_allclose(k.numpy(), [1.196470123452621, 1.5003512095567921], rtol=1e-12)
    np.testing.assert_allclose(l1.grad.numpy(), [[-0.2582750787488465, -0.1554103928602971, 0.4136854716091436],
                                                 [0.3385254882946137, -0.28603189223563347, -0.05249359605898029]],
                               rtol=1e-10)
    np.testing.assert_allclose(l2.grad.numpy(), [[0.055933505482112345, 0.5894191459410749, -0.6453526514231874],
                                                 [-0.6912152171545285, 0.0154151350380822, 0.6758000821164464]],
                               rtol=1e-10)
    a1, a2 = _t([0.3, -2.0, 1.0], grad=True), _t([-0.5, 0.5, 3.0], grad=True)
    k = kl_divergence(Bernoulli(logits=a1), Bernoulli(logits=a2))
    k.sum().backward()
    # torch: kl.kl_divergence(Bernoulli(logits=a1), Bernoulli(logits=a2)), .sum().backward()
    np.testing.assert_allclose(k.numpy(), [0.07927575316090676, 0.5491416680818404, 0.27320850679550945], rtol=1e-12)
    np.testing.assert_allclose(a1.grad.numpy(), [0.1955666493525968, -0.26248396350876624, -0.39322386648296365],
                               rtol=1e-10)
    np.testing.assert_allclose(a2.grad.numpy(), [-0.19690184801351357, 0.503256409179737, 0.2215155481924283],
                               rtol=1e-10)
    assert gradcheck(lambda a, b: kl_divergence(Bernoulli(logits=a), Bernoulli(logits=b)), (a1, a2))
    assert gradcheck(lambda a, b: kl_divergence(Categorical(logits=a), Categorical(logits=b)), (l1, l2))


def test_kl_under_jvp_matches_its_gradient():
    loc = _t([0.0, 1.0])
    f = lambda m: kl_divergence(Normal(m, _t([1.0, 0.5])), Normal(_t([0.5, -1.0]), _t([2.0, 1.5]))).sum()  # noqa: E731
    _, tangent = mg.func.jvp(f, (loc,), (_t([1.0, 0.0]),))
    np.testing.assert_allclose(tangent.numpy(), -0.125, rtol=1e-12)  # torch's d/dploc[0], above


def test_register_kl_dispatch_and_refusal():
    class MyNormal(Normal):
        pass

    # a subclass pair uses its ancestors' formula, as torch's dispatch does
    k = kl_divergence(MyNormal(_t([0.0]), _t([1.0])), Normal(_t([0.5]), _t([2.0])))
    np.testing.assert_allclose(k.numpy(), [0.3493971805599453], rtol=1e-12)

    @register_kl(MyNormal, Normal)
    def _fixed(p, q):
        return mg.zeros(p.batch_shape, dtype=p.loc.dtype)

    assert kl_divergence(MyNormal(_t([0.0]), _t([1.0])), Normal(_t([0.5]), _t([2.0]))).tolist() == [0.0]
    assert kl_divergence(Normal(_t([0.0]), _t([1.0])), Normal(_t([0.0]), _t([1.0]))).tolist() == [0.0]
    with pytest.raises(NotImplementedError):
        kl_divergence(Normal(_t([0.0]), _t([1.0])), Bernoulli(probs=_t([0.5])))
    with pytest.raises(TypeError):
        register_kl(int, Normal)
    assert issubclass(MyNormal, Distribution) and mg.distributions.kl_divergence is kl_divergence


def test_independent_normal_sums_over_the_event_as_torch():
    from minigrad_ckpt.distributions import Independent

    loc = _t([[0.3, -1.2, 2.0], [0.0, 0.5, -0.5]], grad=True)
    scale = _t([[0.5, 1.5, 2.5], [1.0, 0.7, 0.2]], grad=True)
    p = Independent(Normal(loc, scale), 1)
    # torch: Independent(Normal(loc, scale), 1): batch (2,), event (3,), rsample((4,)) (4, 2, 3)
    assert p.batch_shape == (2,) and p.event_shape == (3,) and p.rsample((4,)).shape == (4, 2, 3)
    assert p.has_rsample and not p.has_enumerate_support
    lp, ent = p.log_prob(_t([[0.1, 0.0, 3.0], [1.0, -1.0, 0.0]])), p.entropy()
    (lp.sum() + ent.sum()).backward()
    # torch: lp, ent, then (lp.sum() + ent.sum()).backward(): loc.grad, scale.grad
    np.testing.assert_allclose(lp.numpy(), [-3.8654242590363923, -6.711621110588124], rtol=1e-12)
    np.testing.assert_allclose(ent.numpy(), [4.885424259036393, 2.2907027432411855], rtol=1e-12)
    np.testing.assert_allclose(loc.grad.numpy(), [[-0.7999999999999999, 0.5333333333333333, 0.16],
                                                  [1.0, -3.061224489795919, 12.499999999999998]], rtol=1e-12)
    np.testing.assert_allclose(scale.grad.numpy(), [[0.31999999999999995, 0.42666666666666664, 0.064],
                                                    [1.0, 6.559766763848398, 31.24999999999999]], rtol=1e-12)
    q = Independent(Normal(mg.zeros(2, 3, dtype=mg.float64), mg.ones(2, 3, dtype=mg.float64)), 1)
    # torch: kl.kl_divergence(p, q) against a standard normal, the VAE's term
    np.testing.assert_allclose(kl_divergence(p, q).numpy(), [5.011391340577626, 1.4811128563728326], rtol=1e-12)
    whole = Independent(Normal(loc, scale), 2)
    np.testing.assert_allclose(whole.log_prob(_t([[0.1, 0.0, 3.0], [1.0, -1.0, 0.0]])).item(), -10.577045369624514,
                               rtol=1e-12)
    assert p.expand((5, 2)).batch_shape == (5, 2) and p.expand((5, 2)).event_shape == (3,)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        Independent(Normal(loc, scale), 3)
    with pytest.raises(NotImplementedError):
        kl_divergence(p, whole)
    b = Independent(Bernoulli(probs=_t([0.2, 0.7])), 1)
    # torch: Independent(Bernoulli(probs=[.2, .7]), 1).log_prob(tensor([1., 0.])).item()
    np.testing.assert_allclose(b.log_prob(_t([1.0, 0.0])).item(), -2.8134107167600364, rtol=1e-12)


def test_set_default_validate_args_is_accepted():
    # RL programs call torch.distributions.Distribution.set_default_validate_args(False) for speed
    Distribution.set_default_validate_args(False)
    assert Normal(_t([0.0]), _t([1.0])).log_prob(_t([5.0])).shape == (1,)
    Distribution.set_default_validate_args(True)  # PyTorch's default, left for the tests after this one
    with pytest.raises(ValueError):
        Distribution.set_default_validate_args("yes")


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_distributions_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    loc = mg.zeros(3, device=device, requires_grad=True)
    scale = mg.ones(3, device=device, requires_grad=True)
    n = Normal(loc, scale)
    v = n.rsample((2,))  # drew its noise on the CPU before: a device mismatch
    q = mg.full((3,), 0.3, device=device)
    (n.log_prob(v).sum() + n.cdf(v).sum() + n.icdf(q).sum() + kl_divergence(n, Normal(loc * 2, scale)).sum()).backward()
    assert str(loc.grad.device).startswith(device) and loc.grad.dtype == mg.float32
    c = Categorical(logits=mg.zeros(2, 4, device=device))
    b = Bernoulli(probs=q)
    for t in (c.sample((3,)), c.mode, c.mean, c.enumerate_support(), kl_divergence(c, c), b.mode, b.variance,
              b.enumerate_support(), kl_divergence(b, b)):
        assert str(t.device).startswith(device)
