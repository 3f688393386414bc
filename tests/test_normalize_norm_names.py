"""``F.normalize(x, p="fro")`` and ``p="nuc"``: PyTorch's ``normalize`` divides by ``input.norm(p, dim,
keepdim=True)``, so it takes the norm names ``Tensor.norm`` takes.  Before, the engine read ``p`` as a
float: ``ValueError: could not convert string to float: 'fro'`` (torch 2.13: the Frobenius norm over
``dim``, the 2-norm of each row for one dim)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_fro_over_one_dim_is_the_two_norm_and_over_two_the_frobenius_norm(device):
    from minigrad_ckpt.testing import strict  # noqa: F401

    x = mg.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)), device=device)
    assert np.array_equal(F.normalize(x, p="fro", dim=1).numpy(), F.normalize(x, p=2, dim=1).numpy())
    a = x.numpy()
    expected = a / np.sqrt((a * a).sum(axis=(1, 2), keepdims=True))
    np.testing.assert_allclose(F.normalize(x, p="fro", dim=(1, 2)).numpy(), expected, rtol=1e-14)


def test_nuc_divides_by_the_sum_of_singular_values():
    a = np.random.default_rng(1).standard_normal((2, 3, 4))
    got = F.normalize(mg.tensor(a), p="nuc", dim=(1, 2)).numpy()
    nuc = np.linalg.svd(a, compute_uv=False).sum(axis=-1)[:, None, None]
    np.testing.assert_allclose(got, a / nuc, rtol=1e-13)


def test_gradients_of_a_named_norm_pass_gradcheck():
    x = mg.tensor(np.random.default_rng(2).standard_normal((3, 4)), requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: F.normalize(t, p="fro", dim=(0, 1)), (x,))
    assert mg.autograd.gradcheck(lambda t: F.normalize(t, p="nuc", dim=(0, 1)), (x,))
