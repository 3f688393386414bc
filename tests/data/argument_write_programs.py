"""Functions that write in place into the argument a reverse-mode transform differentiates, when the
caller's tensor requires grad, written once for torch and minigrad_ckpt: ``run(lib, name)`` returns
the values (nested lists) or ``{"error": type name, "message": first words}``.
``make_torch_seams.py`` records torch's answers; ``tests/test_transform_argument_writes.py``
replays them.

``torch.func`` makes each differentiated argument a leaf, so a recorded write into it (or into a
view of it) is refused; ``torch.autograd.functional`` with ``create_graph=True`` passes such an
input as a view of itself, which may be written (the derivative is then taken with respect to the
written value).
"""

from __future__ import annotations

from typing import Any

P = [0.3, -0.7, 1.2, 2.0]
V = [1.0, 0.5, -2.0, 0.25]


def _twice(x: Any) -> Any:
    return x.mul_(2) * x


def _view_twice(x: Any) -> Any:
    x[1:].mul_(2)
    return x * x


PROGRAMS = {
    "grad": lambda lib, q: lib.func.grad(lambda x: _twice(x).sum())(q),
    "grad, through a view": lambda lib, q: lib.func.grad(lambda x: _view_twice(x).sum())(q),
    "vjp": lambda lib, q: lib.func.vjp(_twice, q)[1](lib.ones_like(q)),
    "jacrev": lambda lib, q: lib.func.jacrev(_twice)(q),
    "jacrev, through a view": lambda lib, q: lib.func.jacrev(_view_twice)(q),
    "hessian": lambda lib, q: lib.func.hessian(lambda x: _twice(x).sum())(q),
    "value_and_grad": lambda lib, q: lib.func.grad_and_value(lambda x: _twice(x).sum())(q),
    "autograd.functional.vjp, create_graph": lambda lib, q: lib.autograd.functional.vjp(
        _twice, q, lib.tensor(V, dtype=q.dtype), create_graph=True),
    "autograd.functional.jacobian, create_graph": lambda lib, q: lib.autograd.functional.jacobian(
        _view_twice, q, create_graph=True),
}


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_plain(u) for u in v]
    return v.detach().tolist()


def run(lib: Any, name: str) -> Any:
    q = lib.tensor(P, dtype=lib.float64, requires_grad=True) * 1  # the caller's tensor is on a graph
    try:
        return _plain(PROGRAMS[name](lib, q))
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}
