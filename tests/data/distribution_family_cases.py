"""Programs for Weibull, Pareto, Kumaraswamy (PyTorch's TransformedDistribution families), PowerTransform,
Pareto's KL pairs, the relaxed families (RelaxedBernoulli, RelaxedOneHotCategorical) and ContinuousBernoulli,
written once for both libraries as distribution_cases.py's: ``f(D, T, func)`` returns a list of tensors.
tests/data/make_torch_distribution_families.py records torch's answers;
tests/test_distributions_transformed_families.py replays them with minigrad_ckpt."""

SCALE, SHAPE = [1.0, 2.0, 0.5], [0.5, 2.5, 3.0]
POS = [[0.3, 1.2, 2.0], [2.5, 0.05, 0.7]]
ABOVE = [[1.3, 2.2, 2.0], [4.0, 2.0, 0.5]]  # each at or above Pareto's scale
UNIT = [[0.3, 0.2, 0.9], [0.75, 0.5, 0.01]]
P = [[0.1, 0.5, 0.9], [0.3, 0.75, 0.02]]


def _summary(d, T, x):
    return [d.mean, d.variance, d.stddev, d.entropy(), d.log_prob(T(x)), d.cdf(T(x)), d.icdf(T(P)),
            d.expand((4, 2, 3)).log_prob(T(x))]


def weibull(D, T, func):
    d = D.Weibull(T(SCALE), T(SHAPE))
    return _summary(d, T, POS) + [d.mode, D.Weibull(T(2.0), T(0.5), validate_args=False).log_prob(T([0.0, 1.0]))]


def pareto(D, T, func):
    d = D.Pareto(T(SCALE), T(SHAPE))
    return _summary(d, T, ABOVE) + [d.mode, D.Pareto(T(1.0), T([0.5, 1.0, 1.5, 2.0, 3.0])).mean,
                                 D.Pareto(T(1.0), T([0.5, 1.0, 1.5, 2.0, 3.0])).variance]


def kumaraswamy(D, T, func):
    d = D.Kumaraswamy(T(SCALE), T(SHAPE))
    return _summary(d, T, UNIT)


def power_transform(D, T, func):
    outs, x = [], T(POS)
    for t in (D.PowerTransform(T([2.0, 0.5, -1.5])), D.PowerTransform(T(3.0)), D.PowerTransform(T(-2.0)).inv):
        y = t(x)
        outs += [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.inv.log_abs_det_jacobian(y, x), t.sign * (x * 0 + 1)]
    return outs


def pareto_kl(D, T, func):
    p, q = D.Pareto(T(SCALE), T(SHAPE)), D.Pareto(T([0.5, 2.0, 1.0]), T([1.5, 2.5, 4.0]))
    kl = D.kl_divergence
    return [kl(p, q), kl(q, p), kl(p, D.Exponential(T([1.0, 2.0, 0.5]))), kl(p, D.Gamma(T([1.0, 2.0, 0.5]), T(2.0))),
            kl(p, D.Normal(T([1.0, 2.0, 0.5]), T(2.0))), kl(D.Uniform(T([1.0, 2.0, 0.4]), T([2.0, 3.0, 2.0])), p),
            kl(p, D.Uniform(T([1.0, 2.0, 0.5]), T(5.0))), kl(D.Normal(T(0.0), T([1.0, 2.0, 3.0])), p),
            kl(D.Exponential(T(SCALE)), p), kl(D.Gamma(T(SCALE), T(1.0)), p), kl(D.Beta(T(SCALE), T(1.0)), p),
            kl(p, D.Beta(T(SCALE), T(1.0))), kl(D.Laplace(T(0.0), T(SCALE)), p), kl(D.Gumbel(T(0.0), T(SCALE)), p)]


def family_gradients(D, T, func):
    outs = []
    for make, x in ((D.Weibull, POS), (D.Pareto, ABOVE), (D.Kumaraswamy, UNIT)):
        def objective(a, b, make=make, x=x):
            d = make(a, b)
            return (d.log_prob(T(x)).sum() + d.cdf(T(x)).sum() + d.icdf(T(P)).sum() + d.mean.sum()
                    + d.variance.sum() + d.entropy().sum())
        outs += list(func.grad(objective, argnums=(0, 1))(T(SCALE), T(SHAPE)))

    def kl_objective(scale, alpha):
        p, q = D.Pareto(scale, alpha), D.Pareto(T([0.5, 1.0, 0.25]), T([1.5, 2.5, 4.0]))
        return (D.kl_divergence(p, q).sum() + D.kl_divergence(p, D.Gamma(T([1.0, 2.0, 0.5]), T(2.0)))[1:].sum()
                + D.kl_divergence(p, D.Normal(T([1.0, 2.0, 0.5]), T(2.0)))[1:].sum()
                + D.kl_divergence(D.Uniform(T([1.0, 2.0, 0.6]), T([2.0, 3.0, 2.0])), p).sum())
    outs += list(func.grad(kl_objective, argnums=(0, 1))(T(SCALE), T(SHAPE)))
    return outs


