"""A tensor a transform differentiated at, written in place after the transform returned, before an
outer backward through the result, written once for torch and minigrad_ckpt: ``run(lib, name)``
returns ``a.grad`` (nested lists) or ``{"error": type name, "message": ...}``.
``make_torch_seams.py`` records torch's answers; ``tests/test_transform_argument_later_written.py``
replays them.

The result closes over ``a`` (which requires grad); ``c`` does not require grad.  The outer backward
needs ``c``'s old values only where the gradient with respect to ``a`` reads them (``x * x * a``):
there torch refuses ("modified by an inplace operation"); elsewhere only the transform's own
derivative with respect to ``c`` read them, which torch.func keeps on its inner level.
"""

from __future__ import annotations

from typing import Any

A, C = [1.0, 2.0], [0.5, 1.5]


def _grad(F, a, c):
    return F.grad(lambda x: (x.sin() * a).sum())(c)


def _grad_of_a_square(F, a, c):
    return F.grad(lambda x: (x * x * a).sum())(c)


def _hessian(F, a, c):
    return F.hessian(lambda x: (x.sin() * a).sum())(c)


def _vjp(F, a, c):
    return F.vjp(lambda x: x.sin() * a, c)[1](c * 0 + 1)[0]


def _jacrev(F, a, c):
    return F.jacrev(lambda x: x.exp() * a.tanh())(c)


def _grad_then_a_view_written(F, a, c):
    return F.grad(lambda x: (x.cos() * a * a).sum())(c[1:])


PROGRAMS = {"grad": _grad, "grad of x * x * a": _grad_of_a_square, "hessian": _hessian, "vjp": _vjp,
            "jacrev": _jacrev, "grad at a view": _grad_then_a_view_written}
WRITES = {"add_": lambda lib, c: c.add_(1.0), "mul_ under no_grad": lambda lib, c: _under_no_grad(lib, c),
          "through a view": lambda lib, c: c[0:1].sub_(0.25)}


def _under_no_grad(lib, c):
    with lib.no_grad():
        c.mul_(2.0)


def run(lib: Any, name: str, write: str, device: Any = "cpu", dtype: str = "float64") -> Any:
    a = lib.tensor(A, dtype=getattr(lib, dtype), device=device, requires_grad=True)
    c = lib.tensor(C, dtype=getattr(lib, dtype), device=device)
    g = PROGRAMS[name](lib.func, a, c)
    WRITES[write](lib, c)
    try:
        g.sum().backward()
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}
    return a.grad.detach().cpu().tolist()
