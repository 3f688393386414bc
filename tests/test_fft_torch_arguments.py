"""PyTorch's arguments of ``mg.fft``'s functions, as torch 2.13 takes them.

``fftfreq``/``rfftfreq`` take ``requires_grad=`` (a leaf, as PyTorch's factory functions make
it); it was a TypeError.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, n, want", [("fftfreq", 5, [0.0, 0.2, 0.4, -0.4, -0.2]),
                                           ("rfftfreq", 6, [0.0, 1 / 3, 2 / 3, 1.0])])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_the_frequencies_can_be_a_leaf_that_requires_grad(name, n, want, dtype, device):
    d = 0.5 if name == "rfftfreq" else 1.0
    f = getattr(mg.fft, name)(n, d, dtype=dtype, device=device, requires_grad=True)
    assert f.requires_grad and f.is_leaf and f.grad_fn is None and f.dtype == dtype
    (f * f).sum().backward()
    np.testing.assert_allclose(f.detach().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(f.grad.numpy(), 2 * np.array(want), rtol=1e-6)
    assert not getattr(mg.fft, name)(n, d).requires_grad
