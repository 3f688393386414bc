"""Regenerate ``tests/data/torch_needs_input_grad.json``: what ``ctx.needs_input_grad`` a custom
``autograd.Function`` sees in torch 2.13 under the ``torch.func`` transforms -- at the innermost
transform's level: a closed-over weight that requires grad outside does not need one inside ``grad``,
``vjp``, ``jacrev``; nothing does inside ``jvp``, ``jacfwd`` -- and in an outer backward through what a
transform handed out (the level outside) -- with the gradients, from a ``backward`` that skips the
gradients not needed.  Each scenario is a function of the library, so the tests run the same code.

    python tests/data/make_torch_needs_input_grad.py     # needs torch; the tests do not

Read by ``tests/test_needs_input_grad_transforms.py``, which imports ``SCENARIOS`` from here.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("torch_needs_input_grad.json")
X, W = [1.0, 4.0, -2.0], [2.0, 3.0, 0.5]


def _values(t) -> list:
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def scaled(lib, seen: dict):
    """``x * w`` whose ``backward`` returns only the gradients ``needs_input_grad`` asks for; the
    needs each of ``setup_context`` (its last call: torch calls it once per level), ``backward`` and
    ``jvp`` saw go into ``seen``."""
    class Scaled(lib.autograd.Function):
        generate_vmap_rule = True  # (torch's jacfwd runs jvp under vmap)

        @staticmethod
        def forward(x, w):
            return x * w

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["setup"] = list(ctx.needs_input_grad)
            ctx.save_for_backward(*inputs)
            ctx.save_for_forward(*inputs)

        @staticmethod
        def backward(ctx, g):
            seen.setdefault("backward", []).append(list(ctx.needs_input_grad))
            x, w = ctx.saved_tensors
            return (g * w if ctx.needs_input_grad[0] else None, g * x if ctx.needs_input_grad[1] else None)

        @staticmethod
        def jvp(ctx, tx, tw):
            if list(ctx.needs_input_grad) not in seen.setdefault("jvp", []):  # (once per column: the engine's jacfwd)
                seen["jvp"].append(list(ctx.needs_input_grad))
            x, w = ctx.saved_tensors
            return tx * w + tw * x
    return Scaled.apply


def _grad_closing_over_w(lib, x, w, f):
    return {"grad": _values(lib.func.grad(lambda a: (f(a, w) * a).sum())(x))}


def _vjp_then_backward_outside(lib, x, w, f):
    out, pullback = lib.func.vjp(lambda a: f(a, w), x)
    (v,) = pullback(lib.ones_like(out))
    (out * out).sum().backward()  # an outer pass through the node the transform recorded: w's level
    return {"vjp": _values(v), "w.grad": _values(w.grad)}


def _grad_of_grad(lib, x, w, f):  # the inner grad closes over the outer's argument
    return {"grad": _values(lib.func.grad(lambda b: lib.func.grad(lambda a: (f(a, b) * a).sum())(x).sum())(x))}


def _jvp(lib, x, w, f):
    _, t = lib.func.jvp(lambda a: f(a, w), (x,), (lib.ones_like(x),))
    return {"tangent": _values(t)}


def _jacfwd_of_jacrev(lib, x, w, f):
    return {"hessian": _values(lib.func.jacfwd(lib.func.jacrev(lambda a: f(a, a * w).sum()))(x))}


def _autograd_functional(lib, x, w, f):  # not torch.func: plain autograd, w needs its gradient
    jac = lib.autograd.functional.jacobian(lambda a: f(a, w), x, create_graph=True)
    jac.sum().backward()
    return {"jacobian": _values(jac), "w.grad": _values(w.grad)}


def _plain(lib, x, w, f):
    (f(x, w) * x).sum().backward()
    return {"w.grad": _values(w.grad), "x.grad": _values(x.grad)}


SCENARIOS = {"grad_closing_over_w": _grad_closing_over_w, "vjp_then_backward_outside": _vjp_then_backward_outside,
             "grad_of_grad": _grad_of_grad, "jvp": _jvp, "jacfwd_of_jacrev": _jacfwd_of_jacrev,
             "autograd_functional": _autograd_functional, "plain": _plain}


def run(lib, name: str, dtype, device: str = "cpu") -> dict:
    seen: dict = {}
    x = lib.tensor(X, dtype=dtype, device=device, requires_grad=name == "plain")
    w = lib.tensor(W, dtype=dtype, device=device, requires_grad=True)
    out = SCENARIOS[name](lib, x, w, scaled(lib, seen))
    return {**out, **seen}


def main() -> None:
    import torch

    out = {f"{dtype}/{name}": run(torch, name, getattr(torch, dtype))
           for dtype in ("float32", "float64") for name in SCENARIOS}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
