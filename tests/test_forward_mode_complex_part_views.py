"""Forward mode carries tangents through in-place writes into a complex tensor's real views --
``z.real``, ``z.imag``, ``view_as_real(z)``, and a complex view of a real tensor
(``view_as_complex``) -- as torch 2.13's forward AD does: each such write was refused ("this
in-place write cannot carry its forward-mode tangent: the tensor shares its memory ..."),
because the view's items are half the size of the base's.  The mapping of written elements to
the tensors that share them now works on real parts.  References: the same functions written
out of place (whose jvps the engine already gave), and central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

RNG = np.random.default_rng(3)
Z = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
R = RNG.standard_normal((2, 3))


def real_times_two(z, r):
    b = z * 1
    b.real.mul_(2)
    return b


def imag_zeroed(z, r):
    b = z * 1
    b.imag.zero_()
    return b


def imag_plus_three_via_view_as_real(z, r):
    b = z * 1
    mg.view_as_real(b)[..., 1].add_(3)
    return b


def real_copied(z, r):
    b = z * 1
    b.real.copy_(r * r)
    return b


def imag_set_by_index(z, r):
    b = z * 1
    b.imag[0] = r[1]
    return b


def real_view_of_complex_written(z, r):
    b = r * 1  # a real tensor written through its complex view
    c = mg.view_as_complex(mg.reshape(b, (3, 2)))
    c.mul_(1j)
    return b


WRITES = {
    "real_times_two": (real_times_two, lambda z, r: mg.complex(2 * z.real, z.imag)),
    "imag_zeroed": (imag_zeroed, lambda z, r: mg.complex(z.real, 0 * z.imag)),
    "imag_plus_three": (imag_plus_three_via_view_as_real, lambda z, r: z + 3j),
    "real_copied": (real_copied, lambda z, r: mg.complex(r * r, z.imag)),
    "imag_set_by_index": (imag_set_by_index,
                          lambda z, r: mg.complex(z.real, mg.stack([r[1], z.imag[1]]))),
    "complex_view_of_real": (real_view_of_complex_written,
                             lambda z, r: mg.reshape(mg.stack([-r.reshape(3, 2)[:, 1], r.reshape(3, 2)[:, 0]], -1),
                                                     (2, 3))),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_write_through_a_complex_part_view_carries_its_tangent(name):
    in_place, out_of_place = WRITES[name]
    dz = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    dr = RNG.standard_normal((2, 3))
    primals, tangents = (mg.tensor(Z), mg.tensor(R)), (mg.tensor(dz), mg.tensor(dr))
    value, tangent = mg.func.jvp(in_place, primals, tangents)
    want_value, want_tangent = mg.func.jvp(out_of_place, primals, tangents)
    np.testing.assert_allclose(value.numpy(), want_value.numpy(), atol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), want_tangent.numpy(), atol=1e-12)
    h = 1e-6
    ahead = in_place(mg.tensor(Z + h * dz), mg.tensor(R + h * dr)).numpy()
    behind = in_place(mg.tensor(Z - h * dz), mg.tensor(R - h * dr)).numpy()
    np.testing.assert_allclose(tangent.numpy(), (ahead - behind) / (2 * h), atol=1e-6)


def test_the_base_and_its_other_views_follow_the_write():
    def f(z):
        b = z * 1
        re, im = b.real, b.imag
        re.mul_(3)
        return b, im * 1, re * 1

    dz = mg.tensor(RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3)))
    _, (db, dim, dre) = mg.func.jvp(f, (mg.tensor(Z),), (dz,))
    np.testing.assert_allclose(db.numpy(), 3 * dz.numpy().real + 1j * dz.numpy().imag)
    np.testing.assert_allclose(dim.numpy(), dz.numpy().imag)
    np.testing.assert_allclose(dre.numpy(), 3 * dz.numpy().real)
