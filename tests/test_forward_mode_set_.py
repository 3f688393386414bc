"""``t.set_(source)`` under forward mode: ``t`` holds ``source``'s array from then on, so it has
``source``'s tangent, and a later write through either reaches the other's tangent, as a write
through a view reaches its base's.

Two silent errors found by a red team of forward mode with in-place writes (PyTorch 2.13 refuses
``set_`` under forward AD, so the expected values are the central differences of each program,
worked out by hand below):

* a source of another shape left ``t`` without a tangent (``{}``, kept for a same-shape source only);
* ``t`` did not join the source's version box, where forward mode finds the tensors a write
  reaches, so ``t.mul_(x)`` changed the source's values and left its tangent as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

X = np.array([0.3, -1.2, 0.5, 1.1, 0.7, 0.9])
V = np.array([1.0, 0.5, -0.25, 2.0, -1.0, 0.3])


def _set_of_another_shape(a):
    b = a * 1
    b.set_(a[:4].reshape(2, 2) * 3)
    return b * 1  # 3 x[:4]: tangent 3 v[:4]


def _write_through_the_target(a):
    b = mg.zeros(6, dtype=a.dtype, device=a.device)
    c = a * 2
    b.set_(c)
    b.mul_(a)  # c holds 2 x^2 now: tangent 4 x v
    return c * 1


def _write_through_the_source(a):
    b = mg.zeros(6, dtype=a.dtype, device=a.device)
    c = a * 2
    b.set_(c)
    c[1:3].mul_(a[1:3])  # b[1:3] holds 2 x^2 now
    return b * 1


def _argument_written_through_an_alias(a):
    b = mg.zeros(6, dtype=a.dtype, device=a.device)
    b.set_(a)
    b.mul_(2)  # the argument holds 2 x now
    return a * 1


CASES = {
    "another shape": (_set_of_another_shape, 3 * V[:4].reshape(2, 2)),
    "write through the target": (_write_through_the_target, 4 * X * V),
    "write through the source": (_write_through_the_source, np.where([0, 1, 1, 0, 0, 0], 4 * X * V, 2 * V)),
    "argument written through an alias": (_argument_written_through_an_alias, 2 * V),
}


def _jvp(f, x, v):
    return mg.func.jvp(f, (x,), (v,))[1]


def _dual_level(f, x, v):
    with fwAD.dual_level():
        return fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent


def _jacfwd(f, x, v):
    return mg.func.jacfwd(f)(x) @ v


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)], ids=str)
@pytest.mark.parametrize("transform", [_jvp, _dual_level, _jacfwd], ids=lambda t: t.__name__)
@pytest.mark.parametrize("case", sorted(CASES))
def test_set_carries_the_tangent_and_shares_it_afterwards(case, transform, device, dtype):
    f, want = CASES[case]
    x, v = (mg.tensor(a, dtype=dtype, device=device) for a in (X, V))
    got = transform(f, x, v)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_central_differences_agree_with_the_expected_tangents(case):
    f, want = CASES[case]

    def value(a):
        with mg.no_grad():
            return f(mg.tensor(a)).numpy()
    central = (value(X + 1e-6 * V) - value(X - 1e-6 * V)) / 2e-6
    np.testing.assert_allclose(central, want, rtol=1e-6, atol=1e-6)
