"""Programs for the distributions added beside Normal/Uniform (Exponential, Laplace, Cauchy, Gumbel,
HalfNormal, HalfCauchy, ...), written once for both libraries as tests/data/distribution_cases.py's:
``f(D, T, func)`` returns a list of tensors. tests/data/make_torch_distributions_more.py records torch's
answers in float64 and float32; tests/test_distributions_more.py replays them with minigrad_ckpt."""

LOC, SCALE = [0.0, -1.5, 2.0], [1.0, 0.5, 3.0]
X = [[0.25, -1.0, 4.0], [-2.0, 0.0, 2.0]]
POS = [[0.25, 1.0, 4.0], [2.0, 0.0, 0.5]]
P = [[0.1, 0.5, 0.9], [0.3, 0.75, 0.02]]


def _summary(d):
    return [d.mean, d.mode, d.variance, d.stddev, d.entropy()]


def _objective(D, make, params, x, q_params, icdf=True):
    d = make(*params)
    total = d.log_prob(x).sum() + d.entropy().sum() + d.cdf(x).sum() + d.mean.sum() + d.variance.sum()
    if icdf:
        total = total + d.icdf(x * 0 + 0.3).sum()
    return total + D.kl_divergence(d, make(*q_params)).sum() + D.kl_divergence(make(*q_params), d).sum()


def exponential(D, T, func):
    d = D.Exponential(T(SCALE))
    return _summary(d) + [d.log_prob(T(POS)), d.cdf(T(POS)), d.icdf(T(P)), d.expand((2, 3)).log_prob(T(0.5)),
                          D.kl_divergence(d, D.Exponential(T([2.0, 0.5, 0.1])))]


def laplace(D, T, func):
    d = D.Laplace(T(LOC), T(SCALE))
    return _summary(d) + [d.log_prob(T(X)), d.cdf(T(X)), d.icdf(T(P)),
                          D.kl_divergence(d, D.Laplace(T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25])))]


def cauchy(D, T, func):
    d = D.Cauchy(T(LOC), T(SCALE))
    return _summary(d)[1:] + [d.mean.isnan(), d.log_prob(T(X)), d.cdf(T(X)), d.icdf(T(P)),
                              D.kl_divergence(d, D.Cauchy(T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25])))]


def gumbel(D, T, func):
    d = D.Gumbel(T(LOC), T(SCALE))
    return _summary(d) + [d.log_prob(T(X)), d.cdf(T(X)), d.icdf(T(P)),
                          D.kl_divergence(d, D.Gumbel(T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25])))]


def half_normal(D, T, func):
    d = D.HalfNormal(T(SCALE))
    return _summary(d) + [d.log_prob(T(POS)), d.cdf(T(POS)), d.icdf(T(P)),
                          D.HalfNormal(T(SCALE), validate_args=False).log_prob(T([-1.0, 0.5, -0.0])),
                          D.kl_divergence(d, D.HalfNormal(T([2.0, 0.5, 0.25])))]


def half_cauchy(D, T, func):
    d = D.HalfCauchy(T(SCALE))
    return [d.mode, d.entropy(), d.log_prob(T(POS)), d.cdf(T(POS)), d.icdf(T(P)), d.mean.isinf(), d.variance]


def continuous_gradients(D, T, func):
    q2 = (T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25]))
    outs = []
    for make in (D.Laplace, D.Gumbel, D.Cauchy):
        def objective(loc, scale, make=make):
            d = make(loc, scale)
            return (d.log_prob(T(X)).sum() + d.entropy().sum() + d.cdf(T(X)).sum() + d.icdf(T(P)).sum()
                    + d.mode.sum() + D.kl_divergence(d, make(*q2)).sum() + D.kl_divergence(make(*q2), d).sum())
        outs += list(func.grad(objective, argnums=(0, 1))(T(LOC), T(SCALE)))
    for make in (D.Exponential, D.HalfNormal):
        def objective(scale, make=make):
            d = make(scale)
            return (d.log_prob(T(POS)).sum() + d.entropy().sum() + d.cdf(T(POS)).sum() + d.icdf(T(P)).sum()
                    + d.mean.sum() + d.variance.sum() + D.kl_divergence(d, make(T([2.0, 0.5, 0.25]))).sum()
                    + D.kl_divergence(make(T([2.0, 0.5, 0.25])), d).sum())
        outs.append(func.grad(objective)(T(SCALE)))
    d = lambda scale: D.HalfCauchy(scale)  # noqa: E731
    outs.append(func.grad(lambda s: d(s).log_prob(T(POS)).sum() + d(s).cdf(T(POS)).sum() + d(s).entropy().sum()
                          + d(s).icdf(T(P)).sum())(T(SCALE)))
    return outs



