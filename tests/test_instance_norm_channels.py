"""``nn.InstanceNorm*d`` with a channel count other than ``num_features``, as PyTorch 2.13's
``_InstanceNorm.forward``: without ``affine`` the count is not used, and the layer warns and
normalizes (it raised a ValueError before, on a program PyTorch runs); with ``affine`` it is
PyTorch's ValueError; with running statistics of another length ``F.instance_norm`` raises
PyTorch's RuntimeError (NumPy's broadcasting error before).

torch 2.13::

    nn.InstanceNorm1d(3)(torch.arange(8.).view(4, 2))   # UserWarning "input's size at dim=0 does not
                                                         # match num_features. ...", rows [-1., 1.]
    nn.InstanceNorm2d(3, affine=True)(torch.ones(1, 4, 2, 2))
        # ValueError: expected input's size at dim=1 to match num_features (3), but got: 4.
    nn.InstanceNorm2d(3, track_running_stats=True)(torch.ones(1, 4, 2, 2))
        # RuntimeError: running_mean should contain 4 elements not 3
    nn.InstanceNorm1d(3)(torch.ones(4))   # ValueError: expected 2D or 3D input (got 1D input)
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

MISMATCH = "input's size at dim=1 does not match num_features"
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _expected(x: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=(2, 3), keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=(2, 3), keepdims=True) + 1e-5)


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_without_affine_another_channel_count_warns_and_normalizes(device, dtype):
    x = np.random.default_rng(0).standard_normal((2, 4, 3, 3))
    with pytest.warns(UserWarning, match=MISMATCH):
        out = nn.InstanceNorm2d(3)(mg.tensor(x, dtype=dtype, device=device))
    assert out.dtype == dtype and out.device == mg.device(device)
    tol = 1e-5 if dtype == mg.float32 else 1e-12
    np.testing.assert_allclose(out.cpu().numpy(), _expected(x), rtol=tol, atol=tol)


def test_unbatched_input_names_its_channel_dim():
    with pytest.warns(UserWarning, match="input's size at dim=0 does not match num_features"):
        out = nn.InstanceNorm1d(3)(mg.arange(8.0).view(4, 2))
    np.testing.assert_allclose(out.numpy(), np.tile([-1.0, 1.0], (4, 1)), rtol=1e-4)


def test_gradients_flow_as_with_the_matching_count_also_under_checkpoint_and_func_grad():
    x = np.random.default_rng(1).standard_normal((2, 4, 3, 3))
    target = nn.InstanceNorm2d(4)
    want = mg.func.grad(lambda t: (target(t) ** 3).sum())(mg.tensor(x)).numpy()
    norm = nn.InstanceNorm2d(3)
    with pytest.warns(UserWarning, match=MISMATCH):
        got = mg.func.grad(lambda t: (norm(t) ** 3).sum())(mg.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    leaf = mg.tensor(x, requires_grad=True)
    with pytest.warns(UserWarning, match=MISMATCH):
        (checkpoint(norm, leaf, use_reentrant=False) ** 3).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), want, rtol=1e-12)


def test_with_affine_it_is_pytorchs_value_error():
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 4\."):
        nn.InstanceNorm2d(3, affine=True)(mg.ones(1, 4, 2, 2))


def test_running_statistics_of_another_length_are_pytorchs_runtime_error():
    with pytest.warns(UserWarning, match=MISMATCH), \
            pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        nn.InstanceNorm2d(3, track_running_stats=True)(mg.ones(1, 4, 2, 2))
    with pytest.raises(RuntimeError, match="running_var should contain 4 elements not 5"):
        F.instance_norm(mg.ones(1, 4, 2, 2), mg.zeros(4), mg.ones(5))


@pytest.mark.parametrize("layer, shape, words", [(nn.InstanceNorm1d, (4,), "2D or 3D input (got 1D"),
                                                 (nn.InstanceNorm2d, (3, 4), "3D or 4D input (got 2D"),
                                                 (nn.InstanceNorm3d, (1, 3, 2, 2, 2, 2), "4D or 5D input (got 6D")])
def test_a_wrong_rank_is_pytorchs_value_error(layer, shape, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        layer(3)(mg.ones(*shape))
