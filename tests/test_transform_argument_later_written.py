"""The tensor a reverse-mode transform differentiated at may be written in place after the transform
returned: an outer backward through the result refuses only where it needs the old values.

``a`` requires grad, ``c`` does not: ``g = mg.func.grad(lambda x: (x.sin() * a).sum())(c);
c.add_(1.0); g.sum().backward()`` refused ("one of the arrays needed for gradient computation has been
modified by an in-place operation after Sin ... saved it"): the transform's handle on ``c`` shares
``c``'s memory, and the nodes that differentiate with respect to the handle only (``cos(x)``'s
backward) were met by the outer pass.  torch 2.13 answers ``a.grad = cos(c) = [0.8776, 0.0707]``: those
nodes live on torch.func's inner level, never in the outer graph.  The outer pass now goes on where
the stale node's gradient reaches only the transform's handles, and still refuses where the gradient
with respect to ``a`` reads the old values (``x * x * a``), as torch does.

Expected answers: ``tests/data/make_torch_seams.py`` (torch 2.13 on the same programs).
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES, programs, torch_answers

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

LATER = programs("later_write_programs")
TORCH = torch_answers("later_writes")


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("write", sorted(LATER.WRITES))
@pytest.mark.parametrize("name", sorted(LATER.PROGRAMS))
def test_an_outer_backward_after_the_argument_was_written(name, write, device, dtype):
    dtype_name = "float64" if dtype == mg.float64 else "float32"
    got, want = LATER.run(mg, name, write, device, dtype_name), TORCH[f"{name} / {write}"]
    if isinstance(want, dict):
        assert isinstance(got, dict), f"the engine answered {got}; torch 2.13 refuses: {want['message']}"
        assert got["error"] == want["error"] and "modified by an in-place operation" in got["message"]
    else:
        assert not isinstance(got, dict), got["message"]
        tol = 1e-12 if dtype == mg.float64 else 1e-6
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_a_stale_value_outside_the_transforms_still_refuses():
    """Where the stale node's gradient reaches a tensor the pass hands a gradient to, it refuses."""
    b = mg.tensor([0.5, 1.5], requires_grad=True)
    h = b * 1.0
    k = h.sin()  # (saves h)
    with mg.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        k.sum().backward()


def test_a_hook_inside_the_transform_does_not_make_its_nodes_needed():
    """The function's own hooks are the transform's (hidden from outer passes, as in torch.func)."""
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([0.5, 1.5])
    seen = []

    def f(x):
        y = x * 1.0
        y.register_hook(lambda grad: seen.append(grad))
        return (y.sin() * a).sum()

    g = mg.func.grad(f)(c)
    assert len(seen) == 1
    c.add_(1.0)
    g.sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(a.grad.numpy(), np.cos([0.5, 1.5]), rtol=1e-6)


def test_under_vmap_and_inside_a_checkpoint():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([[0.5, 1.5], [0.25, -1.0]])
    g = mg.func.vmap(mg.func.grad(lambda x: (x.sin() * a).sum()))(c)
    c.add_(1.0)
    g.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos([0.5, 1.5]) + np.cos([0.25, -1.0]), rtol=1e-6)
    # a checkpoint replays from what it kept: c changed, so it refuses (docs/checkpointing.md's guard;
    # torch 2.13 refuses grad inside a checkpoint altogether)
    c = mg.tensor([[0.5, 1.5], [0.25, -1.0]])
    g = mg.checkpoint.checkpoint(lambda p: mg.func.vmap(mg.func.grad(lambda x: (x.sin() * p).sum()))(c), a)
    c.add_(1.0)
    with pytest.raises(RuntimeError, match="modified in place after the forward pass"):
        g.sum().backward()
