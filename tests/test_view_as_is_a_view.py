"""``x.view_as(other)`` is ``x.view(other.size())``, as PyTorch's: it shares ``x``'s memory, and where the
strides cannot give that shape without a copy it is PyTorch's RuntimeError.

It was ``reshape_as``: ``x.t().view_as(y)`` silently copied (torch 2.13: "view size is not compatible
with input tensor's size and stride"), so a write through the result never reached ``x``.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_write_through_view_as_reaches_the_base(device):
    x = mg.arange(12.0, device=device).reshape(3, 4)
    v = x.view_as(mg.zeros(4, 3, device=device))
    v[0, 1] = 100.0
    assert v.shape == (4, 3) and x[0, 1].item() == 100.0


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_transposed_tensor_is_refused_where_reshape_as_copies(device):
    x = mg.arange(12.0, device=device).reshape(3, 4).t()
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        x.view_as(mg.zeros(12, device=device))
    assert x.reshape_as(mg.zeros(12, device=device)).numpy().tolist() == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_the_gradient_flows_back_in_the_input_shape(device):
    w = mg.ones(2, 3, device=device, requires_grad=True)
    (w.view_as(mg.zeros(6, device=device)) * mg.arange(6.0, device=device)).sum().backward()
    assert w.grad.numpy().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