def log_normal(D, T, func):
    d = D.LogNormal(T(LOC), T(SCALE))
    return _summary(d) + [d.log_prob(T(POS[:1])), d.cdf(T(POS[:1])), d.icdf(T(P)), d.expand((2, 3)).log_prob(T(0.5)),
                          D.kl_divergence(d, D.LogNormal(T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25])))]


def _squashed(D, loc, scale):  # SAC's policy: tanh of an affine map of a Gaussian
    return D.TransformedDistribution(D.Normal(loc, scale), [D.AffineTransform(T_ZERO(loc), 2.0), D.TanhTransform()])


def T_ZERO(t):  # noqa: N802  (a tensor of zeros beside t)
    return t * 0 + 0.5


def transformed(D, T, func):
    sq = _squashed(D, T(LOC), T(SCALE))
    y = T([[0.25, -0.5, 0.9], [-0.99, 0.0, 0.5]])
    dec = D.TransformedDistribution(D.Normal(T(LOC), T(SCALE)), D.AffineTransform(T(1.0), T(-2.0)))
    sig = D.TransformedDistribution(D.Uniform(T([-1.0, 0.0, 1.0]), T([2.0, 1.0, 3.0])),
                                    D.ComposeTransform([D.AffineTransform(0.5, 3.0), D.SigmoidTransform()]))
    expd = D.TransformedDistribution(D.Normal(T(LOC), T(SCALE)), [D.ExpTransform().inv.inv])
    return [sq.log_prob(y), sq.cdf(y), sq.icdf(T(P)), dec.log_prob(T(X)), dec.cdf(T(X)), dec.icdf(T(P)),
            sig.log_prob(T([0.6, 0.7, 0.99])), sig.cdf(T([0.6, 0.7, 0.99])), expd.log_prob(T(POS[:1])),
            sq.expand((2, 3)).log_prob(y[0]),
            D.kl_divergence(dec, D.TransformedDistribution(D.Normal(T(0.0), T(1.0)),
                                                           D.AffineTransform(T(1.0), T(-2.0))))]


def transform_maps(D, T, func):
    x, outs = T(X), []
    for t in (D.ExpTransform(), D.AffineTransform(T([1.0, 2.0, 3.0]), T([0.5, -2.0, 1.0])), D.SigmoidTransform(),
              D.TanhTransform(), D.ComposeTransform([D.AffineTransform(1.0, 0.5), D.TanhTransform()]),
              D.AffineTransform(T([1.0, 2.0, 3.0]), T([0.5, -2.0, 1.0]), event_dim=1)):
        y = t(x)
        outs += [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.inv.log_abs_det_jacobian(y, x)]
    return outs


def transformed_gradients(D, T, func):
    def objective(loc, scale):
        sq, ln = _squashed(D, loc, scale), D.LogNormal(loc, scale)
        y = T([[0.25, -0.5, 0.9], [-0.99, 0.0, 0.5]])
        q = D.LogNormal(T([1.0, -1.0, 0.0]), T([2.0, 0.5, 0.25]))
        return (sq.log_prob(y).sum() + sq.cdf(y).sum() + sq.icdf(T(P)).sum() + ln.log_prob(T(POS[:1])).sum()
                + ln.cdf(T(POS[:1])).sum() + ln.icdf(T(P)).sum() + ln.mean.sum() + ln.variance.sum() + ln.mode.sum()
                + ln.entropy().sum() + D.kl_divergence(ln, q).sum() + D.kl_divergence(q, ln).sum())
    return list(func.grad(objective, argnums=(0, 1))(T(LOC), T(SCALE)))


