"""Weight norm of a 1-D parameter (a bias): with ``dim=0`` each element is its own slice, so its
magnitude ``g`` has one entry per element (``g = |b|``), as PyTorch's ``norm_except_dim`` takes the
norm of each row of ``v.view(n, -1)``.  The engine reduced over "every dim but 0", an empty tuple,
which ``vector_norm`` reads as *all* dims: ``g`` was one number of shape (1,), the whole vector's
norm -- the same forward, but other parameters, other gradients and a state dict PyTorch's cannot load.

Expected values: torch 2.13 (float64), for both the hook-based and the parametrization form::

    m = torch.nn.Linear(2, 3); weight <- W, bias <- [1.5, -2.0, 0.5]
    torch.nn.utils.weight_norm(m, "bias")          # or parametrizations.weight_norm
    g.mul_([2.0, 0.5, 3.0]); y = m(X); (y * y).sum().backward()
    g == [3.0, 1.0, 1.5]; y == [[1.5, 1.5, 3.75], [2.0, -2.875, 3.0]]; g.grad == [7.0, 2.75, 13.5]
    v.grad == 0 (to round-off: |v.grad| <= 9e-16)
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils import parametrizations, weight_norm
from minigrad_ckpt.nn.utils.weight_norm import norm_except_dim

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
W = [[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]]
X = [[1.0, 2.0], [-1.0, 0.5]]


def _linear(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    m = mg.nn.Linear(2, 3, dtype=dtype, device=device)
    with mg.no_grad():
        m.weight.copy_(mg.tensor(W, dtype=dtype, device=device))
        m.bias.copy_(mg.tensor([1.5, -2.0, 0.5], dtype=dtype, device=device))
    return m


def _magnitude_and_direction(m, form):
    if form == "hook":
        return m.bias_g, m.bias_v
    return m.parametrizations.bias.original0, m.parametrizations.bias.original1


@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
@pytest.mark.parametrize("form", ["hook", "parametrization"])
def test_a_bias_keeps_one_magnitude_per_element_as_pytorchs(device, dtype, form):
    m = _linear(device, dtype)
    (weight_norm if form == "hook" else parametrizations.weight_norm)(m, "bias")
    g, v = _magnitude_and_direction(m, form)
    assert g.shape == (3,) and g.dtype == dtype
    np.testing.assert_allclose(g.numpy(), [1.5, 2.0, 0.5], rtol=1e-6)
    with mg.no_grad():
        g.mul_(mg.tensor([2.0, 0.5, 3.0], dtype=dtype, device=device))
    y = m(mg.tensor(X, dtype=dtype, device=device))
    (y * y).sum().backward()
    np.testing.assert_allclose(y.numpy(), [[1.5, 1.5, 3.75], [2.0, -2.875, 3.0]], rtol=1e-6)
    np.testing.assert_allclose(g.grad.numpy(), [7.0, 2.75, 13.5], rtol=1e-6)
    np.testing.assert_allclose(v.grad.numpy(), 0.0, atol=1e-5)


def test_a_pytorch_state_dict_of_a_weight_normed_bias_loads():
    # torch's keys and shapes (Linear(2, 3), weight_norm(m, "bias")): bias_g (3,), bias_v (3,)
    m = weight_norm(_linear("cpu", mg.float64), "bias")
    m.load_state_dict({"weight": mg.tensor(W, dtype=mg.float64), "bias_g": mg.tensor([3.0, 1.0, 1.5], dtype=mg.float64),
                       "bias_v": mg.tensor([1.5, -2.0, 0.5], dtype=mg.float64)})
    y = m(mg.tensor(X, dtype=mg.float64))
    np.testing.assert_allclose(y.numpy(), [[1.5, 1.5, 3.75], [2.0, -2.875, 3.0]], rtol=1e-12)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32], ids=str)
def test_norm_except_dim_of_a_vector_is_each_elements_magnitude_under_jvp_and_checkpoint(dtype):
    v = mg.tensor([1.5, -2.0, 0.5], dtype=dtype)
    np.testing.assert_array_equal(norm_except_dim(v, 2, 0).numpy(), [1.5, 2.0, 0.5])
    assert norm_except_dim(v, 2, -1).shape == ()  # dim=-1 (weight_norm's dim=None): the whole vector's norm
    tangent = mg.tensor([1.0, 1.0, 1.0], dtype=dtype)
    value, slope = mg.func.jvp(lambda a: norm_except_dim(a, 2, 0), (v,), (tangent,))
    np.testing.assert_array_equal(slope.numpy(), [1.0, -1.0, 1.0])  # d|a|/da = sign(a)
    x = mg.tensor([1.5, -2.0, 0.5], dtype=dtype, requires_grad=True)
    mg.checkpoint.checkpoint(lambda a: norm_except_dim(a, 2, 0).sum(), x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, -1.0, 1.0])


def test_the_hook_based_weight_norm_warns_as_pytorchs_with_the_callers_line():
    # torch 2.13: FutureWarning "`torch.nn.utils.weight_norm` is deprecated in favor of
    # `torch.nn.utils.parametrizations.weight_norm`." on every call (DINO's head, PixelCNN++)
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mg.nn.utils.weight_norm(mg.nn.Linear(3, 4))
    (w,) = [c for c in caught if c.category is FutureWarning]
    assert "parametrizations.weight_norm" in str(w.message) and w.filename == __file__