RELAXED_Y = [[0.1, 0.6, 0.3], [0.25, 0.25, 0.5]]
LOGITS = [[0.5, -1.0, 2.0], [0.0, 0.0, 1.0]]


def relaxed(D, T, func):
    rb, rbl = D.RelaxedBernoulli(T(0.5), probs=T([0.2, 0.7, 0.9])), D.RelaxedBernoulli(T(2.0), logits=T(LOGITS))
    rc = D.RelaxedOneHotCategorical(T(0.6), logits=T(LOGITS))
    rcp = D.RelaxedOneHotCategorical(T(1.6), probs=T([0.2, 0.3, 0.5]))
    x = T([0.3, 0.5, 0.99])
    return [rb.log_prob(x), rb.expand((2, 3)).log_prob(x), rb.probs, rb.logits, rbl.log_prob(T(UNIT)), rbl.probs,
            rb.base_dist.log_prob(T([0.3, -2.0, 4.0])), rc.log_prob(T(RELAXED_Y)),
            rc.expand((4, 2)).log_prob(T(RELAXED_Y)), rcp.log_prob(T(RELAXED_Y)),
            rcp.base_dist.log_prob(T(RELAXED_Y).log()), rc.probs, rcp.logits]


def relaxed_gradients(D, T, func):
    def objective(temperature, logits):
        rb = D.RelaxedBernoulli(temperature, logits=logits)
        rc = D.RelaxedOneHotCategorical(temperature, logits=logits)
        return rb.log_prob(T(UNIT)).sum() + rc.log_prob(T(RELAXED_Y)).sum() + (rc.probs * T(UNIT)).sum()
    return list(func.grad(objective, argnums=(0, 1))(T(0.7), T(LOGITS)))


CB_PROBS = [0.1, 0.4995, 0.5, 0.7, 0.999]  # two inside the Taylor region around 1/2
CB_X = [[0.3, 0.5, 0.0, 0.99, 1.0], [0.75, 0.2, 0.5, 0.01, 0.6]]


def continuous_bernoulli(D, T, func):
    d, lg = D.ContinuousBernoulli(T(CB_PROBS)), D.ContinuousBernoulli(logits=T([-2.0, 0.0, 0.001, 1.5, 30.0]))
    kl, cb2 = D.kl_divergence, D.ContinuousBernoulli(T([0.3, 0.5, 0.9, 0.2, 0.6]))
    outs = []
    for c in (d, lg):
        outs += [c.mean, c.variance, c.stddev, c.entropy(), c.log_prob(T(CB_X)), c.cdf(T(CB_X)),
                 c.icdf(T(P[0] + P[1][:2])), c.probs, c.logits, c.expand((3, 5)).log_prob(T(CB_X[0]))]
    return outs + [kl(d, cb2), kl(cb2, lg), kl(D.Beta(T([0.5, 2.0, 1.0, 3.0, 1.5]), T(2.0)), d),
                   kl(D.Uniform(T([0.1, 0.0, 0.2, 0.5, 0.3]), T([0.9, 0.5, 1.0, 0.8, 0.4])), d),
                   kl(d, D.Exponential(T([1.0, 2.0, 0.5, 3.0, 1.0]))),
                   kl(d, D.Normal(T([0.5, 0.0, 1.0, 2.0, 0.3]), T(0.7))),
                   kl(d, D.Uniform(T([-1.0, 0.0, -0.5, 0.1, -2.0]), T([2.0, 1.5, 1.0, 3.0, 2.0]))),
                   kl(d, D.Pareto(T(1.0), T(2.0))), kl(D.Normal(T(0.0), T(CB_PROBS)), d),
                   kl(D.Gamma(T(CB_PROBS), T(1.0)), d)]


