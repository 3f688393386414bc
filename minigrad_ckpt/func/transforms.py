"""Function transforms: ``jvp``, ``vjp``, ``grad``, ``jacfwd``, ``jacrev``, ``hessian``, ...

Names and semantics follow JAX and ``torch.func``: a transform takes a
function of Tensors that returns a Tensor or a tuple of Tensors, and returns
values, or a new function.  Forward mode (``jvp``, ``jacfwd``) pushes
tangents beside the values (:mod:`.forward`); reverse mode (``vjp``,
``grad``, ``jacrev``) records the tape and runs backward.  They compose:
``hessian(f) = jacfwd(jacrev(f))`` runs forward mode over a backward pass.

Every transform differentiates only through the function's *arguments*: a
tensor the function closes over is a constant to it, even if it is also an
argument of an outer transform (no "perturbation confusion").  The results
are plain tensors unless something outside the transform needs their
history (an outer ``grad``, a tensor that requires grad).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import functional as _F
from .. import random as _random
from ..creation import tensor as _make_tensor
from ..grad_mode import enable_grad
from ..grad_mode import forward_mode as _forward
from ..grad_mode import state as _grad_state
from ..tape import grad as _tape_grad
from ..tensor import Tensor
from .forward import _alias, enter_level, exit_level, make_dual, strip_level, tangent_of

__all__ = ["jvp", "vjp", "grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian",
           "hvp", "linearize"]


# ---------------------------------------------------------------------------
# Arguments and results
# ---------------------------------------------------------------------------
def _flatten(result: Any, what: str) -> tuple[list[Tensor], bool]:
    """``(tensors, single)``: a function's result as a list, and whether it was one Tensor."""
    if isinstance(result, Tensor):
        return [result], True
    if isinstance(result, (tuple, list)):
        for i, r in enumerate(result):
            if not isinstance(r, Tensor):
                raise TypeError(f"{what}: output {i} of the function is a {type(r).__name__}; "
                                f"it must return a Tensor or a tuple of Tensors")
        return list(result), False
    raise TypeError(f"{what}: the function returned a {type(result).__name__}; it must return "
                    f"a Tensor or a tuple of Tensors")


def _unflatten(tensors: Sequence[Any], single: bool) -> Any:
    return tensors[0] if single else tuple(tensors)


def _split_aux(result: Any, has_aux: bool, what: str) -> tuple[Any, Any]:
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise TypeError(f"{what}(has_aux=True): the function must return a pair (output, aux)")
    return result


def _as_tensor(x: Any, what: str) -> Tensor:
    t = x if isinstance(x, Tensor) else _make_tensor(x)
    return t


def _floating(t: Tensor, what: str, i: int) -> None:
    if t.dtype.kind != "f":
        raise TypeError(f"{what}: primal {i} is {t.dtype}; only floating-point tensors can be "
                        f"differentiated")


def _sequence(x: Any, what: str, name: str) -> tuple:
    if isinstance(x, (tuple, list)):
        return tuple(x)
    raise TypeError(f"{what}: {name} must be a tuple (or list) of tensors, one per argument, "
                    f"got a {type(x).__name__}")


def _connected(t: Any) -> bool:
    """True if ``t`` or one of its open-level tangents is on a tape someone outside may walk."""
    if not isinstance(t, Tensor):
        return False
    if t._requires_grad and _grad_state.enabled:
        return True
    if t._tangents:
        return any(_connected(v) for k, v in t._tangents.items() if k in _forward.levels)
    return False


def _has_tangents(t: Any) -> bool:
    return isinstance(t, Tensor) and bool(t._tangents) and not _forward.levels.isdisjoint(t._tangents)


def _plain(t: Tensor) -> Tensor:
    """``t`` cut off the tape, with its tangents (themselves cut off) kept."""
    if not t._requires_grad and not t._tangents:
        return t
    d = Tensor._wrap(t._data, None, t._device)
    d._version = t._version
    if t._tangents:
        d._tangents = {k: _plain(v) for k, v in t._tangents.items() if k in _forward.levels} or None
    return d


