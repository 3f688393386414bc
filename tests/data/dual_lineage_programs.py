"""Forward-mode writes into memory that a dual handle shares with tensors of another lineage,
written once for torch and minigrad_ckpt: ``run(lib, name, device, dtype)`` returns the values and
the tangents (``None``: no tangent) as nested lists.  ``make_torch_seams.py`` records torch's
answers; ``tests/test_forward_mode_dual_lineage.py`` replays them.

A dual handle (``make_dual``, a transform's argument), ``detach()`` and ``unpack_dual``'s primal
share their source's memory but start a tangent chain of their own: an in-place write through one
of them changes the other's values, never its tangent -- and the same for the views of each.
"""

from __future__ import annotations

from typing import Any

P = [0.3, -0.7, 1.2, 2.0]
V = [1.0, 0.5, -2.0, 0.25]


def _view_of_dual_written(lib: Any, fw: Any, t: Any) -> list:
    p = t(P) * 1
    x = fw.make_dual(p, t(V))
    x[1:].mul_(2)  # through a view of the dual: the primal takes the values, not the tangent
    return [p, x]


def _primal_view_made_before(lib: Any, fw: Any, t: Any) -> list:
    p = t(P) * 1
    before = p[:2]
    x = fw.make_dual(p, t(V))
    x.mul_(x * 1)  # (x.mul_(x) itself: torch 2.13 reads the tangent it is overwriting)
    return [before, x]


def _dual_of_a_view(lib: Any, fw: Any, t: Any) -> list:
    base = t(P) * 1
    other = base[:2]
    x = fw.make_dual(base[1:], t(V[:3]))
    x.mul_(2)
    return [base, other, x]


def _primal_written_with_a_dual(lib: Any, fw: Any, t: Any) -> list:
    p = t(P) * 1
    x = fw.make_dual(p, t(V))
    early = x[:2]
    y = fw.make_dual(t(V), t(P))
    p[1:].mul_(y[1:])  # the dual handle and its view keep their own tangent
    return [x, early, p]


def _detached_alias_written(lib: Any, fw: Any, t: Any) -> list:
    x = fw.make_dual(t(P), t(V))
    b = lib.zeros(4, dtype=x.dtype, device=x.device)
    d = b.detach()
    d.copy_(x)
    y = x * 1
    y.detach().mul_(x)
    return [b, d, y]


def _unpacked_primal_written(lib: Any, fw: Any, t: Any) -> list:
    x = fw.make_dual(t(P), t(V))
    y = x * 1
    primal = fw.unpack_dual(y).primal
    primal.mul_(x)
    return [y, primal]


PROGRAMS = {"view of a dual written": _view_of_dual_written, "primal's view made before": _primal_view_made_before,
            "dual of a view": _dual_of_a_view, "primal written with a dual": _primal_written_with_a_dual,
            "detached alias written": _detached_alias_written, "unpacked primal written": _unpacked_primal_written}


def _caller_view_under_jvp(lib: Any, t: Any) -> list:
    p = t(P) * 1
    early = p[:2]  # a view of the caller's tensor the function closes over

    def f(x):
        x[1:].mul_(x[:3].clone())  # the argument, written through a view
        return early * 1 + x[:2]

    out, tangent = lib.func.jvp(f, (p,), (t(V),))
    return [out, tangent, p]


def _caller_view_under_nested_jvp(lib: Any, t: Any) -> list:
    p = t(P) * 1

    def outer(y):
        early = y[:2]

        def inner(x):
            x[1:].mul_(x[:3].clone())
            return early * 1 + x[:2]
        return lib.func.jvp(inner, (y,), (t(V),))[1]

    out, tangent = lib.func.jvp(outer, (p,), (t(P),))
    return [out, tangent, p]


TRANSFORMED = {"caller's view under jvp": _caller_view_under_jvp,
               "caller's view under nested jvp": _caller_view_under_nested_jvp}


def _plain(lib: Any, fw: Any, v: Any) -> Any:
    if fw is None:
        return v.detach().cpu().tolist()
    primal, tangent = fw.unpack_dual(v)
    return [primal.detach().cpu().tolist(), None if tangent is None else tangent.detach().cpu().tolist()]


def run(lib: Any, name: str, device: Any = None, dtype: Any = None) -> list:
    dtype = dtype or lib.float64

    def t(values: list) -> Any:
        return lib.tensor(values, dtype=dtype, device=device)

    if name in TRANSFORMED:
        return [_plain(lib, None, v) for v in TRANSFORMED[name](lib, t)]
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        return [_plain(lib, fw, v) for v in PROGRAMS[name](lib, fw, t)]


# ---------------------------------------------------------------------------
# Random programs: views, dual handles and detached aliases of one memory, written in place
# ---------------------------------------------------------------------------
SEEDS = range(40)

_VIEWS = [lambda t: t[..., 1:], lambda t: t.transpose(0, -1) if t.ndim > 1 else t[::2],
          lambda t: t.unsqueeze(0)[0], lambda t: t.view(-1) if t.is_contiguous() else t[..., :1],
          lambda t: t.select(0, 0) if t.ndim > 1 else t[1:]]


def random_steps(seed: int) -> list:
    """A program of ``seed``: each step makes a view, a dual handle or a detached alias of a tensor of
    the pool (tensor 0 is a plain (2, 6) base), or writes one tensor of the pool with another's value."""
    import random
    rnd = random.Random(seed)
    steps, n = [], 1
    for _ in range(rnd.randint(3, 8)):
        r, src = rnd.random(), rnd.randrange(n)
        if r < 0.55:
            steps.append(("view", src, rnd.randrange(5)) if r < 0.35 else
                         ("dual", src, rnd.randrange(1000)) if r < 0.5 else ("detach", src, 0))
            n += 1
        else:
            steps.append(("write", src, (rnd.randrange(n), rnd.randrange(4))))
    return steps


def _tangent_values(seed: int, shape: tuple) -> list:
    import numpy as np
    return np.random.default_rng(seed).standard_normal(shape).tolist()


def run_random(lib: Any, seed: int, device: Any = None, dtype: Any = None) -> list:
    """Every tensor of the pool at the end of program ``seed``: ``[values, tangent or None]``."""
    dtype = dtype or lib.float64
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        pool = [lib.tensor([[i / 5.5 - 1 for i in range(6 * j, 6 * j + 6)] for j in range(2)], dtype=dtype,
                           device=device)]
        for kind, src, arg in random_steps(seed):
            s = pool[src]
            if kind == "view":
                pool.append(_VIEWS[arg](s))
            elif kind == "dual":  # (a tensor that already has a tangent gets a fresh copy instead)
                tangent = lib.tensor(_tangent_values(arg, tuple(s.shape)), dtype=dtype, device=device)
                pool.append(s * 1 if fw.unpack_dual(s).tangent is not None else fw.make_dual(s, tangent))
            elif kind == "detach":
                pool.append(s.detach())
            else:
                other, how = arg
                o = pool[other]
                value = o.sin() * 1 if tuple(o.shape) == tuple(s.shape) else o.sin().sum() + 0.5
                (s.mul_, s.add_, s.copy_, lambda _, t=s: t.mul_(2.0))[how](value)
        return [_plain(lib, fw, t) for t in pool]
