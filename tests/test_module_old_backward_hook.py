"""``Module.register_backward_hook``, PyTorch's deprecated (non-full) backward hook, which Grad-CAM style code
still calls (an AttributeError before): ``hook(module, grad_input, grad_output)`` on the node that made the
module's first output -- ``grad_output`` the gradient of that output, ``grad_input`` that node's input
gradients -- and what it returns replaces ``grad_input``.  A module takes one kind of backward hook or the other.

Expected values: torch 2.13 on the same programs (``nn.Tanh()`` with a hook returning ``(gin[0] * 0 + 7,)``:
``x.grad == [7, 7]``; ``nn.Linear(2, 1)``: ``grad_output == ([[1.]],)``; mixing kinds: RuntimeError
"Cannot use both regular backward hooks and full backward hooks on a single Module. ...").
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_the_hook_sees_the_output_gradient_and_may_replace_grad_input(device, dtype):
    m = mg.nn.Tanh()
    seen = []
    m.register_backward_hook(lambda mod, gin, gout: (seen.append((mod, len(gin), gout[0].tolist())),
                                                     (gin[0] * 0 + 7,))[1])
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    (m(x) * 3).sum().backward()
    assert seen == [(m, 1, [3.0, 3.0])]
    assert x.grad.tolist() == [7.0, 7.0] and x.grad.dtype == dtype


def test_a_layer_in_a_network_as_grad_cam_hooks_it():
    class Net(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = mg.nn.Conv2d(1, 2, 3, padding=1)

        def forward(self, x):
            return mg.nn.functional.relu(self.conv(x)).mean()

    net = Net()
    kept = {}
    net.conv.register_forward_hook(lambda m, i, o: kept.update(activation=o.detach()))
    handle = net.conv.register_backward_hook(lambda m, gi, go: kept.update(gradient=go[0]))
    net(mg.ones(1, 1, 4, 4)).backward()
    assert kept["gradient"].shape == kept["activation"].shape == (1, 2, 4, 4)
    want = (kept["activation"].numpy() > 0) / 32.0  # d mean(relu(a)) / da
    np.testing.assert_allclose(kept["gradient"].numpy(), want, rtol=1e-6)
    handle.remove()
    del kept["gradient"]
    net(mg.ones(1, 1, 4, 4)).backward()
    assert "gradient" not in kept


def test_inside_a_checkpoint():
    m = mg.nn.Tanh()
    seen = []
    m.register_backward_hook(lambda mod, gin, gout: seen.append(gout[0].tolist()))
    x = mg.tensor([0.5, 1.0], dtype=mg.float64, requires_grad=True)
    mg.checkpoint.checkpoint(lambda t: m(t * 2), x).sum().backward()
    assert seen == [[1.0, 1.0]]
    np.testing.assert_allclose(x.grad.numpy(), 2 / np.cosh([1.0, 2.0]) ** 2)


def test_one_kind_or_the_other():
    m = mg.nn.Linear(2, 1)
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        m.register_backward_hook(lambda *a: None)
    m = mg.nn.Linear(2, 1)
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        m.register_full_backward_hook(lambda *a: None)
