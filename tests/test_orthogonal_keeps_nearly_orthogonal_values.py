"""``parametrizations.orthogonal`` keeps an assigned matrix that is orthogonal to PyTorch's tolerance.

Assigning ``module.weight = Q`` stores ``Q`` itself when ``Q^H Q`` is the identity to
``torch.allclose``'s tolerance (``atol = 10 n eps`` *and* its default ``rtol = 1e-5``), and otherwise the
``Q`` of its QR.  The engine compared with the ``atol`` alone, so a rotation scaled by ``1 + 3e-6`` (a
float32 weight after a few optimizer steps is like that) was replaced by its QR's ``Q``, 3e-6 away
from what torch 2.13 stores (``weight`` equals the assigned matrix there, exactly).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils import parametrizations


def _nearly_orthogonal(n: int, dtype: str) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((n, n)))
    return (q * (1 + 3e-6)).astype(dtype)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("n", [1, 4])
def test_a_matrix_orthogonal_to_allclose_tolerance_is_stored_as_given(n, orthogonal_map, dtype, device):
    layer = parametrizations.orthogonal(nn.Linear(n, n, dtype=dtype, device=device), orthogonal_map=orthogonal_map)
    q = _nearly_orthogonal(n, dtype)
    layer.weight = mg.tensor(q, device=device)
    np.testing.assert_array_equal(layer.weight.numpy(), q)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_matrix_further_from_orthogonal_is_still_orthogonalized(dtype):
    layer = parametrizations.orthogonal(nn.Linear(3, 3, dtype=dtype))
    q = _nearly_orthogonal(3, dtype) * np.asarray(1.001, dtype)
    layer.weight = mg.tensor(q)
    w = layer.weight.numpy()
    np.testing.assert_allclose(w.T @ w, np.eye(3), atol=1e-5)
    assert np.abs(w - q).max() > 1e-4


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5)])
def test_every_map_runs_on_another_device(shape, orthogonal_map):
    # the Cayley map's identity and a tall matrix's zero padding were made on the CPU:
    # "Sub: expected all tensors on the same device, found cpu and strict:0"
    layer = nn.Linear(shape[1], shape[0], device="strict")
    parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)
    off_diagonal = (0.1 * (1 - np.eye(*shape))).astype(np.float32)  # householder reads the diagonal's signs
    with mg.no_grad():
        layer.parametrizations.weight.original.add_(mg.tensor(off_diagonal, device="strict"))
    w = layer.weight
    assert w.device == layer.parametrizations.weight.original.device
    w = w.numpy()
    gram = w @ w.T if shape[0] < shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-5)
