"""In-place writes into views (and bases) under nested transforms, written once for torch and
minigrad_ckpt: ``run(lib, case, transform)`` returns the transform's result as nested lists.
``make_torch_forward_mode_parity.py`` records torch's answers; ``tests/test_forward_mode_parity.py``
replays them."""

from __future__ import annotations

from typing import Any

X = [0.3, -1.2, 0.5, 1.1, 0.7]
V = [1.0, 0.5, -0.25, 2.0, -1.0]


def _view_mul(lib: Any, a: Any) -> Any:
    b = a.clone()
    b[1:4].mul_(a[:3])  # a view written with a value that carries a tangent
    return b.sin() * b


def _base_and_views(lib: Any, a: Any) -> Any:
    b = lib.zeros(2, 5, dtype=a.dtype, device=a.device)
    b[0] = a
    b.t()[2].add_(a[:2] * a[3])
    b.view(-1)[::3].mul_(a.exp()[:4])
    return b.sum(0) ** 2


def _expanded_copy(lib: Any, a: Any) -> Any:
    x = a.reshape(1, 1, 5).expand(2, 3, 5).clone()
    x.transpose(0, 1)[1].add_(a)
    x.view(6, 5)[::2].mul_(a.sin())
    x.diagonal(dim1=1, dim2=2).zero_()
    return x.sum((0, 1))


CASES = {"view mul_": _view_mul, "base and views": _base_and_views, "expanded copy": _expanded_copy}


def _transforms(lib: Any, f: Any) -> dict:
    func = lib.func
    return {
        "jvp of jacfwd": lambda x, v: func.jvp(func.jacfwd(f), (x,), (v,))[1],
        "jvp of jvp": lambda x, v: func.jvp(lambda y: func.jvp(f, (y,), (v,))[1], (x,), (v,))[1],
        "jvp of grad": lambda x, v: func.jvp(func.grad(lambda y: f(y).sum()), (x,), (v,))[1],
        "grad of jvp": lambda x, v: func.grad(lambda y: func.jvp(f, (y,), (v,))[1].sum())(x),
        "hessian": lambda x, v: func.hessian(lambda y: f(y).sum())(x),
    }


TRANSFORMS = ("jvp of jacfwd", "jvp of jvp", "jvp of grad", "grad of jvp", "hessian")


def run(lib: Any, case: str, transform: str, device: Any = None, dtype: Any = None) -> list:
    dtype = dtype or lib.float64
    x, v = lib.tensor(X, dtype=dtype, device=device), lib.tensor(V, dtype=dtype, device=device)
    out = _transforms(lib, lambda a: CASES[case](lib, a))[transform](x, v)
    return out.detach().cpu().numpy().tolist()