LOGITS = [[0.5, -1.0, 2.0, 0.0], [1.5, 1.5, -3.0, 0.25]]
ONE_HOT = [[[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]


def one_hot_categorical(D, T, func):
    d, p = D.OneHotCategorical(logits=T(LOGITS)), D.OneHotCategorical(probs=T([0.1, 0.2, 0.3, 0.4]))
    return [d.mean, d.mode, d.variance, d.entropy(), d.log_prob(T(ONE_HOT)), d.enumerate_support(),
            d.enumerate_support(expand=False), p.log_prob(T(ONE_HOT)), p.expand((3,)).entropy(),
            D.kl_divergence(d, p), D.kl_divergence(p, d)]


def geometric(D, T, func):
    d, lg = D.Geometric(T(P[0] + [1.0])), D.Geometric(logits=T([0.5, -2.0, 3.0, 0.0]))
    k = T([[0.0, 3.0, 1.0, 0.0], [5.0, 0.0, 2.0, 1.0]])
    return [d.mean, d.mode, d.variance, d.entropy(), d.log_prob(k), lg.log_prob(k), lg.mean, lg.entropy(),
            lg.probs, D.kl_divergence(lg, D.Geometric(T([0.3, 0.6, 0.2, 0.5])))]


def poisson(D, T, func):
    d = D.Poisson(T([0.5, 3.0, 12.0, 0.0]))
    k = T([[0.0, 3.0, 10.0, 0.0], [7.0, 0.0, 20.0, 1.0]])
    return [d.mean, d.mode, d.variance, d.log_prob(k), d.expand((2, 4)).log_prob(T(2.0)),
            D.kl_divergence(D.Poisson(T([0.5, 3.0, 12.0])), D.Poisson(T([1.0, 2.0, 30.0])))]


def binomial(D, T, func):
    d = D.Binomial(T([5.0, 10.0, 10.0]), T([0.3, 0.5, 0.99]))
    h = D.Binomial(6, logits=T([[0.5, -2.0, 3.0], [0.0, 1.0, -1.0]]))
    k = T([[0.0, 3.0, 10.0], [5.0, 10.0, 9.0]])
    return [d.mean, d.mode, d.variance, d.log_prob(k), h.entropy(), h.enumerate_support(), h.log_prob(T(4.0)),
            h.mean, h.mode, D.kl_divergence(d, D.Binomial(T([5.0, 10.0, 7.0]), T([0.5, 0.1, 0.2]))),
            D.kl_divergence(h, D.Binomial(6, T([0.5, 0.1, 0.2])))]


def discrete_gradients(D, T, func):
    def objective(logits, probs, rate):
        oh = D.OneHotCategorical(logits=logits)
        g, b = D.Geometric(probs), D.Binomial(T([5.0, 10.0, 10.0]), probs)
        po, bl = D.Poisson(rate), D.Binomial(6, logits=logits[0, :3])
        k = T([[0.0, 3.0, 1.0], [5.0, 0.0, 2.0]])
        return (oh.log_prob(T(ONE_HOT)).sum() + oh.entropy().sum() + g.log_prob(k).sum() + g.entropy().sum()
                + g.mean.sum() + g.variance.sum() + b.log_prob(k).sum() + b.variance.sum() + po.log_prob(k).sum()
                + bl.entropy().sum() + bl.log_prob(k).sum()
                + D.kl_divergence(oh, D.OneHotCategorical(logits=logits.flip(-1))).sum()
                + D.kl_divergence(g, D.Geometric(probs.flip(-1))).sum()
                + D.kl_divergence(po, D.Poisson(rate.flip(-1))).sum()
                + D.kl_divergence(b, D.Binomial(T([5.0, 10.0, 10.0]), probs.flip(-1))).sum())
    return list(func.grad(objective, argnums=(0, 1, 2))(T(LOGITS), T([0.3, 0.5, 0.9]), T([0.5, 3.0, 12.0])))


MU = [[0.5, -1.0, 2.0], [0.0, 0.0, 1.0]]
COV = [[2.0, 0.5, 0.25], [0.5, 1.0, -0.3], [0.25, -0.3, 1.5]]
TRIL = [[1.5, 0.0, 0.0], [0.5, 0.75, 0.0], [-1.0, 0.25, 2.0]]
VEC = [[[1.0, 0.0, -1.0], [0.5, 2.0, 3.0]], [[0.0, 0.0, 0.0], [-2.0, 1.0, 0.5]]]


def _mvn_all(D, T, d):
    return [d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.log_prob(T(VEC)), d.log_prob(T(VEC[0][0])),
            d.covariance_matrix, d.precision_matrix, d.scale_tril, d.expand((4, 2)).log_prob(T(VEC[1]))]


def multivariate_normal(D, T, func):
    cov = D.MultivariateNormal(T(MU), covariance_matrix=T(COV))
    prec = D.MultivariateNormal(T(MU[0]), precision_matrix=T(COV))
    tril = D.MultivariateNormal(T(MU), scale_tril=T([TRIL, [[1.0, 0, 0], [0, 2.0, 0], [0.5, 0.5, 0.5]]]))
    return (_mvn_all(D, T, cov) + _mvn_all(D, T, prec) + _mvn_all(D, T, tril)
            + [D.kl_divergence(cov, prec), D.kl_divergence(prec, tril), D.kl_divergence(tril, cov)])


def multivariate_normal_gradients(D, T, func):
    def objective(mu, a, cov, tril):
        p = D.MultivariateNormal(mu, covariance_matrix=a @ a.mT + T([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]))
        q = D.MultivariateNormal(mu.flip(-1), precision_matrix=cov)
        r = D.MultivariateNormal(mu, scale_tril=tril)
        return sum(d.log_prob(T(VEC)).sum() + d.entropy().sum() + d.variance.sum() for d in (p, q, r)) + (
            D.kl_divergence(p, q).sum() + D.kl_divergence(q, r).sum() + D.kl_divergence(r, p).sum())
    mu, a, cov, tril = func.grad(objective, argnums=(0, 1, 2, 3))(T(MU), T(TRIL), T(COV), T(TRIL))
    # a symmetric matrix's gradient symmetrized: minigrad's Cholesky reads (and differentiates) one triangle,
    # PyTorch's spreads the same derivative over both (docs/ops.md); the two agree on every symmetric direction
    return [mu, a, (cov + cov.mT) / 2, tril]


CONC = [[0.5, 1.0, 4.5], [2.0, 0.25, 1.5]]
RATE = [1.0, 2.0, 0.5]
DIR = [[0.5, 0.7, 0.2], [2.0, 3.0, 1.0]]
SIMPLEX = [[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], [[0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]]]


def gamma_family(D, T, func):
    g, chi = D.Gamma(T(CONC), T(RATE)), D.Chi2(T([1.0, 3.0, 10.0]))
    return (_summary(g) + [g.log_prob(T(POS[:1])), g.cdf(T(POS)), g.expand((4, 2, 3)).log_prob(T(1.5)),
                           D.kl_divergence(g, D.Gamma(T([1.0, 2.0, 0.5]), T([0.5, 0.5, 3.0])))]
            + _summary(chi) + [chi.log_prob(T(POS[:1])), chi.cdf(T(POS)), chi.df,
                               D.kl_divergence(chi, D.Chi2(T([2.0, 2.0, 2.0])))])


def beta_dirichlet(D, T, func):
    b, d = D.Beta(T(CONC[0]), T(CONC[1])), D.Dirichlet(T(DIR))
    b_nums = D.Beta(2.0, 3.0)
    return (_summary(b) + [b.log_prob(T(P)), b.concentration1, b.concentration0, b.expand((2, 3)).entropy(),
                           D.kl_divergence(b, D.Beta(T([1.0, 2.0, 0.5]), T([0.5, 0.5, 3.0])))]
            + [d.mean, d.mode, d.variance, d.entropy(), d.log_prob(T(SIMPLEX)), d.expand((3, 2)).entropy(),
               D.kl_divergence(d, D.Dirichlet(T([[1.0, 1.0, 1.0], [0.5, 4.0, 2.0]])))]
            + [b_nums.log_prob(T(0.25)), b_nums.mean])


def student_t(D, T, func):
    d = D.StudentT(T([0.5, 1.5, 2.0, 5.0]), T([0.0, 1.0, -2.0, 0.5]), T([1.0, 2.0, 0.5, 3.0]))
    return [d.mean, d.mode, d.variance, d.entropy(), d.log_prob(T([[0.0, 1.0, 2.0, -3.0], [10.0, -1.0, 0.0, 0.5]])),
            D.StudentT(T(3.0)).log_prob(T([0.5, -2.0])), d.expand((2, 4)).entropy()]


def gamma_family_gradients(D, T, func):
    def objective(conc, rate, dir_conc, df):
        g, b = D.Gamma(conc, rate), D.Beta(conc[0], conc[1])
        d, t = D.Dirichlet(dir_conc), D.StudentT(df, conc[0], rate)
        total = (g.log_prob(T(POS[:1])).sum() + g.entropy().sum() + g.mean.sum() + g.mode.sum() + g.variance.sum()
                 + b.log_prob(T(P)).sum() + b.entropy().sum() + b.variance.sum() + d.log_prob(T(SIMPLEX)).sum()
                 + d.entropy().sum() + d.variance.sum() + t.log_prob(T(X)).sum() + t.entropy().sum()
                 + t.variance.sum() + D.Chi2(df).log_prob(T(POS[:1])).sum())
        return total + (D.kl_divergence(g, D.Gamma(rate, conc)).sum() + D.kl_divergence(D.Gamma(rate, conc), g).sum()
                        + D.kl_divergence(b, D.Beta(conc[1], conc[0])).sum()
                        + D.kl_divergence(d, D.Dirichlet(dir_conc.flip(-1))).sum())
    grads = list(func.grad(objective, argnums=(0, 1, 2, 3))(T(CONC), T(RATE), T(DIR), T([3.0, 4.5, 6.0])))
    # Gamma.cdf in its rate (no derivative in the concentration, in either library)
    grads.append(func.grad(lambda rate: D.Gamma(T(CONC), rate).cdf(T(POS)).sum())(T(RATE)))
    return grads


def _families(D, T):
    loc, scale, pos, unit = T([0.5, -1.0, 2.0]), T([1.0, 0.5, 2.0]), T([0.5, 2.0, 1.5]), T([0.5, 2.0, 0.75])
    return {"normal": D.Normal(loc, scale), "laplace": D.Laplace(loc, scale), "gumbel": D.Gumbel(loc, scale),
            "exponential": D.Exponential(pos), "gamma": D.Gamma(pos, unit), "beta": D.Beta(pos, unit),
            "uniform": D.Uniform(T([0.1, 0.0, 0.25]), T([0.9, 0.5, 3.0])),
            "uniform_pos": D.Uniform(T([0.1, 0.5, 0.25]), T([0.9, 0.75, 3.0])),
            "uniform_out": D.Uniform(T([-0.5, 0.0, 0.25]), T([0.9, 1.5, 0.5])),
            "bernoulli": D.Bernoulli(T([0.1, 0.5, 0.9])), "poisson": D.Poisson(pos),
            "binomial": D.Binomial(5, T([0.1, 0.5, 0.9]))}


CROSS_PAIRS = [("bernoulli", "poisson"), ("beta", "exponential"), ("beta", "gamma"), ("beta", "normal"),
               ("beta", "uniform"), ("beta", "uniform_out"), ("exponential", "beta"), ("exponential", "uniform"),
               ("exponential", "gamma"), ("exponential", "gumbel"), ("exponential", "normal"), ("gamma", "beta"),
               ("gamma", "uniform"), ("gamma", "exponential"), ("gamma", "gumbel"), ("gamma", "normal"),
               ("gumbel", "beta"), ("gumbel", "exponential"), ("gumbel", "gamma"), ("gumbel", "uniform"),
               ("gumbel", "normal"), ("laplace", "beta"), ("laplace", "exponential"), ("laplace", "gamma"),
               ("laplace", "uniform"), ("laplace", "normal"), ("normal", "beta"), ("normal", "exponential"),
               ("normal", "gamma"), ("normal", "uniform"), ("normal", "gumbel"), ("normal", "laplace"),
               ("poisson", "bernoulli"), ("poisson", "binomial"), ("uniform", "beta"), ("uniform_out", "beta"),
               ("uniform", "exponential"), ("uniform_pos", "exponential"), ("uniform", "gamma"),
               ("uniform_pos", "gamma"), ("uniform", "gumbel")]


def kl_cross_families(D, T, func):
    d = _families(D, T)
    return [D.kl_divergence(d[p], d[q]) for p, q in CROSS_PAIRS]


def kl_cross_families_gradients(D, T, func):
    def objective(loc, scale, pos):
        n, lp, g, e = D.Normal(loc, scale), D.Laplace(loc, scale), D.Gumbel(loc, scale), D.Exponential(pos)
        gm, b, u = D.Gamma(pos, scale), D.Beta(pos, scale), D.Uniform(T([0.1, 0.5, 0.25]), pos + 1)
        pairs = [(b, e), (b, gm), (b, n), (e, gm), (e, g), (e, n), (gm, e), (gm, g), (gm, n), (g, n), (lp, n),
                 (n, g), (n, lp), (u, e), (u, gm), (u, g), (D.Uniform(T([0.1, 0.0, 0.25]), pos / 4), b)]
        return sum(D.kl_divergence(p, q).sum() for p, q in pairs)
    return list(func.grad(objective, argnums=(0, 1, 2))(T([0.5, -1.0, 2.0]), T([1.0, 0.5, 2.0]), T([0.5, 2.0, 1.5])))


def forward_mode(D, T, func):
    """``func.jvp`` through log_prob/entropy/cdf/KL of several of the families at once."""
    def objective(loc, scale):
        n = D.MultivariateNormal(loc[:2], scale_tril=T([[1.0, 0.0], [0.5, 1.0]]) * scale[0])
        return (D.Laplace(loc, scale).log_prob(T(X)).sum() + D.Gumbel(loc, scale).cdf(T(X)).sum()
                + D.LogNormal(loc, scale).entropy().sum() + D.Gamma(scale, scale + 1).log_prob(T(POS[:1])).sum()
                + D.StudentT(scale + 2, loc, scale).log_prob(T(X)).sum() + n.log_prob(T(VEC)[..., :2]).sum()
                + D.kl_divergence(D.Exponential(scale), D.Normal(loc, scale)).sum()
                + D.Binomial(6, logits=loc).log_prob(T([1.0, 2.0, 3.0])).sum())
    return list(func.jvp(objective, (T(LOC), T(SCALE)), (T([1.0, -0.5, 0.25]), T([0.5, 1.0, -0.25]))))


def composed(D, T, func):
    """The added families inside Independent and MixtureSameFamily, and KL between Independents of two kinds."""
    lap = D.MixtureSameFamily(D.Categorical(logits=T([0.5, -1.0, 2.0])),
                              D.Independent(D.Laplace(T(X + [[1.0, 1.0, 1.0]]).mT, T(SCALE)), 1))
    gam = D.MixtureSameFamily(D.Categorical(probs=T([0.2, 0.3, 0.5])), D.Gamma(T(SCALE), T(RATE)))
    mvn = D.MixtureSameFamily(D.Categorical(logits=T([0.0, 1.0])),
                              D.MultivariateNormal(T(MU)[:, :2], scale_tril=T([[1.0, 0.0], [0.5, 2.0]])))
    ind = D.Independent(D.Gumbel(T(LOC), T(SCALE)), 1)
    return [lap.log_prob(T([[1.0, 0.0, 2.0], [0.5, 0.5, 0.5]])), lap.mean, lap.variance,
            gam.log_prob(T([0.5, 2.0])), gam.cdf(T([0.5, 2.0])), gam.mean, mvn.log_prob(T(VEC)[..., :2]),
            ind.log_prob(T(X)), ind.entropy(), D.kl_divergence(ind, D.Independent(D.Normal(T(LOC), T(RATE)), 1))]


CASES = [exponential, laplace, cauchy, gumbel, half_normal, half_cauchy, continuous_gradients, log_normal,
         transformed, transform_maps, transformed_gradients, one_hot_categorical, geometric, poisson, binomial,
         discrete_gradients, multivariate_normal, multivariate_normal_gradients,
         gamma_family, beta_dirichlet, student_t, gamma_family_gradients,
         kl_cross_families, kl_cross_families_gradients, forward_mode,
         composed]