def continuous_bernoulli_gradients(D, T, func):
    def objective(probs, logits):
        d, lg = D.ContinuousBernoulli(probs), D.ContinuousBernoulli(logits=logits)
        total = 0
        for c in (d, lg):
            total = (total + c.mean.sum() + c.variance.sum() + c.entropy().sum() + c.log_prob(T(CB_X)).sum()
                     + c.cdf(T(CB_X[1])).sum() + c.icdf(T(P[0] + P[1][:2])).sum())
        return total + D.kl_divergence(d, lg).sum() + D.kl_divergence(d, D.Normal(T(0.5), T(0.7))).sum()
    return list(func.grad(objective, argnums=(0, 1))(T(CB_PROBS), T([-2.0, 0.0, 0.001, 1.5, 3.0])))


COUNTS = [[0.0, 0.0, 7.0], [3.0, 1.0, 0.0]]
MULTI_PROBS, MULTI_X = [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [[1.0, 2.0, 2.0], [0.0, 0.0, 5.0]]


def counts(D, T, func):
    nb = D.NegativeBinomial(T([2.0, 0.0, 5.5]), probs=T([0.3, 0.5, 0.9]))
    nl = D.NegativeBinomial(T(3.0), logits=T([[0.2, -1.0, 2.0]]))
    m, ml = D.Multinomial(5, probs=T(MULTI_PROBS)), D.Multinomial(4, logits=T([0.5, -1.0, 2.0, 0.0]))
    return [nb.mean, nb.mode, nb.variance, nb.log_prob(T(COUNTS)), nb.expand((2, 3)).log_prob(T(COUNTS)),
            nl.log_prob(T(COUNTS)), nl.mean, nl.variance, nl.probs, m.mean, m.variance, m.log_prob(T(MULTI_X)),
            m.expand((3, 2)).log_prob(T(MULTI_X)), ml.log_prob(T([1.0, 0.0, 3.0, 0.0])),
            D.Multinomial(3, logits=T([0.0, -float("inf")])).log_prob(T([3.0, 0.0]))]


def counts_gradients(D, T, func):
    def objective(total_count, logits, probs):
        nb = D.NegativeBinomial(total_count, logits=logits)
        m = D.Multinomial(5, probs=probs)
        return (nb.log_prob(T(COUNTS)).sum() + nb.mean.sum() + nb.variance.sum() + m.log_prob(T(MULTI_X)).sum()
                + m.variance.sum())
    return list(func.grad(objective, argnums=(0, 1, 2))(T([2.0, 1.5, 5.5]), T([0.2, -1.0, 2.0]), T(MULTI_PROBS)))


def multinomial_entropy(D, T, func):  # torch's is within 3e-8 of the exact sum (the engine's within 1e-15)
    return [D.Multinomial(5, probs=T(MULTI_PROBS)).entropy(),
            D.Multinomial(4, logits=T([0.5, -1.0, 2.0, 0.0])).entropy()]


def fisher_snedecor(D, T, func):
    d = D.FisherSnedecor(T([1.0, 3.0, 5.0, 10.0]), T([1.5, 2.5, 4.5, 20.0]))
    x = T([[0.3, 1.2, 2.0, 0.9], [2.5, 0.05, 0.7, 1.0]])

    def objective(df1, df2):
        f = D.FisherSnedecor(df1, df2)
        return f.log_prob(x).sum() + f.mode[1:].sum() + f.mean[1:].sum() + f.variance[2:].sum()
    return ([d.mean, d.mode, d.variance, d.log_prob(x), d.expand((3, 2, 4)).log_prob(x)]
            + list(func.grad(objective, argnums=(0, 1))(T([1.0, 3.0, 5.0, 10.0]), T([1.5, 2.5, 4.5, 20.0]))))


def event_transforms(D, T, func):
    x, outs = T(POS) * 2 - 1.5, []
    for t in (D.SoftplusTransform(), D.StickBreakingTransform(), D.IndependentTransform(D.SoftplusTransform(), 1),
              D.ReshapeTransform((3,), (3, 1))):
        y = t(x)
        outs += [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.inv.log_abs_det_jacobian(y, x)]
    for t in (D.AbsTransform(), D.SoftmaxTransform()):
        outs += [t(x), t.inv(t(x))]
    lc, m = D.LowerCholeskyTransform(), T([[[0.5, 2.0], [-1.0, 0.3]]])
    return outs + [lc(m), lc.inv(lc(m))]


def constraint_maps(D, T, func):
    x, outs, c = T(POS) * 2 - 1.5, [], D.constraints
    for con in (c.real, c.positive, c.greater_than(T(1.5)), c.less_than(2.0), c.interval(-1.0, 3.0), c.unit_interval,
                c.simplex, c.real_vector, c.independent(c.positive, 1), c.half_open_interval(0.0, 2.0), c.nonnegative,
                c.greater_than_eq(1.0)):
        for registry in (D.biject_to, D.transform_to):
            t = registry(con)
            y = t(x)
            outs += [y, t.inv(y)] + ([t.log_abs_det_jacobian(x, y)] if t.bijective else [])
    return outs


def logistic_normal(D, T, func):
    d = D.LogisticNormal(T([0.3, -1.0, 0.5]), T([1.0, 0.5, 2.0]))
    y = T([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])

    def objective(loc, scale):
        pair = T([[0.3, 0.7], [0.9, 0.1]])
        return D.LogisticNormal(loc, scale).log_prob(y).sum() + D.LogisticNormal(loc[0], scale[0]).log_prob(pair).sum()
    return ([d.log_prob(y), d.expand((3, 2)).log_prob(y), D.LogisticNormal(T(0.3), T(1.0)).log_prob(T([0.3, 0.7]))]
            + list(func.grad(objective, argnums=(0, 1))(T([0.3, -1.0, 0.5]), T([1.0, 0.5, 2.0]))))


def von_mises_and_inverse_gamma(D, T, func):
    vm = D.VonMises(T([0.3, -1.0, 2.5, 0.0]), T([0.5, 3.0, 5.0, 40.0]))
    x = T([[0.1, 2.0, -3.0, 0.05], [3.1, -1.0, 2.0, 0.0]])
    ig = D.InverseGamma(T([0.5, 1.5, 3.0]), T([1.0, 2.0, 0.5]))
    y = T([[0.3, 1.2, 4.0], [2.0, 0.1, 0.5]])

    def objective(loc, concentration, rate):
        v, i = D.VonMises(loc, concentration), D.InverseGamma(concentration[:3], rate)
        return (v.log_prob(x).sum() + v.variance.sum() + i.log_prob(y).sum() + i.entropy().sum()
                + i.mode.sum() + i.variance[2:].sum())
    return ([vm.log_prob(x), vm.variance, vm.mean, vm.mode, vm.expand((2, 4)).log_prob(x), ig.log_prob(y), ig.mean,
             ig.mode, ig.variance, ig.entropy(), ig.cdf(y), ig.expand((2, 3)).log_prob(y)]
            + list(func.grad(objective, argnums=(0, 1, 2))(T([0.3, -1.0, 2.5, 0.0]), T([0.5, 3.0, 5.0, 40.0]),
                                                            T([1.0, 2.0, 0.5]))))


LR_LOC, LR_W = [[0.5, -1.0, 0.3, 2.0], [0.0, 0.1, -0.2, 1.0]], [[[1.0, 0.5], [-0.3, 0.8], [0.2, -1.0], [0.7, 0.1]]] * 2
LR_D, LR_X = [0.5, 1.5, 0.8, 2.0], [[0.1, -0.5, 1.0, 2.5], [1.0, 0.0, -1.0, 0.3]]
COV = [[2.0, 0.3, 0.1, 0.0], [0.3, 1.5, -0.2, 0.1], [0.1, -0.2, 1.0, 0.2], [0.0, 0.1, 0.2, 0.8]]


def low_rank_normal(D, T, func):
    d = D.LowRankMultivariateNormal(T(LR_LOC), T(LR_W), T(LR_D))
    q = D.LowRankMultivariateNormal(T(LR_LOC[1]), T(LR_W[0]) * 0.5, T(LR_D[::-1]))
    m = D.MultivariateNormal(T(LR_LOC[0]), covariance_matrix=T(COV))
    kl = D.kl_divergence

    def objective(loc, w, diag):
        p = D.LowRankMultivariateNormal(loc, w, diag)
        return (p.log_prob(T(LR_X)).sum() + p.entropy().sum() + p.precision_matrix.sum() + p.scale_tril.sum()
                + kl(p, q).sum() + kl(q, p).sum() + kl(m, p).sum() + kl(p, m).sum())
    return ([d.log_prob(T(LR_X)), d.entropy(), d.variance, d.scale_tril, d.covariance_matrix, d.precision_matrix,
             d.expand((3, 2)).log_prob(T(LR_X)), kl(d, q), kl(q, d), kl(m, d), kl(d, m)]
            + list(func.grad(objective, argnums=(0, 1, 2))(T(LR_LOC), T(LR_W), T(LR_D))))


def cat_and_stack(D, T, func):
    x, outs, c = T([[0.3, -1.2, 2.0, 0.5], [2.5, 0.05, -0.7, 1.0]]), [], D.constraints
    for t in (D.CatTransform([D.ExpTransform(), D.SigmoidTransform(), D.AffineTransform(1.0, 2.0)], dim=1,
                             lengths=[1, 2, 1]),
              D.CatTransform([D.ExpTransform(), D.SigmoidTransform()], dim=0),
              D.StackTransform([D.ExpTransform(), D.SoftplusTransform()], dim=0),
              D.StackTransform([D.ExpTransform(), D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform()], dim=1)):
        y = t(x)
        outs += [y, t.inv(y), t.log_abs_det_jacobian(x, y)]
    for con in (c.cat([c.positive, c.real], 1, [1, 3]), c.stack([c.positive, c.unit_interval], 0)):
        for registry in (D.biject_to, D.transform_to):
            y = registry(con)(x)
            outs += [y, registry(con).inv(y)]
    return outs


def generalized_pareto(D, T, func):
    """In float32 for both runs: torch 2.13's GeneralizedPareto raises in float64 (its isclose compares with a
    float32 zero: "Double did not match Float"); the engine's works in both
    (tests/test_distributions_generalized_pareto.py)."""
    def F(values):  # noqa: N802
        return T(values).float()
    d = D.GeneralizedPareto(F([0.0, 1.0, -1.0, 0.5]), F([1.0, 2.0, 0.5, 1.5]), F([0.0, 0.3, -0.4, 1e-9]))
    x = F([[0.5, 2.0, -0.5, 3.0], [0.1, 1.5, -0.9, 0.6]])

    def objective(loc, scale, concentration):
        g = D.GeneralizedPareto(loc, scale, concentration)
        return (g.log_prob(x).sum() + g.cdf(x).sum() + g.icdf(F([0.1, 0.5, 0.9, 0.99])).sum() + g.entropy().sum()
                + g.mean.sum() + g.variance[:3].sum())
    return ([d.log_prob(x), d.cdf(x), d.icdf(F([0.1, 0.5, 0.9, 0.99])), d.mean, d.variance, d.entropy(), d.mode,
             d.log_survival_function(x), d.expand((2, 4)).log_prob(x)]
            + list(func.grad(objective, argnums=(0, 1, 2))(F([0.0, 1.0, -1.0, 0.5]), F([1.0, 2.0, 0.5, 1.5]),
                                                            F([0.1, 0.3, -0.4, 0.2]))))


def matrix_and_cdf_transforms(D, T, func):
    m = T([[[0.5, 2.0, 0.1], [-1.0, 0.3, 0.2], [0.4, -0.6, 1.0]]])
    pd, cd = D.PositiveDefiniteTransform(), D.CumulativeDistributionTransform(D.Normal(T(0.5), T(2.0)))
    x = T([0.1, -1.0, 3.0])
    return [pd(m), pd.inv(pd(m)), D.transform_to(D.constraints.positive_definite)(m), cd(x), cd.inv(cd(x)),
            cd.log_abs_det_jacobian(x, cd(x))]


def lkj_and_corr_cholesky(D, T, func):
    x = T([[0.3, -1.2, 2.0, 0.5, 0.1, -0.4], [2.5, 0.05, -0.7, 1.0, -2.0, 0.3]])
    t = D.CorrCholeskyTransform()
    y = t(x)
    d = D.LKJCholesky(4, T([0.5, 2.0]))

    def objective(x, concentration):
        return D.LKJCholesky(4, concentration).log_prob(D.CorrCholeskyTransform()(x)).sum()
    return ([y, t.inv(y), t.log_abs_det_jacobian(x, y), D.biject_to(D.constraints.corr_cholesky)(x[:, :3]),
             d.log_prob(y), d.expand((3, 2)).log_prob(y), D.LKJCholesky(4, T(1.5)).log_prob(y)]
            + list(func.grad(objective, argnums=(0, 1))(x, T([0.5, 2.0]))))


CASES = [weibull, pareto, kumaraswamy, power_transform, pareto_kl, family_gradients, relaxed, relaxed_gradients,
         continuous_bernoulli, continuous_bernoulli_gradients, counts, counts_gradients, multinomial_entropy,
         fisher_snedecor, event_transforms, constraint_maps, logistic_normal,
         von_mises_and_inverse_gamma, low_rank_normal, cat_and_stack,
         generalized_pareto, matrix_and_cdf_transforms, lkj_and_corr_cholesky]
