"""Which hooks fire, and what is collected, for a tensor passed as ``inputs`` -- PyTorch's autograd notes
("Whether a particular hook will be fired"): a tensor's own hooks always run; its ``grad_fn``'s hooks
(``register_prehook``, ``register_hook``) only if that node runs -- under ``mg.grad`` only when another
input is behind it, under ``backward(inputs=)`` always.  What ``mg.grad`` collects for an input whose node
runs is the gradient as it arrived, before the tensor's hooks (PyTorch's engine captures the buffer before
them then); where the node does not run, after them; ``backward(inputs=)`` accumulates it after them.

Before: ``backward(inputs=)`` ran neither an input's node nor its hooks (main's capture of what ``mg.grad``
collects landed beside this).  Expected: torch 2.13 on
the same programs.
"""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices


def graph(events, device="cpu", dtype=mg.float64):
    a = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    b = a * 2
    c = b * 3
    d = a * 5
    out = (c + d).sum()
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        t.register_hook(lambda g, name=name: events.append(name))
    b.grad_fn.register_prehook(lambda go: events.append("b.pre"))
    b.grad_fn.register_hook(lambda gi, go: events.append("b.post"))
    d.grad_fn.register_prehook(lambda go: events.append("d.pre"))
    c.grad_fn.register_hook(lambda gi, go: events.append("c.post"))
    return a, b, c, d, out


def test_which_hooks_fire_as_in_pytorch():
    for device, dtype in (("cpu", mg.float64), ("strict-f32", mg.float32)):
        ev = []
        a, b, c, d, out = graph(ev, device, dtype)
        mg.autograd.grad(out, b, retain_graph=True)
        ev.append("|")
        mg.autograd.grad(out, a, retain_graph=True)
        ev.append("|")
        mg.autograd.grad(out, [c, d], retain_graph=True)
        ev.append("|")
        out.backward(inputs=[b])
        assert ev == ["c", "c.post", "b", "|",  # torch 2.13's order
                      "d", "d.pre", "c", "c.post", "b", "b.pre", "b.post", "a", "|",
                      "d", "c", "|",
                      "c", "c.post", "b", "b.pre", "b.post"]


def program():
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = a * 2
    out = (b * 3).sum()
    b.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    b.register_hook(lambda g: g + 1)
    return a, b, out


def test_what_is_collected_as_in_pytorch():
    a, b, out = program()
    gb, ga = mg.autograd.grad(out, [b, a], retain_graph=True)  # b's node runs: collected before its hooks
    (only_b,) = mg.autograd.grad(out, [b], retain_graph=True)  # it does not: after the tensor's hook
    assert (gb.tolist(), ga.tolist(), only_b.tolist()) == ([3.0, 3.0], [80.0, 80.0], [4.0, 4.0])
    out.backward(inputs=[b], retain_graph=True)
    assert b.grad.tolist() == [4.0, 4.0] and a.grad is None
    b.grad = None
    out.backward(inputs=[b, a])
    assert (b.grad.tolist(), a.grad.tolist()) == ([4.0, 4.0], [80.0, 80.0])
