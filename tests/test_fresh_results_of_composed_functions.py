"""Functions PyTorch computes as one new tensor are here a few ops whose last is a view of the function's
own temporaries (``max(x, 1)`` squeezes its kept dim, ``rot90`` transposes a flip, ``kron`` reshapes the
product), and a ``reshape`` that NumPy can only do by copying was still tied to its input's memory.
torch 2.13: ``mg.randn(3, 4).max(1).values.detach_()`` works (here "Can't detach views in-place"); a
view of a non-row-major such result ``.view(-1)`` works where the memory is the result's own; a write
into ``x.t()`` after ``r = (x.t() * 1).reshape(-1)`` was used does not mark ``r``'s saved values as
changed (here "modified by an inplace operation"); ``x[:, ::2].ravel()`` is a contiguous copy (here a
strided view, so writes into it reached ``x``).  The results stay views of the temporaries' memory (so
a write into them still reaches a node that saved it), but are no views to the user."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
FRESH = {  # each a new tensor in torch 2.13 (its _is_view() is False): detach_() takes it
    "max_dim": lambda x: x.max(1).values,
    "min_dim_indices": lambda x: x.min(dim=0).indices,
    "median_dim": lambda x: x.median(1).values,
    "nanmedian_dim": lambda x: x.nanmedian(0).values,
    "mode_dim": lambda x: x.mode(1).values,
    "kthvalue": lambda x: x.kthvalue(2, 1).values,
    "quantile_dim": lambda x: x.quantile(0.5, dim=1),
    "logcumsumexp": lambda x: x.logcumsumexp(0),
    "rot90": lambda x: x.rot90(1, (0, 1)),
    "roll_flat": lambda x: x.roll(1),
    "diag_embed": lambda x: x.diag_embed(),
    "diagflat": lambda x: x.diagflat(),
    "kron": lambda x: mg.kron(x, x),
    "cross_dim0": lambda x: mg.cross(x[:3], x[1:4], dim=0),
    "reshape_of_transpose": lambda x: x.t().reshape(-1),
    "flatten_of_transpose": lambda x: x.t().flatten(),
}


def _x(device, dtype, requires_grad=False):
    data = np.random.default_rng(0).standard_normal((4, 3))
    return mg.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", list(FRESH))
def test_a_fresh_result_takes_detach_in_place(name, requires_grad, device, dtype):
    x = _x(device, dtype, requires_grad)
    r = FRESH[name](x)
    expected = r.detach().clone()
    assert r.detach_() is r
    assert not r.requires_grad and r.grad_fn is None
    np.testing.assert_array_equal(r.cpu().numpy(), expected.cpu().numpy())


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", list(FRESH))
def test_a_fresh_result_is_viewable_and_its_own(name, device, dtype):
    x = _x(device, dtype)
    before = x.clone()
    r = FRESH[name](x)
    flat = r.view(-1)  # a view of a non-row-major result is laid out row-major first, as for any new tensor
    with mg.no_grad():
        flat.fill_(7.0)
    assert bool((r == 7.0).all())  # the view is one of r
    np.testing.assert_array_equal(x.cpu().numpy(), before.cpu().numpy())  # and x is untouched


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_view_of_a_fresh_result_is_still_a_view(device, dtype):
    x = _x(device, dtype)
    r = x.max(1).values
    v = r[1:]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.max(1).values.expand(2, 4).t().view(-1)


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_recorded_write_through_a_view_of_a_fresh_result_reaches_its_gradient(device, dtype):
    x = _x(device, dtype, requires_grad=True)
    m = (x * 1).max(1).values
    m[1:].mul_(2)  # m is the view's base, as in PyTorch: its history follows the write
    (m * m).sum().backward()
    values = x.detach().cpu().numpy()
    rows, cols = np.arange(4), values.argmax(1)
    expected = np.zeros_like(values)
    scale = np.array([1.0, 4.0, 4.0, 4.0])  # d(m_i^2)/dx for m_i = c * x: 2 c^2 x
    expected[rows, cols] = 2 * scale * values[rows, cols]
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_write_into_the_fresh_result_still_reaches_a_node_that_saved_its_memory(device, dtype):
    x = _x(device, dtype, requires_grad=True)
    y = x.exp()  # saves its output
    r = y.t().reshape(-1)  # a copy: untied
    s = y.max(1).values  # a view of its own temporaries: no tie to y either
    with mg.no_grad():
        r.add_(1)
        s.add_(1)
    y.sum().backward()  # neither write touched y's memory
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.exp(x.detach().cpu().numpy()), rtol=1e-6)


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_reshape_that_copies_is_untied_from_its_input(device, dtype):
    x = _x(device, dtype, requires_grad=True)
    a = x.t() * 1
    r = a.reshape(-1)
    y = (r * r).sum()
    a.add_(1)  # a recorded write into a, whose copy r's values the product saved: still intact
    y.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * x.detach().cpu().numpy(), rtol=1e-6)
    view = x.detach().reshape(-1)  # a reshape that can view still is one: the write reaches x
    with mg.no_grad():
        view[0] = 5.0
    assert float(x[0, 0]) == 5.0


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_ravel_of_a_strided_tensor_is_a_contiguous_copy(device, dtype):
    w = mg.tensor(np.arange(24.0).reshape(3, 8), dtype=dtype, device=device)
    x = w[:, ::2]
    r = x.ravel()
    assert r.is_contiguous() and r.stride() == (1,)
    with mg.no_grad():
        r.fill_(-1.0)
    assert float(w.min()) == 0.0  # the write stayed in the copy, as PyTorch's and NumPy's ravel
    c = w.ravel()  # a contiguous tensor's ravel is still a view
    with mg.no_grad():
        c[0] = 9.0
    assert float(w[0, 0]) == 9.0