def _argnums(argnums: Any, n: int, what: str) -> tuple[tuple[int, ...], bool]:
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if not nums:
        raise ValueError(f"{what}: argnums is empty")
    out = []
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{what}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -n <= a < n:
            raise ValueError(f"{what}: argnums {a} is out of range for {n} positional arguments")
        out.append(a % n)
    return tuple(out), single


def _restrict(f: Callable, args: tuple, nums: tuple[int, ...]) -> Callable:
    """``f`` as a function of the arguments at positions ``nums`` only."""
    def g(*diff: Any) -> Any:
        full = list(args)
        for i, a in zip(nums, diff):
            full[i] = a
        return f(*full)

    return g


# ---------------------------------------------------------------------------
# Forward mode
# ---------------------------------------------------------------------------
def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False) -> tuple:
    """``(f(*primals), J @ tangents)``: a Jacobian-vector product in one forward pass.

    ``primals`` and ``tangents`` are tuples with one tensor per argument of
    ``f`` (a tangent has its primal's shape).  The tangents are pushed through
    the ops beside the values; no tape is recorded for them, so the cost is
    about that of two evaluations of ``f``, whatever the number of outputs.
    Returns ``(outputs, output_tangents)`` in ``f``'s output structure (and
    the ``aux`` output third with ``has_aux=True``).  An output that does not
    depend on the primals gets a zero tangent.
    """
    primals = _sequence(primals, "jvp", "primals")
    tangents = _sequence(tangents, "jvp", "tangents")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: got {len(primals)} primals but {len(tangents)} tangents")
    ps = [_as_tensor(p, "jvp") for p in primals]
    ts = []
    for i, (p, t) in enumerate(zip(ps, tangents)):
        _floating(p, "jvp", i)
        t = t if isinstance(t, Tensor) else _make_tensor(t, dtype=p.dtype, device=p.device)
        if t.shape != p.shape:
            raise ValueError(f"jvp: tangent {i} has shape {t.shape} but its primal has shape {p.shape}")
        if t.device is not p.device:
            raise ValueError(f"jvp: tangent {i} is on {t.device} but its primal is on {p.device}")
        if t.dtype != p.dtype:
            t = _F.astype(t, p.dtype)
        ts.append(t)
    level = enter_level()
    try:
        duals = [make_dual(p, t, level) for p, t in zip(ps, ts)]
        result, aux = _split_aux(f(*duals), has_aux, "jvp")
        outs, single = _flatten(result, "jvp")
        out_tangents = []
        for o in outs:
            t = tangent_of(o, level)
            out_tangents.append(_F.zeros_like(o) if t is None else t)
        for o in outs:
            strip_level(o, level)
    finally:
        exit_level(level)
    res = (_unflatten(outs, single), _unflatten(out_tangents, single))
    return res + (aux,) if has_aux else res


