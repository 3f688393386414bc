"""Random whole programs that mix the seams, written once for torch and minigrad_ckpt.

A program of ``seed`` is a list of steps over a pool of (2, 3) tensors (two leaves that require grad,
one plain tensor): elementwise ops, ``detach``, ops under ``no_grad``, in-place writes through views
(recorded, or under ``no_grad``), tensor hooks, ``retain_grad``, a ``checkpoint`` (non-reentrant) of a
function that writes its own tensors in place and closes over the pool, and the transforms
``grad``, ``jvp``, ``vmap`` and ``vmap(grad)`` of functions closing over the pool.  The end sums the
pool into a loss and runs ``backward``.  ``run(lib, seed)`` returns what the program observed: every
pool tensor's values, the leaves' and the retained gradients, what the hooks saw -- or the error of
the step that raised, by type.

``make_torch_seams.py`` records torch 2.13's answers (``seam_mix``);
``tests/test_seam_mix_programs.py`` replays the programs on the engine.  detach, no_grad and hooks
change the gradients from the function's derivative, so central differences cannot judge these:
torch is the reference.
"""

from __future__ import annotations

import random
from typing import Any

SEEDS = range(200)

#: unary, shape-keeping functions (numbered: a step names one by its index)
UNARY = [lambda x: x.sin(), lambda x: x * x, lambda x: x.tanh(), lambda x: (x * 0.3).exp(),
         lambda x: x * 1.5 - 0.25]
#: views of a (2, 3) tensor that a write may go through (the same view of the value is written)
VIEWS = [lambda t: t, lambda t: t[0], lambda t: t[:, 1:], lambda t: t.t(), lambda t: t.select(1, 2),
         lambda t: t.view(-1)[::2] if t.is_contiguous() else t[1]]


def _checkpointed(k: int, closure: Any) -> Any:
    """A segment body: the function's own tensors written in place, the pool read."""
    def body(x: Any) -> Any:
        y = x * closure
        if k == 0:
            y.mul_(2.0)
            return y.sin()
        if k == 1:
            y[0].add_(x[1])
            return y * x
        z = x.clone()
        z[:, :2].mul_(closure[:, 1:])
        return z.tanh() + y
    return body


def random_steps(seed: int) -> list:
    rnd = random.Random(seed)
    steps, n = [], 3
    for _ in range(rnd.randint(3, 9)):
        src, other, k = rnd.randrange(n), rnd.randrange(n), rnd.randrange(len(UNARY))
        kind = rnd.choice(["unary", "unary", "binary", "detach", "nograd", "write", "write", "hook", "retain",
                           "checkpoint", "grad", "jvp", "vmap", "vmap_grad"])
        if kind == "write":  # (mostly into a tensor that is not a leaf: torch refuses a leaf's)
            src = rnd.randrange(2, n) if rnd.random() < 0.85 else src
            steps.append((kind, src, other, (rnd.randrange(len(VIEWS)), rnd.randrange(4), rnd.random() < 0.3)))
        else:
            steps.append((kind, src, other, k))
        n += kind not in ("write", "hook", "retain")
    return steps


def start_values(s: int) -> list:
    return [[(i * 7 + s) % 11 / 5.5 - 1 for i in range(3 * j, 3 * j + 3)] for j in range(2)]


#: the step kinds of a program that is a function of its two leaves (no detach, no_grad, hooks):
#: its gradients are the derivatives of its loss
PURE_KINDS = ("unary", "binary", "write", "checkpoint", "grad", "jvp", "vmap", "vmap_grad")


