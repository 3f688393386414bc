"""In-place writes that a function under ``vmap`` makes into a tensor it closes over (or an argument
passed whole, ``in_dims=None``), written once for torch and minigrad_ckpt: ``run(lib, name, device,
dtype)`` returns ``{"out": values, "buffer": values}`` or ``{"error": type name, "message": ...}``.
``make_torch_seams.py`` records torch's answers (on the CPU, float64 and float32);
``tests/test_vmap_captured_writes.py`` replays them on the CPU and the strict devices.

torch's batching refuses a batched value (one made from the mapped arguments) written into an
unbatched tensor, and writes an unbatched value once for the batch.
"""

from __future__ import annotations

from typing import Any

X = [[0.5, -1.0], [2.0, 0.25], [-1.5, 3.0]]


def _add_batched(lib, buf, xs):
    return lib.func.vmap(lambda x: buf.add_(x))(xs)


def _copy_batched(lib, buf, xs):
    return lib.func.vmap(lambda x: buf.copy_(x * 2))(xs)


def _setitem_batched(lib, buf, xs):
    def f(x):
        buf[0] = x[1]
        return x * 2
    return lib.func.vmap(f)(xs)


def _mul_view_batched(lib, buf, xs):
    return lib.func.vmap(lambda x: (buf[0:1].mul_(x[0]), x.sin())[1])(xs)


def _add_into_unmapped_argument(lib, buf, xs):
    return lib.func.vmap(lambda x, b: b.add_(x.exp()), in_dims=(0, None))(xs, buf)


def _add_batched_under_no_grad_in_grad(lib, buf, xs):
    def loss(x):
        with lib.no_grad():
            buf.add_(x.detach())
        return (x * x).sum()
    return lib.func.vmap(lib.func.grad(loss))(xs)


def _add_batched_in_a_checkpoint(lib, buf, xs):
    xs = xs.clone().requires_grad_(True)
    out = lib.utils.checkpoint.checkpoint(lambda a: lib.func.vmap(lambda x: buf.add_(x) * x)(a), xs,
                                          use_reentrant=False)
    out.sum().backward()
    return xs.grad


def _fill_captured(lib, buf, xs):
    return lib.func.vmap(lambda x: (buf.fill_(3.0), x * 2)[1])(xs)


def _setitem_number_captured(lib, buf, xs):
    def f(x):
        buf[1] = 7.0
        return x.cos()
    return lib.func.vmap(f)(xs)


def _writes_into_own_tensors(lib, buf, xs):
    def f(x):
        y = x.clone()
        y.add_(buf)  # a captured tensor read, the function's own written
        y[0:1].mul_(x[1])
        return x.mul_(2) + y  # the mapped argument's slice written: the example's own
    return lib.func.vmap(f)(xs.clone())


PROGRAMS = {
    "add_ of a batched value": _add_batched,
    "copy_ of a batched value": _copy_batched,
    "__setitem__ of a batched value": _setitem_batched,
    "mul_ of a view by a batched value": _mul_view_batched,
    "add_ into an argument with in_dims=None": _add_into_unmapped_argument,
    "add_ under no_grad inside grad inside vmap": _add_batched_under_no_grad_in_grad,
    "add_ of a batched value inside a checkpoint": _add_batched_in_a_checkpoint,
    "fill_ of a number": _fill_captured,
    "__setitem__ of a number": _setitem_number_captured,
    "writes into the function's own tensors": _writes_into_own_tensors,
}

#: torch writes the value once for the batch; the engine, whose vmap calls the function once per
#: example, refuses (it would add once per example): the programs, not in PROGRAMS's comparison
REPEATED = {
    "add_ of a number": lambda lib, buf, xs: lib.func.vmap(lambda x: (buf.add_(1.0), x * 2)[1])(xs),
    "relu_": lambda lib, buf, xs: lib.func.vmap(lambda x: (buf.relu_(), x * 2)[1])(xs),
}


def _plain(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_plain(u) for u in v]
    return v.detach().cpu().tolist()


def run(lib: Any, name: str, device: str = "cpu", dtype: str = "float64") -> Any:
    buf = lib.tensor([1.0, -2.0], dtype=getattr(lib, dtype), device=device)
    xs = lib.tensor(X, dtype=getattr(lib, dtype), device=device)
    try:
        out = {**PROGRAMS, **REPEATED}[name](lib, buf, xs)
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"out": _plain(out), "buffer": _plain(buf)}