def jacfwd(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The Jacobian of ``f`` by forward mode: one ``jvp`` per input element.

    ``jacfwd(f)(x)`` has shape ``out.shape + x.shape``.  With a tuple
    ``argnums`` the result is a tuple (one Jacobian per argument); with
    several outputs, a tuple per output (of tuples per argument).  Cheap when
    the inputs are few and the outputs many; ``jacrev`` is the other way round.
    The random generator is rewound before each pass, so every column sees
    the same dropout masks.
    """
    def jac(*args: Any) -> Any:
        nums, single_arg = _argnums(argnums, len(args), "jacfwd")
        args = tuple(_as_tensor(a, "jacfwd") if i in nums else a for i, a in enumerate(args))
        rng = _random.get_rng_state()
        per_arg = []  # per argument: (outputs, single, [Jacobian per output], aux)
        for k in nums:
            p = args[k]
            _floating(p, "jacfwd", k)
            g = _restrict(f, args, (k,))
            columns: list[list[Tensor]] = []
            outs = single = aux = None
            n = p.size
            for j in range(max(n, 1)):
                _random.set_rng_state(rng)
                e = p.device.xp.zeros(p.shape, dtype=p.dtype)
                if n:
                    e.reshape(-1)[j] = 1
                res = jvp(g, (p,), (Tensor._wrap(e, None, p.device),), has_aux=has_aux)
                o, t = res[0], res[1]
                if has_aux:
                    aux = res[2]
                o_list, single = _flatten(o, "jacfwd")
                t_list, _ = _flatten(t, "jacfwd")
                if outs is None:
                    outs = o_list
                    columns = [[] for _ in o_list]
                if n:
                    for c, ti in zip(columns, t_list):
                        c.append(ti)
            jacs = []
            for o, c in zip(outs, columns):
                if n and o.size:
                    jacs.append(_F.reshape(_F.stack(c, axis=-1), o.shape + p.shape))
                else:
                    jacs.append(_zeros(o.shape + p.shape, o))
            per_arg.append((outs, single, jacs, aux))
        single_out = per_arg[0][1]
        n_out = len(per_arg[0][2])
        table = [[per_arg[a][2][i] for a in range(len(nums))] for i in range(n_out)]
        result = _table(table, single_out, single_arg)
        return (result, per_arg[0][3]) if has_aux else result

    return jac


def _zeros(shape: tuple[int, ...], like: Tensor) -> Tensor:
    return Tensor._wrap(like.device.xp.zeros(shape, dtype=like.dtype), None, like.device)


def _table(table: list[list[Tensor]], single_out: bool, single_arg: bool) -> Any:
    rows = [row[0] if single_arg else tuple(row) for row in table]
    return rows[0] if single_out else tuple(rows)


# ---------------------------------------------------------------------------
# Reverse mode
# ---------------------------------------------------------------------------
def _reverse_input(p: Tensor, i: int, what: str) -> Tensor:
    """A fresh handle on ``p`` that requires grad: gradients are taken with respect to it."""
    _floating(p, what, i)
    if p._requires_grad and _grad_state.enabled:
        return _alias(p)  # on the tape: an outer backward still reaches p through it
    x = Tensor._wrap(p._data, None, p._device)
    x._version = p._version
    x._requires_grad = True
    if p._tangents:
        x._tangents = dict(p._tangents)
    return x


def vjp(f: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(f(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` is ``J^T @ cotangents``.

    ``f`` runs once and its tape is kept; each ``vjp_fn`` call is one backward
    pass, whatever the number of inputs.  ``cotangents`` has ``f``'s output
    structure (one tensor per output, each of its output's shape);
    ``vjp_fn`` returns a tuple with one gradient per primal (zeros for a
    primal the outputs do not depend on).  With ``has_aux=True`` the result is
    ``(output, vjp_fn, aux)``.
    """
    ps = [_as_tensor(p, "vjp") for p in primals]
    outer = any(_connected(p) for p in ps)
    with enable_grad():
        ins = [_reverse_input(p, i, "vjp") for i, p in enumerate(ps)]
        result, aux = _split_aux(f(*ins), has_aux, "vjp")
    outs, single = _flatten(result, "vjp")

    def vjp_fn(cotangents: Any) -> tuple:
        cts, _ = _flatten(cotangents, "vjp_fn") if not single else ([cotangents], True)
        if len(cts) != len(outs):
            raise ValueError(f"vjp_fn: got {len(cts)} cotangents for {len(outs)} outputs")
        pairs = []
        for i, (o, c) in enumerate(zip(outs, cts)):
            c = c if isinstance(c, Tensor) else _make_tensor(c, dtype=o.dtype, device=o.device)
            if c.shape != o.shape:
                raise ValueError(f"vjp_fn: cotangent {i} has shape {c.shape} but output {i} has "
                                 f"shape {o.shape}")
            if o._requires_grad and o.dtype.kind == "f":
                pairs.append((o, c))
        # Keep the backward on Tensors when the result is differentiated again:
        # by an outer reverse pass, or by forward mode (hessian = jacfwd(jacrev)).
        outer_here = outer or any(_connected(c) for _, c in pairs)
        graph = outer_here or any(_has_tangents(x) for x in ins) or any(_has_tangents(c) for _, c in pairs)
        with enable_grad():
            if pairs:
                gs = _tape_grad([o for o, _ in pairs], ins, grad_outputs=[c for _, c in pairs],
                                retain_graph=True, create_graph=graph, allow_unused=True)
            else:
                gs = (None,) * len(ins)
        res = []
        for p, g in zip(ps, gs):
            g = _F.zeros_like(p) if g is None else g
            res.append(g if outer_here else _plain(g))
        return tuple(res)

    shown = _unflatten(outs if outer else [_plain(o) for o in outs], single)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False) -> Callable:
    """A function returning ``(f(*args), grad(f)(*args))`` from one forward and one backward.

    ``f`` must return a one-element tensor (a scalar loss).  With
    ``has_aux=True``, ``f`` returns ``(loss, aux)`` and the value is that pair.
    """
    def vg(*args: Any) -> tuple:
        nums, single_arg = _argnums(argnums, len(args), "grad")
        g = _restrict(f, args, nums)
        res = vjp(g, *[args[i] for i in nums], has_aux=has_aux)
        out, fn = res[0], res[1]
        if not isinstance(out, Tensor) or out.size != 1:
            shape = out.shape if isinstance(out, Tensor) else type(out).__name__
            raise RuntimeError(f"grad: the function must return a one-element tensor (a scalar), "
                               f"got {shape}; use jacrev or vjp for other outputs")
        grads = fn(_F.ones_like(out))
        value = (out, res[2]) if has_aux else out
        return value, (grads[0] if single_arg else grads)

    return vg


