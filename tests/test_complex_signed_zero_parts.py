"""``mg.complex(re, im)`` keeps each part as it is, signed zeros included, as PyTorch's: it was
built as ``re + im * 1j``, whose arithmetic drops the sign of a zero part (``-0.0 + 0.0``), so
``complex(-4, -0.0)`` was ``-4 + 0i`` and every function with a branch cut on the negative real
axis answered from the wrong side (``sqrt`` gave ``2i``, ``angle`` and ``log``'s imaginary part
``pi``).  ``polar`` and ``view_as_complex`` of non-contiguous pairs are built the same way.

Expected values are torch 2.13's (CPU, float32 and float64 alike), written in; each comment
names the torch expression, with ``re = [-0., -4., -1., -0., 1.]`` and
``im = [-0., -0., -0., 1., inf]``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

INF, PI = math.inf, math.pi
RE, IM = [-0.0, -4.0, -1.0, -0.0, 1.0], [-0.0, -0.0, -0.0, 1.0, INF]


def _same(t, expected):
    got, want = np.asarray(t.cpu().numpy(), dtype=np.float64), np.asarray(expected, dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_the_parts_keep_their_signs(dtype, device):
    z = mg.complex(mg.tensor(RE, dtype=dtype, device=device), mg.tensor(IM, dtype=dtype, device=device))
    _same(mg.view_as_real(z), np.stack([RE, IM], axis=-1))  # torch.view_as_real(torch.complex(re, im))
    # torch.view_as_real(torch.sqrt(z))
    _same(mg.view_as_real(mg.sqrt(z)), [[0.0, -0.0], [0.0, -2.0], [0.0, -1.0], [math.sqrt(0.5)] * 2, [INF, INF]])
    _same(mg.angle(z), [-PI, -PI, -PI, PI / 2, PI / 2])  # torch.angle(z)
    # torch.view_as_real(torch.log(z))
    _same(mg.view_as_real(mg.log(z)), [[-INF, -PI], [math.log(4.0), -PI], [0.0, -PI], [0.0, PI / 2], [INF, PI / 2]])


def test_polar_and_view_as_complex_keep_the_signs():
    # torch.view_as_real(torch.polar(tensor([1., 2.]), tensor([-0., 0.]))) is [[1, -0], [2, 0]]
    _same(mg.view_as_real(mg.polar(mg.tensor([1.0, 2.0]), mg.tensor([-0.0, 0.0]))), [[1.0, -0.0], [2.0, 0.0]])
    # pairs whose parts are not adjacent in memory (torch refuses them; the engine copies): (-0, -0), (-1, -0)
    pairs = mg.tensor([[-0.0, -1.0], [-0.0, -0.0]]).t()
    _same(mg.view_as_real(mg.view_as_complex(pairs)), [[-0.0, -0.0], [-1.0, -0.0]])


def test_the_gradient_of_each_part_is_unchanged():
    re, im = mg.tensor([-0.0, 2.0], requires_grad=True), mg.tensor([-0.0, 3.0], requires_grad=True)
    mg.view_as_real(mg.complex(re, im)).sum().backward()
    assert re.grad.tolist() == [1.0, 1.0] and im.grad.tolist() == [1.0, 1.0]
    _, t = mg.func.jvp(lambda a, b: mg.view_as_real(mg.complex(a, b)), (re.detach(), im.detach()),
                       (mg.ones(2), mg.full((2,), 2.0)))
    assert t.tolist() == [[1.0, 2.0], [1.0, 2.0]]
