"""PyTorch's ``AccumulateGrad`` writes ``.grad`` only while its leaf requires grad: a leaf that
``detach_()`` or ``requires_grad_(False)`` cut off after the graph used it keeps ``.grad`` None
(its tensor hooks and post-accumulate hooks still run).  The engine summed the gradient into it.

Fixtures made offline with torch 2.13 (the same lines with ``torch`` for ``mg``)."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

CUTS = {"detach_": lambda t: t.detach_(), "requires_grad_(False)": lambda t: t.requires_grad_(False)}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("checkpointed", [False, True])
def test_a_leaf_cut_off_after_its_use_keeps_no_grad(device, dtype, cut, checkpointed):
    # torch 2.13: x, w = ones(3, requires_grad=True) x2; y = (x * w).sum(); x.detach_(); y.backward()
    # -> x.grad None, w.grad [1, 1, 1]; with (x * x).sum() alone too (x is the only leaf): None
    x = mg.ones(3, dtype=dtype, device=device, requires_grad=True)
    w = mg.ones(3, dtype=dtype, device=device, requires_grad=True)

    def f(a, b):
        return (a * b).sum() + (a * a).sum()

    y = mg.checkpoint.checkpoint(f, x, w, use_reentrant=False) if checkpointed else f(x, w)
    CUTS[cut](x)
    y.backward()
    assert x.grad is None and not x.requires_grad
    assert w.grad.tolist() == [1, 1, 1]
    s = mg.ones(3, dtype=dtype, device=device, requires_grad=True)
    z = (s * s).sum()
    CUTS[cut](s)
    z.backward()
    assert s.grad is None


def test_its_hooks_still_run_as_pytorchs():
    # torch 2.13: x.register_hook(pre); x.register_post_accumulate_grad_hook(post); y = (x * 2).sum();
    # x.requires_grad_(False); y.backward() -> pre sees [2, 2, 2], post runs, x.grad None
    seen = []
    x = mg.ones(3, requires_grad=True)
    x.register_hook(lambda g: seen.append(("pre", g.tolist())))
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("post", t.grad)))
    w = mg.ones(3, requires_grad=True)
    y = (x * 2 * w).sum()
    x.requires_grad_(False)
    y.backward()
    assert seen == [("pre", [2, 2, 2]), ("post", None)] and x.grad is None and w.grad.tolist() == [2, 2, 2]


def test_a_gradient_it_had_before_stays_as_it_was():
    x = mg.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    y = (x * 5).sum()
    x.detach_()
    y.backward()
    assert x.grad.tolist() == [3, 3]
