"""Regenerate ``tests/data/torch_autograd_tutorials.json``: torch 2.13's answers to the code of PyTorch's
three autograd tutorials -- the 60 Minute Blitz's "Autograd: automatic differentiation"
(``beginner_source/blitz/autograd_tutorial.py``), Learn the Basics' "Automatic Differentiation with
torch.autograd" (``beginner_source/basics/autogradqs_tutorial.py``) and the Introduction to PyTorch series'
"The Fundamentals of Autograd" (``beginner_source/introyt/autogradyt_tutorial.py``) -- each section a
function of the library, so the test runs the same code on the engine.  Their ``randn``/``rand`` draws are
fixed numbers here (two engines' generators differ); the profiler section is left out (the engine has no
``autograd.profiler``).

    python tests/data/make_torch_autograd_tutorials.py     # needs torch; the tests do not

Read by ``tests/test_tutorial_autograd.py``, which imports ``SECTIONS`` from here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

OUT = Path(__file__).with_name("torch_autograd_tutorials.json")
W = [[0.3, -1.2, 0.5], [1.1, 0.2, -0.7], [-0.4, 0.9, 0.05], [0.6, -0.3, 1.4], [-1.0, 0.8, 0.25]]
B = [0.1, -0.2, 0.3]


def _values(t) -> list:
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def blitz(lib, dtype) -> dict:
    """``out = (3 (x + 2)^2).mean()``: a matrix of 4.5; ``requires_grad_``; the doubling loop and
    ``backward(gradients)``; ``no_grad``."""
    x = lib.ones(2, 2, dtype=dtype, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    a = lib.tensor([[0.5, -1.2], [2.0, 0.3]], dtype=dtype)
    a = ((a * 3) / (a - 1))
    flags = [y.grad_fn is not None, a.requires_grad]
    a.requires_grad_(True)
    b = (a * a).sum()
    flags += [a.requires_grad, b.grad_fn is not None]
    out.backward()
    result = {"out": out.item(), "grad": _values(x.grad)}
    x = lib.tensor([0.3, -0.2, 0.1], dtype=dtype, requires_grad=True)
    y = x * 2
    doublings = 0
    while y.data.norm() < 1000:
        y = y * 2
        doublings += 1
    y.backward(lib.tensor([0.1, 1.0, 0.0001], dtype=dtype))
    flags += [x.requires_grad, (x ** 2).requires_grad]
    with lib.no_grad():
        flags.append((x ** 2).requires_grad)
    result.update(doublings=doublings, y=_values(y), x_grad=_values(x.grad), flags=flags)
    return result


def autogradqs(lib, dtype) -> dict:
    """The one-layer network's ``binary_cross_entropy_with_logits`` gradients, ``no_grad`` and ``detach``,
    and the Jacobian products of ``(inp + 1).pow(2).t()`` accumulating over three ``backward`` calls."""
    x = lib.ones(5, dtype=dtype)
    y = lib.zeros(3, dtype=dtype)
    w = lib.tensor(W, dtype=dtype, requires_grad=True)
    b = lib.tensor(B, dtype=dtype, requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    flags = [z.requires_grad]
    with lib.no_grad():
        flags.append((lib.matmul(x, w) + b).requires_grad)
    flags.append((lib.matmul(x, w) + b).detach().requires_grad)
    inp = lib.eye(4, 5, dtype=dtype, requires_grad=True)
    out = (inp + 1).pow(2).t()
    calls = []
    out.backward(lib.ones_like(out), retain_graph=True)
    calls.append(_values(inp.grad))
    out.backward(lib.ones_like(out), retain_graph=True)
    calls.append(_values(inp.grad))
    inp.grad.zero_()
    out.backward(lib.ones_like(out), retain_graph=True)
    calls.append(_values(inp.grad))
    return {"loss": loss.item(), "w_grad": _values(w.grad), "b_grad": _values(b.grad), "flags": flags,
            "calls": calls}


def autogradyt(lib, dtype) -> dict:
    """``sin`` over ``linspace``: the gradient ``2 cos(a)``, walking ``next_functions`` to the leaf,
    ``requires_grad = False``, ``no_grad`` as a decorator, and ``autograd.functional``'s ``jacobian`` and
    ``vjp`` of the tutorial's functions."""
    a = lib.linspace(0., 2. * math.pi, steps=25, dtype=dtype, requires_grad=True)
    b = lib.sin(a)
    c = 2 * b
    d = c + 1
    out = d.sum()
    walk = d.grad_fn
    for _ in range(3):
        walk = walk.next_functions[0][0]
    reached_leaf = walk.variable is a and walk.next_functions == ()
    out.backward()
    t = lib.ones(2, 3, dtype=dtype, requires_grad=True)
    b1 = 2 * t
    t.requires_grad = False
    b2 = 2 * t

    @lib.no_grad()
    def add_tensors2(x, y):
        return x + y

    flags = [reached_leaf, b1.requires_grad, b2.requires_grad,
             add_tensors2(lib.ones(2, dtype=dtype, requires_grad=True) * 2, lib.ones(2, dtype=dtype)).requires_grad]

    def exp_adder(x, y):
        return 2 * x.exp() + 3 * y

    jac = lib.autograd.functional.jacobian(exp_adder, (lib.tensor([0.3, 0.1, 0.2], dtype=dtype),
                                                       lib.tensor([0.4, 0.5, 0.6], dtype=dtype)))

    def do_some_doubling(x):
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        return y

    vjp = lib.autograd.functional.vjp(do_some_doubling, lib.tensor([0.3, -0.1, 0.2], dtype=dtype),
                                      v=lib.tensor([0.1, 1.0, 0.0001], dtype=dtype))
    return {"sum_out": out.item(), "a_grad": _values(a.grad), "flags": flags, "jacobian": [_values(j) for j in jac],
            "vjp": [_values(v) for v in vjp]}


SECTIONS = {"blitz": blitz, "autogradqs": autogradqs, "autogradyt": autogradyt}


def main() -> None:
    import torch

    out = {f"{dtype}/{name}": section(torch, getattr(torch, dtype))
           for dtype in ("float32", "float64") for name, section in SECTIONS.items()}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
