"""PyTorch's top-level functions this session added (the ``*_copy`` views, ATen's one-step cells and
losses, ``geqrf``/``orgqr``/``ormqr``, ``histogramdd``, ``empty_strided``, ``cond``) at their seams:
inside a checkpoint (bitwise the plain gradients), under the transforms, in float32 and float64, on
the CPU and the strict stand-in device. Each alone is compared with torch 2.13 beside them
(tests/test_view_copies.py, test_aten_losses_and_cells.py, test_householder_qr.py, test_histogramdd.py,
test_strided_creation.py, test_torch_namespace_functions.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

pytestmark = pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
DEVICES = ["cpu", "strict"]
DTYPES = [mg.float32, mg.float64]


def _bitwise_in_a_checkpoint(fn, x):
    plain = x.detach().clone().requires_grad_(True)
    fn(plain).backward()
    replayed = x.detach().clone().requires_grad_(True)
    mg.checkpoint.checkpoint(fn, replayed).backward()
    assert replayed.grad.dtype == x.dtype and replayed.grad.device == x.device
    np.testing.assert_array_equal(plain.grad.numpy(), replayed.grad.numpy())
    return plain.grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_view_copies_inside_a_checkpoint_and_under_vmap(device, dtype):
    a = mg.tensor(np.random.default_rng(1).standard_normal((4, 3)), dtype=dtype, device=device)

    def loss(x):
        return (mg.t_copy(x) ** 2).sum() + mg.diagonal_copy(x).sum() + 0.5 * mg.permute_copy(x, (1, 0)).sum()

    grad = _bitwise_in_a_checkpoint(loss, a)
    expected = 2 * a.numpy() + 0.5 + np.eye(4, 3, dtype=a.numpy().dtype)
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-6)
    rows = func.vmap(lambda r: mg.t_copy(r.reshape(1, 3)))(a)
    np.testing.assert_array_equal(rows.numpy(), a.numpy()[:, :, None])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_aten_cells_and_losses_inside_a_checkpoint_and_under_grad(device, dtype):
    rng = np.random.default_rng(2)

    def t(*shape, grad=False):
        return mg.tensor(rng.standard_normal(shape), dtype=dtype, device=device, requires_grad=grad)

    h, c, w_ih, w_hh = t(2, 4), t(2, 4), t(16, 3), t(16, 4)
    target = mg.tensor(rng.random(3), dtype=dtype, device=device)

    def loss(x):
        cells = mg.lstm_cell(x, (h, c), w_ih, w_hh)[0].sum() + mg.gru_cell(x, h, w_ih[:12], w_hh[:12]).sum()
        first = x[0]
        losses = (mg.binary_cross_entropy_with_logits(first, target, None, None, 1) + mg.kl_div(first, target, 2)
                  + mg.poisson_nll_loss(first, target, True, False, 1e-8, 1))
        return cells + losses

    x = t(2, 3)
    grad = _bitwise_in_a_checkpoint(loss, x)
    np.testing.assert_allclose(func.grad(loss)(x).numpy(), grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_qr_histogramdd_strided_creation_and_cond_on_each_device(device, dtype):
    rng = np.random.default_rng(3)
    m = mg.tensor(rng.standard_normal((5, 3)), dtype=dtype, device=device)
    qr, tau = mg.geqrf(m)
    q = mg.orgqr(qr, tau)
    assert q.device == m.device and q.dtype == dtype
    np.testing.assert_allclose(q.numpy().T @ q.numpy(), np.eye(3), atol=1e-5)
    np.testing.assert_allclose(mg.ormqr(qr, tau, m, transpose=True).numpy()[:3],
                               np.triu(qr.numpy()[:3]), atol=1e-5)  # Q^T m is R
    hist, edges = mg.histogramdd(mg.tensor(rng.standard_normal((20, 2)), dtype=dtype, device=device), bins=[3, 4])
    assert hist.device == m.device and hist.sum().item() == 20 and len(edges) == 2
    strided = mg.empty_strided((2, 3), (1, 2), dtype=dtype, device=device)
    assert strided.stride() == (1, 2) and strided.device == m.device
    ones = mg.ones(2, dtype=dtype, device=device)
    doubled = mg.cond(mg.tensor(True, device=device), lambda z: z * 2, lambda z: z * 3, (ones,))
    assert doubled.tolist() == [2.0, 2.0] and doubled.device == m.device
