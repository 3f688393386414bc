"""Statistics for checking draws against a distribution without comparing bits (the engine's generator
is not torch's): the Kolmogorov-Smirnov statistic."""

import numpy as np


def ks_statistic(sorted_draws, cdf):
    """The KS statistic of ``sorted_draws`` (ascending) whose CDF values are ``cdf``: the largest gap
    between the empirical CDF, on either side of each jump, and the distribution's. Its 1% point for
    ``n = 20000`` draws is 0.0115."""
    n = len(sorted_draws)
    return np.max(np.maximum(np.arange(1, n + 1) / n - cdf, cdf - np.arange(n) / n))


def assert_same_gradients_at_the_seams(mg, loss, params, seed):
    """``rsample``'s gradients of ``loss(*params)`` (fixed ``seed``) inside ``mg.checkpoint.checkpoint`` and
    under ``mg.func.grad`` equal to those of a plain backward (the same draws: the generator is reseeded)."""
    from minigrad_ckpt.checkpoint import checkpoint

    mg.manual_seed(seed)
    want = [w.numpy() for w in mg.autograd.grad(loss(*params), list(params))]
    mg.manual_seed(seed)
    inside = mg.autograd.grad(checkpoint(loss, *params, use_reentrant=False), list(params))
    mg.manual_seed(seed)
    transformed = mg.func.grad(loss, argnums=tuple(range(len(params))))(*(p.detach() for p in params))
    for got in (inside, transformed):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)
