"""Distribution programs written once for both libraries: each case is ``f(D, T, func)`` with ``D`` the
distributions module, ``T(values)`` a tensor of the dtype under test and ``func`` the transforms module
(``torch.func`` / ``mg.func``); it returns a list of tensors. tests/data/make_torch_distributions.py records
torch's answers in float64 and float32; tests/test_distributions_torch_programs.py replays them with
minigrad_ckpt."""

LOW, HIGH = [0.0, -1.0, 0.5], [1.0, 3.0, 0.75]
X = [[0.0, 0.5, 0.75], [0.5, 3.0, 0.6]]  # the bounds themselves (low: inside; high: -inf) and inside


def uniform_moments(D, T, func):
    d = D.Uniform(T([LOW]), T([[1.0], [3.0]]))
    return [d.mean, d.mode, d.variance, d.stddev, d.entropy(), d.low, d.high]


def uniform_log_prob_cdf_icdf(D, T, func):
    d = D.Uniform(T(LOW), T(HIGH))
    return [d.log_prob(T(X)), d.cdf(T(X)), d.icdf(T([0.0, 0.3, 1.0])), d.expand((4, 3)).log_prob(T(0.6))]


def uniform_unchecked_values_outside(D, T, func):
    d = D.Uniform(T(LOW), T(HIGH), validate_args=False)
    return [d.log_prob(T([-2.0, 4.0, 0.8])), d.cdf(T([-2.0, 4.0, 0.8]))]


def _uniform_objective(D, T, low, high):
    d = D.Uniform(low, high)
    return (d.log_prob(T([0.5, 1.0, 0.6])).sum() + d.entropy().sum() + d.cdf(T([0.5, 1.5, 0.7])).sum()
            + d.icdf(T([0.5, 0.1, 0.2])).sum() + d.variance.sum() + d.stddev.sum() + d.mean.sum()
            + D.kl_divergence(d, D.Normal(high, low.exp())).sum()
            + D.kl_divergence(D.Uniform(low - 1, high + 1), d).sum())


def uniform_gradients(D, T, func):
    return list(func.grad(lambda lo, hi: _uniform_objective(D, T, lo, hi), argnums=(0, 1))(T(LOW), T(HIGH)))


def uniform_forward_mode(D, T, func):
    return list(func.jvp(lambda lo, hi: _uniform_objective(D, T, lo, hi), (T(LOW), T(HIGH)),
                         (T([1.0, 2.0, 3.0]), T([1.0, 0.0, -1.0]))))


def kl_uniform_uniform(D, T, func):
    p = D.Uniform(T([0.0, 0.5, -1.0, 0.0]), T([1.0, 2.0, 0.0, 1.0]))
    q = D.Uniform(T([-1.0, 0.0, 0.0, 0.0]), T([2.0, 2.0, 0.5, 1.0]))  # p inside q, inside, outside, equal
    return [D.kl_divergence(p, q), D.kl_divergence(q, p)]


def kl_uniform_normal(D, T, func):
    p = D.Uniform(T([0.0, 0.5, -10.0]), T([1.0, 2.0, 10.0]))
    return [D.kl_divergence(p, D.Normal(T([0.0, 3.0, 0.0]), T([1.0, 0.1, 5.0])))]


def independent_uniform(D, T, func):
    d = D.Independent(D.Uniform(T([LOW]), T([HIGH])), 1)
    return [d.log_prob(T([[0.5, 0.0, 0.6], [0.5, 0.0, 0.75]])), d.entropy(), d.mean, d.variance]


CASES = [uniform_moments, uniform_log_prob_cdf_icdf, uniform_unchecked_values_outside, uniform_gradients,
         uniform_forward_mode, kl_uniform_uniform, kl_uniform_normal, independent_uniform]


# A batch of 3 mixtures of 4 two-dimensional diagonal Gaussians (mixture density networks, GMM fitting)
WEIGHTS = [[0.5, -1.0, 0.25, 2.0], [0.0, 0.0, 0.0, 0.0], [3.0, -2.0, 1.0, -0.5]]
MEANS = [[[(i + j + k) % 5 - 2.0 + 0.25 * k for k in range(2)] for j in range(4)] for i in range(3)]
SCALES = [[[0.5 + 0.25 * ((i * 4 + j + k) % 4) for k in range(2)] for j in range(4)] for i in range(3)]
POINTS = [[[0.5, -1.0], [0.0, 0.0], [2.0, 1.5]], [[-3.0, 4.0], [1.0, -0.5], [0.25, 0.75]]]


def _gaussian_mixture(D, weights, means, scales):
    return D.MixtureSameFamily(D.Categorical(logits=weights), D.Independent(D.Normal(means, scales), 1))


def mixture_moments_and_log_prob(D, T, func):
    d = _gaussian_mixture(D, T(WEIGHTS), T(MEANS), T(SCALES))
    return [d.mean, d.variance, d.stddev, d.log_prob(T(POINTS)), d.log_prob(T(POINTS[0])),
            d.expand((2, 3)).log_prob(T(POINTS[1]))]


def mixture_of_scalars_and_shared_weights(D, T, func):
    # one set of weights for every batch element (the mixture's batch shape ()), Normal components, cdf
    d = D.MixtureSameFamily(D.Categorical(probs=T([0.1, 0.2, 0.3, 0.4])),
                            D.Normal(T([row[0] for row in MEANS[0]]), T([row[0] for row in SCALES[0]])))
    x = T([[-2.0], [0.0], [3.0]])
    return [d.mean, d.variance, d.log_prob(x), d.cdf(x)]


def mixture_of_uniforms_and_bernoullis(D, T, func):
    bounds = T([0.0, 1.0, 2.0, 3.0]), T([5.0] * 4)
    u = D.MixtureSameFamily(D.Categorical(logits=T(WEIGHTS[0])), D.Uniform(*bounds))
    # a value outside some components (0.5) is refused when checked: unchecked, those components weigh 0
    unchecked = D.MixtureSameFamily(D.Categorical(logits=T(WEIGHTS[0])), D.Uniform(*bounds, validate_args=False),
                                    validate_args=False)
    b = D.MixtureSameFamily(D.Categorical(logits=T(WEIGHTS[2])), D.Independent(D.Bernoulli(logits=T(MEANS[1])), 1))
    return [u.log_prob(T([4.0, 3.5, 4.9])), unchecked.log_prob(T([4.0, 0.5, 2.5, 5.0])), u.mean, u.variance,
            b.log_prob(T([[1.0, 0.0], [1.0, 1.0]])), b.mean]


def _mixture_objective(D, T, weights, means, scales):
    d = _gaussian_mixture(D, weights, means, scales)
    return d.log_prob(T(POINTS)).sum() + d.mean.sum() + d.variance.sum()


def mixture_gradients(D, T, func):
    return list(func.grad(lambda w, m, s: _mixture_objective(D, T, w, m, s), argnums=(0, 1, 2))(
        T(WEIGHTS), T(MEANS), T(SCALES)))


def mixture_forward_mode(D, T, func):
    primals = (T(WEIGHTS), T(MEANS), T(SCALES))
    return list(func.jvp(lambda w, m, s: _mixture_objective(D, T, w, m, s), primals, primals))


MIXTURE_CASES = [mixture_moments_and_log_prob, mixture_of_scalars_and_shared_weights,
                 mixture_of_uniforms_and_bernoullis, mixture_gradients, mixture_forward_mode]
