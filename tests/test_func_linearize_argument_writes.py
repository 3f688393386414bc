"""``mg.func.linearize`` of a function that writes into its own arguments in place.

``torch.func.linearize`` is forward mode, so its function may write into an argument
(``x.mul_(2)``, ``x[0] = ...``): the caller's tensor changes as in a plain call.  Here
``linearize`` records the function and differentiates its backward pass, and the arguments were
the leaves of that pass -- a leaf that requires grad refuses an in-place write, so
``linearize(lambda x: (x.mul_(2) * x).sum(), x)`` raised "a leaf Variable that requires grad is
being used in an in-place operation" where torch 2.13 answers.  (torch's own jvp_fn runs the
function again, so its tangent and the argument are those of the doubled x; the reference here is
central differences of one call.)
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


def _scale(x):
    x.mul_(2)
    return (x * x).sum()


def _shift_after_use(x):
    y = x.exp()
    x.add_(1)
    return y * x


def _write_a_view(x):
    x[0].mul_(3)
    return x * x.sum()


def _set_items(x):
    x[1:] = x[:-1] * 2
    return (x ** 3).sum()


FUNCTIONS = [_scale, _shift_after_use, _write_a_view, _set_items]
X0 = np.array([-0.8, -0.65, 0.5, 0.35])
T0 = np.array([0.9, -1.05, 1.2, 0.3])


def _one_call(f, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(f's output, the argument after the call)`` in float64, without a transform."""
    a = mg.tensor(x, dtype=mg.float64)
    return np.asarray(f(a).numpy(), dtype=np.float64), a.numpy()


def _central_jvp(f, x: np.ndarray, t: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return (_one_call(f, x + eps * t)[0] - _one_call(f, x - eps * t)[0]) / (2 * eps)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_linearize_takes_a_write_into_its_argument(f, dtype, device):
    x = mg.tensor(X0, dtype=dtype, device=device)
    out, jvp_fn = mg.func.linearize(f, x)
    want_out, want_x = _one_call(f, X0)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == mg.float32 else dict(rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out.numpy(), want_out, **tol)
    np.testing.assert_allclose(x.numpy(), want_x, **tol)  # written once, as by one call
    for t in (T0, -2 * T0 + 1):
        tangent = jvp_fn(mg.tensor(t, dtype=dtype, device=device))
        assert tangent.dtype == dtype and tangent.shape == out.shape
        np.testing.assert_allclose(tangent.numpy(), _central_jvp(f, X0, t), **tol)


def test_the_tangent_agrees_with_jvp():
    x1, x2, t = (mg.tensor(X0, dtype=mg.float64) for _ in range(3))
    _, jvp_fn = mg.func.linearize(_shift_after_use, x1)
    _, want = mg.func.jvp(_shift_after_use, (x2,), (t,))
    np.testing.assert_allclose(jvp_fn(t).numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(x1.numpy(), x2.numpy())


def test_linearize_of_a_write_inside_grad_and_checkpoint():
    """The write is recorded on the tape: an outer grad and a checkpointed function see it."""
    def inner(x):
        return mg.checkpoint.checkpoint(_scale, x, use_reentrant=False)

    def outer(x):
        return mg.func.linearize(inner, x.clone())[1](mg.ones_like(x))  # 8 * sum(x)

    g = mg.func.grad(outer)(mg.tensor(X0, dtype=mg.float64))
    np.testing.assert_allclose(g.numpy(), np.full(4, 8.0), rtol=1e-12)