class _Run:
    def __init__(self, lib: Any, dtype: Any, leaves: Any = None, device: Any = "cpu") -> None:
        self.lib, self.dtype = lib, dtype
        a, b = leaves if leaves is not None else (start_values(1), start_values(4))
        self.pool = [lib.tensor(v, dtype=dtype, device=device) for v in (a, b, start_values(9))]
        self.pool[0].requires_grad_()
        self.pool[1].requires_grad_()
        self.hooked: list = []  # what each hook saw, in the order they ran
        self.retained: list = []

    def step(self, kind: str, src: int, other: int, k: Any) -> None:
        lib, pool, s, o = self.lib, self.pool, self.pool[src], self.pool[other]
        if kind == "unary":
            pool.append(UNARY[k](s))
        elif kind == "binary":
            pool.append(s * o if k % 2 else s + o)
        elif kind == "detach":
            pool.append(s.detach())
        elif kind == "nograd":
            with lib.no_grad():
                pool.append(UNARY[k](s))
        elif kind == "write":
            self.write(s, o, *k)
        elif kind == "hook":
            if s.requires_grad:
                s.register_hook(self.hook(k % 2))
        elif kind == "retain":
            if s.requires_grad and s.grad_fn is not None:
                s.retain_grad()
                self.retained.append(s)
        elif kind == "checkpoint":
            pool.append(lib.utils.checkpoint.checkpoint(_checkpointed(k % 3, o), s, use_reentrant=False))
        else:
            pool.append(self.transform(kind, s, o, k))

    def write(self, s: Any, o: Any, view: int, how: int, no_grad: bool) -> None:
        target, value = VIEWS[view](s), VIEWS[view](o).cos()
        with self.lib.no_grad() if no_grad else _nothing():
            if how == 0:
                target.mul_(value)
            elif how == 1:
                target.add_(value * 0.5)
            elif how == 2:
                target.copy_(value)
            else:
                target[0] = 0.75

    def hook(self, doubles: int) -> Any:
        def seen(g: Any) -> Any:
            self.hooked.append(g.detach().cpu().tolist())
            return g * 2 if doubles else None
        return seen

    def transform(self, kind: str, s: Any, o: Any, k: int) -> Any:
        fn, F = UNARY[k], self.lib.func
        if kind == "grad":
            return F.grad(lambda x: (fn(x) * o).sum())(s)
        if kind == "jvp":  # (not of the affine function: its tangent has no history here, torch's has one)
            return F.jvp(UNARY[k % 4], (s,), (o.cos(),))[1]
        if kind == "vmap":
            return F.vmap(lambda r: fn(r) * o[0])(s)
        return F.vmap(F.grad(lambda r: (fn(r) * o[0]).sum()))(s)

    def loss(self) -> Any:
        loss = None
        for i, t in enumerate(self.pool):
            if t.requires_grad:
                term = (t * (0.1 * (i + 1))).sum()
                loss = term if loss is None else loss + term
        return loss

    def end(self) -> None:
        loss = self.loss()
        if loss is not None:
            loss.backward()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _plain(t: Any) -> Any:
    return None if t is None else t.detach().cpu().tolist()


def run_pure(lib: Any, steps: list, leaves: Any = None) -> tuple:
    """A program of :data:`PURE_KINDS` steps at the leaves' values ``leaves`` (float64): its loss and
    the leaves' gradients."""
    r = _Run(lib, lib.float64, leaves)
    for step in steps:
        r.step(*step)
    loss = r.loss()
    loss.backward()
    return loss.item(), [t.grad.tolist() for t in r.pool[:2]]


def run(lib: Any, seed: int, dtype: Any = None, device: Any = "cpu") -> dict:
    r = _Run(lib, dtype or lib.float64, device=device)
    steps = random_steps(seed)
    for i, step in enumerate(steps + [("end", 0, 0, 0)]):
        try:
            r.end() if step[0] == "end" else r.step(*step)
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            return {"error": "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__, "step": i,
                    "message": str(e)[:300]}
    return {"pool": [_plain(t) for t in r.pool], "requires_grad": [bool(t.requires_grad) for t in r.pool],
            "leaf_grads": [_plain(t.grad) for t in r.pool[:2]], "retained": [_plain(t.grad) for t in r.retained],
            "hooked": r.hooked}