def grad(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The gradient of a scalar function: ``grad(f)(x)`` has ``x``'s shape.

    With a tuple ``argnums``, a tuple of gradients; with ``has_aux=True``,
    ``(gradient, aux)``.  ``grad(grad(f))`` is a second derivative.
    """
    vg = value_and_grad(f, argnums, has_aux=has_aux)

    def g(*args: Any) -> Any:
        value, grads = vg(*args)
        return (grads, value[1]) if has_aux else grads

    return g


def jacrev(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The Jacobian of ``f`` by reverse mode: one forward, one backward per output element.

    Shapes and structure as :func:`jacfwd`.  Cheap when the outputs are few
    and the inputs many (a gradient is one row).
    """
    def jac(*args: Any) -> Any:
        nums, single_arg = _argnums(argnums, len(args), "jacrev")
        ps = [_as_tensor(args[i], "jacrev") for i in nums]
        full = list(args)
        for i, p in zip(nums, ps):
            full[i] = p
        res = vjp(_restrict(f, tuple(full), nums), *ps, has_aux=has_aux)
        out, fn = res[0], res[1]
        outs, single_out = _flatten(out, "jacrev")
        table = []
        for i, o in enumerate(outs):
            rows: list[tuple] = []
            for r in range(o.size):
                cts = []
                for j, oj in enumerate(outs):
                    seed = oj.device.xp.zeros(oj.shape, dtype=oj.dtype)
                    if j == i:
                        seed.reshape(-1)[r] = 1
                    cts.append(Tensor._wrap(seed, None, oj.device))
                rows.append(fn(_unflatten(cts, single_out)))
            row = []
            for a, p in enumerate(ps):
                if rows and p.size:
                    row.append(_F.reshape(_F.stack([r[a] for r in rows], axis=0), o.shape + p.shape))
                else:
                    row.append(_zeros(o.shape + p.shape, p))
            table.append(row)
        result = _table(table, single_out, single_arg)
        return (result, res[2]) if has_aux else result

    return jac


jacobian = jacrev


def hessian(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The Hessian of a scalar function, forward-over-reverse: ``jacfwd(jacrev(f))``.

    ``hessian(f)(x)`` has shape ``x.shape + x.shape``.  Each of its
    ``x.size`` columns is one forward-mode pass over one backward pass.  With
    a tuple ``argnums``, a tuple of tuples (the blocks ``d2f / dx_i dx_j``);
    with ``has_aux=True``, ``(hessian, aux)``.
    """
    return jacfwd(jacrev(f, argnums, has_aux=has_aux), argnums, has_aux=has_aux)


def hvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple:
    """``(f(*primals), H @ tangents)`` for a scalar ``f``, without forming ``H``.

    Forward-over-reverse: one ``jvp`` of the gradient, about the cost of a
    few evaluations of ``f``.  The product is a tuple with one tensor per
    primal, like the gradient with respect to all of them (the
    ``torch.autograd.functional.hvp`` result; JAX's cookbook ``hvp`` is its
    second item).
    """
    primals = _sequence(primals, "hvp", "primals")
    tangents = _sequence(tangents, "hvp", "tangents")
    vg = value_and_grad(f, tuple(range(len(primals))))

    def value_and_gradient(*args: Any) -> tuple:
        value, grads = vg(*args)
        return (value, *grads)

    outs, tans = jvp(value_and_gradient, primals, tangents)
    return outs[0], tuple(tans[1:])


def linearize(f: Callable, *primals: Any) -> tuple:
    """``(f(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is ``J @ tangents`` at ``primals``.

    ``f`` runs once.  ``jvp_fn`` does not run it again: it differentiates the
    recorded backward pass ``u -> J^T u`` (which is linear in ``u``) once more,
    in the direction of the tangents -- one backward pass per call, using the
    tape, so the result never depends on state ``f`` would read again (the
    random generator, module buffers).
    """
    ps = [_as_tensor(p, "linearize") for p in primals]
    with enable_grad():
        ins = [_reverse_input(p, i, "linearize") for i, p in enumerate(ps)]
        outs, single = _flatten(f(*ins), "linearize")
        live = [o for o in outs if o._requires_grad and o.dtype.kind == "f"]
        # The seed u is a leaf (ones: any value works, the map is linear in u).
        us = [Tensor._wrap(o.device.xp.ones(o.shape, dtype=o.dtype), None, o.device).requires_grad_()
              for o in live]
        gs = (_tape_grad(live, ins, grad_outputs=us, create_graph=True, allow_unused=True)
              if live else (None,) * len(ins))

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(ps):
            raise ValueError(f"jvp_fn: got {len(tangents)} tangents for {len(ps)} primals")
        pairs = []
        for i, (p, g, t) in enumerate(zip(ps, gs, tangents)):
            t = t if isinstance(t, Tensor) else _make_tensor(t, dtype=p.dtype, device=p.device)
            if t.shape != p.shape:
                raise ValueError(f"jvp_fn: tangent {i} has shape {t.shape} but primal {i} has "
                                 f"shape {p.shape}")
            if g is not None and g._requires_grad:
                pairs.append((g, t))
        with enable_grad():
            if pairs:
                ds = _tape_grad([g for g, _ in pairs], us, grad_outputs=[t for _, t in pairs],
                                retain_graph=True, allow_unused=True)
            else:
                ds = (None,) * len(us)
        found = {id(o): d for o, d in zip(live, ds)}
        res = []
        for o in outs:
            d = found.get(id(o))
            res.append(_zeros(o.shape, o) if d is None else d)
        return _unflatten(res, single)

    return _unflatten([_plain(o) for o in outs], single), jvp_fn
