"""Distribution programs written once for both libraries: each case is ``f(D, T, func)`` with ``D`` the
distributions module, ``T(values)`` a tensor of the dtype under test and ``func`` the transforms module
(``torch.func`` / ``mg.func``); it returns a list of tensors. tests/data/make_torch_distributions.py records
torch's answers in float64 and float32; tests/test_distributions_uniform.py replays them with minigrad_ckpt."""

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
