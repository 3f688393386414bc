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


CASES = [exponential, laplace, cauchy, gumbel, half_normal, half_cauchy, continuous_gradients]
