"""LBFGS's strong-Wolfe search decides in the parameters' dtype, as PyTorch's does.

PyTorch keeps the search's directional derivatives (``g.dot(d)``), ``max|d|`` and the first trial step
as 0-d tensors of the parameters' dtype, so with float32 parameters its sufficient-decrease test
``f_new > f + c1 * t * gtd``, its curvature test and its cubic interpolation are float32 arithmetic (the
Python loss beside them taken in float32).  The engine read them as Python floats and decided in float64:
a float32 run took other steps than PyTorch's near a minimum (21 evaluations where torch 2.13 takes 12 in a
6-parameter quartic) and kept ``state["t"]`` as a float where PyTorch keeps a float32 tensor.  The
numbers below are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg


def _designed_step(dtype):
    """One LBFGS iteration on a loss a hair (1e-8) above the Armijo line at the first trial step: above
    it in float64, on it in float32.  The closure sets the gradient itself (-1 at 0, -0.5 elsewhere)."""
    p = mg.tensor(np.zeros(1, dtype), requires_grad=True)
    opt = mg.optim.LBFGS([p], lr=1, max_iter=1, max_eval=10, line_search_fn="strong_wolfe")
    seen = []

    def closure():
        x = float(p.detach().numpy()[0])
        seen.append(x)
        p.grad = mg.tensor(np.array([-1.0 if x == 0 else -0.5], dtype))
        return mg.tensor(1.0 - 1e-4 * x + 1e-8 * x * x, dtype=mg.float64)

    opt.step(closure)
    return p, opt, seen


def test_float32_search_accepts_the_step_float32_arithmetic_accepts():
    p, opt, seen = _designed_step(np.float32)
    # torch 2.13: [0.0, 1.0] -- the trial step meets both conditions in float32 and is taken
    assert seen == [0.0, 1.0]
    assert p.detach().numpy().tolist() == [1.0]
    assert opt.state[p]["func_evals"] == 2


def test_float64_search_still_decides_in_float64():
    p, opt, seen = _designed_step(np.float64)
    # torch 2.13 in float64: the trial step fails the sufficient decrease; the bracket [0, 1] is zoomed until
    # the evaluations run out, and the step ends where it began (t = 1)
    want = [0.0, 1.0, 0.26162699526573163, 0.41770620850704676, 0.5407929896882735, 0.637861365533517,
            0.714411174651981, 0.7747796853280888, 0.8223873427066564, 0.8599315692824634, 0.8895395993278434]
    np.testing.assert_allclose(seen, want, rtol=1e-14, atol=0)
    assert p.detach().numpy().tolist() == [1.0]
    assert opt.state[p]["func_evals"] == 11


@pytest.mark.parametrize("dtype, want", [(np.float32, 0.0071428571827709675), (np.float64, 0.007142857142857143)])
def test_first_trial_step_is_kept_as_a_tensor_of_the_parameters_dtype(dtype, want):
    p = mg.tensor(np.array([3.0, -2.0], dtype), requires_grad=True)
    opt = mg.optim.LBFGS([p], lr=1, max_iter=1, max_eval=10, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (p ** 4).sum()
        loss.backward()
        return loss

    opt.step(closure)
    t = opt.state_dict()["state"][0]["t"]
    # torch 2.13: a 0-d tensor of the parameters' dtype, 1 / |g|_1 (2 evaluations)
    assert isinstance(t, mg.Tensor) and t.dtype == p.dtype and t.ndim == 0
    assert float(t) == want
    assert opt.state[p]["func_evals"] == 2
