"""Regenerate ``tests/data/torch_function_outputs.json``: what torch 2.13 answers for custom
``autograd.Function``s with several outputs -- the one node they share (``y1.grad_fn is y2.grad_fn``, its
name, ``next_functions``, a later op's ``next_functions`` pointing at ``(node, k)``), and a tensor
``forward`` returns twice (``return y, y``: handed out once, its gradient at the last position, zeros or
None at the others) -- each scenario a function of the library, so the tests run the same code on the engine.

    python tests/data/make_torch_function_outputs.py     # needs torch; the tests do not

Read by ``tests/test_function_outputs.py``, which imports ``SCENARIOS`` from here.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("torch_function_outputs.json")


def _values(t) -> list:
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _received(gs) -> list:
    return [None if g is None else _values(g) for g in gs]


def split(lib, x) -> dict:
    """Two outputs: one node, its name, its inputs, and a later op's edges into it."""
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.k = 3.0
            return x * 2, x * ctx.k

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * ctx.k

    y1, y2 = Split.apply(x)
    z = y1 * y2
    node = y1.grad_fn
    edges = z.grad_fn.next_functions
    (g,) = lib.autograd.grad(z.sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return {"shared": node is y2.grad_fn, "name": node.name(), "ctx_attribute": node.k,
            "inputs": [(f.name().split("::")[-1], k) for f, k in node.next_functions],
            "edges": [(f is node, k) for f, k in edges], "grad": _values(g), "grad2": _values(gg)}


def _repeated(lib, materialize: bool, save: bool = True, x0=None):
    seen = []

    class Repeated(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            y = x * 2
            ctx.save_for_backward(y if save else None)
            return y, x * 3, y

        @staticmethod
        def backward(ctx, g1, g2, g3):
            (y,) = ctx.saved_tensors if save else (2 * x0,)
            seen.append(_received((g1, g2, g3)))
            total = 0
            for g, c in ((g1, 2), (g2, 3), (g3, 5 * y)):
                if g is not None:
                    total = total + g * c
            return total
    return Repeated, seen


def repeated(lib, x) -> dict:
    """``return y, z, y``: one tensor at positions 0 and 2, its gradient to position 2."""
    out = {}
    for materialize in (True, False):
        fn, seen = _repeated(lib, materialize)
        a, b, c = fn.apply(x)
        (g,) = lib.autograd.grad(a.sum() * 10 + b.sum(), x)
        out[str(materialize)] = {"same": a is c, "shared": a.grad_fn is b.grad_fn, "received": seen[0],
                                 "grad": _values(g), "output_nr": [k for f, k in (a * b).grad_fn.next_functions]}
    fn, _ = _repeated(lib, True, save=False, x0=x.detach())
    a, b, c = fn.apply(x)
    a.mul_(3)  # a write into one is a write into the other: it is one tensor
    (g,) = lib.autograd.grad(c.sum(), x)
    out["written"] = {"value": _values(c), "grad": _values(g)}
    return out


def argument_twice(lib, x) -> dict:
    """``return x, x`` of an argument: two outputs (PyTorch's are two views of it), a gradient each."""
    seen = []

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(_received((g1, g2)))
            return g1 + 7 * g2

    h = x * 1
    a, b = Twice.apply(h)
    (g,) = lib.autograd.grad(a.sum() + 10 * b.sum(), x)
    return {"same": a is b, "received": seen[0], "grad": _values(g)}


def under_transforms(lib, x) -> dict:
    """``return y, y`` under ``func.vjp`` and ``func.jvp``: ``torch.func`` keeps the positions apart (a
    cotangent and a tangent each); ``autograd.functional`` does not."""
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(x):
            y = x * 2
            return y, y

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 5

        @staticmethod
        def jvp(ctx, t):
            return t * 2, t * 100

    x = x.detach()
    _, pullback = lib.func.vjp(Twice.apply, x)
    (v,) = pullback((lib.ones_like(x), 10 * lib.ones_like(x)))
    _, tangents = lib.func.jvp(Twice.apply, (x,), (lib.ones_like(x),))
    # torch.autograd.functional is plain autograd: one output, the cotangents summed into the last position
    _, (plain,) = lib.autograd.functional.vjp(Twice.apply, (x,), (lib.ones_like(x), 10 * lib.ones_like(x)))
    return {"vjp": _values(v), "jvp": [_values(t) for t in tangents], "autograd.functional.vjp": _values(plain)}


def after_an_integer_output(lib, x) -> dict:
    """``return indices, y``: the one differentiable output is output 1 of the node (``(node, 1)``)."""
    class Mask(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x > 0).long(), x * 2

        @staticmethod
        def backward(ctx, g_indices, g):
            return g * 2

    indices, y = Mask.apply(x)
    edges = (y * 1).grad_fn.next_functions
    return {"name": y.grad_fn.name(), "edge": [edges[0][0] is y.grad_fn, edges[0][1]],
            "indices_grad_fn": indices.grad_fn is None}


def node_hooks(lib, x) -> dict:
    """The shared node's hooks get one gradient per output (None where none reached it: the engine's are
    zeros there unless ``set_materialize_grads(False)``), and a pre-hook's tuple replaces them."""
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, (x > 0).long(), x * 3

        @staticmethod
        def backward(ctx, g1, g_mask, g2):
            return sum(g * c for g, c in ((g1, 2), (g2, 3)) if g is not None)

    seen = []
    y1, mask, y2 = Split.apply(x)
    y1.grad_fn.register_prehook(lambda go: seen.append(["pre", _received(go)]))
    y1.grad_fn.register_hook(lambda gi, go: seen.append(["post", _received(gi), _received(go)]))
    (g,) = lib.autograd.grad(y1.sum(), x)
    y1, mask, y2 = Split.apply(x)
    y1.grad_fn.register_prehook(lambda go: (go[0] * 10, None, go[2]))
    (replaced,) = lib.autograd.grad(y1.sum() + y2.sum(), x)
    y1, mask, y2 = Split.apply(x)
    y2.grad_fn.register_prehook(lambda go: (None, None, go[2]))
    (dropped,) = lib.autograd.grad(y1.sum() + y2.sum(), x, create_graph=True)
    return {"seen": seen, "grad": _values(g), "replaced": _values(replaced), "dropped": _values(dropped)}


SCENARIOS = {"split": split, "node_hooks": node_hooks, "repeated": repeated, "argument_twice": argument_twice,
             "under_transforms": under_transforms, "after_an_integer_output": after_an_integer_output}
INPUT = [1.0, 2.0, -0.5]


def main() -> None:
    import torch

    out = {}
    for dtype in ("float32", "float64"):
        for name, scenario in SCENARIOS.items():
            x = torch.tensor(INPUT, dtype=getattr(torch, dtype), requires_grad=True)
            out[f"{dtype}/{name}"] = scenario(torch, x)
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
