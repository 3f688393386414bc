"""``special.zeta``'s ``x`` and ``gammainc``/``gammaincc``'s ``a`` have no derivative, as in
PyTorch -- where a tensor that requires grad may still go in: the value, and the gradient in the
other argument (``autograd.grad(out, q)``), are had all the same, and only a gradient that must
reach the argument raises ``NotImplementedError`` ("the derivative for 'zeta' is not
implemented"), when it is asked for.  The engine refused such an argument in the forward call
(``ValueError: ... pass x.detach()``).  Under ``mg.grad`` an op is now told that a leaf which
is not a target needs no gradient, as PyTorch's ``autograd.grad`` tells it.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

S = mg.special


def _zeta(first, second):
    return S.zeta(first, second)


CASES = {  # name: (function, first argument (no derivative), second, d out / d second)
    "zeta": (_zeta, [2.5, 3.0], [1.0, 2.0], lambda x, q: -x * np.array([S.zeta(x[0] + 1, q[0]).item(),
                                                                             S.zeta(x[1] + 1, q[1]).item()])),
    "gammainc": (S.gammainc, [2.0, 0.5], [1.0, 3.0], None),
    "gammaincc": (S.gammaincc, [2.0, 0.5], [1.0, 3.0], None),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_value_and_the_other_gradient_are_had_while_the_first_argument_requires_grad(name, device):
    fn, first, second, _ = CASES[name]
    a = mg.tensor(first, dtype=mg.float64, device=device, requires_grad=True)
    b = mg.tensor(second, dtype=mg.float64, device=device, requires_grad=True)
    out = fn(a, b)
    assert out.requires_grad
    np.testing.assert_allclose(out.detach().numpy(), fn(a.detach(), b.detach()).numpy())
    (want,) = mg.autograd.grad(fn(a.detach(), b).sum(), b)
    (got,) = mg.autograd.grad(out.sum(), b)
    np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_gradient_that_must_reach_the_first_argument_is_not_implemented(name):
    fn, first, second, _ = CASES[name]
    a = mg.tensor(first, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(second, dtype=mg.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="not implemented"):
        fn(a, b).sum().backward()
    with pytest.raises(NotImplementedError, match="not implemented"):
        mg.autograd.grad(fn(a, b).sum(), a)
    with pytest.raises(NotImplementedError, match="not implemented"):
        mg.func.jvp(lambda t: fn(t, b.detach()), (a.detach(),), (mg.ones(2, dtype=mg.float64),))


def test_the_zeta_gradient_in_q_is_minus_x_zeta_of_x_plus_one():
    fn, first, second, want = CASES["zeta"]
    x = mg.tensor(first, dtype=mg.float64, requires_grad=True)
    q = mg.tensor(second, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(fn(x, q).sum(), q)
    np.testing.assert_allclose(g.numpy(), want(np.array(first), np.array(second)), rtol=1e-12)
