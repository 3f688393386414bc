"""Random programs that nest function transforms and close over tensors, written once for two engines.

A program maps a float64 vector ``x`` (``n`` elements) to a vector of ``n``
elements.  It is a stack of *levels*: level ``i`` applies a transform (``grad``,
``jacrev``, ``jvp``, ``hessian``, ...) to the function of the level below,
which *closes over* the current variable and every outer one, at a point that is
either that variable itself or a constant; then it mixes the derivative back
into its variable (a level may run as a checkpointed segment, ``segments``: its
transform's backward pass then runs while the segment is recording).  The
innermost level is a body of smooth ops that reads every closed-over variable
and a parameter ``w`` (which may require grad), optionally through a module (a
Linear layer, a BatchNorm in training or evaluation mode), a checkpointed
segment, dropout with a fixed generator and in-place writes.

A program is plain data (a *spec*, JSON-able), so ``tests/data/
make_torch_func_reference.py`` builds the same program on ``torch.func`` and
``tests/test_func_vs_torch_func.py`` / ``tests/test_func_random_programs.py``
build it on ``mg.func``.  An *engine* supplies the ops and transforms
(:class:`MgEngine` here; the torch one lives in the fixture maker).

The file name does not start with ``test_``: pytest never collects it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: transforms both engines have; ``tape_grad`` / ``tape_backward`` are mg's tape
#: (``mg.grad(..., create_graph=True)`` / ``.backward(create_graph=True)``) inside a program
KINDS = ["grad", "value_and_grad", "vjp", "jacrev", "jacfwd", "jvp", "hessian", "hvp", "linearize"]
TAPE_KINDS = ["tape_grad", "tape_backward"]
FORWARD_KINDS = {"jvp", "jacfwd"}
BODY_OPS = ["sin", "tanh_mat", "exp", "cube"]
MIXES = ["mul", "add", "tanh"]
MODULES = [None, "linear", "bn_train", "bn_eval"]
OUTERS = ["grad", "jacrev", "jacfwd", "jvp", "vjp", "hessian", "mg_grad", "backward"]
FORWARD_OUTERS = {"jacfwd", "jvp"}


def random_spec(rng: np.random.Generator, n: int = 3, mg_only: bool = True) -> dict:
    """A program spec drawn from ``rng`` (``mg_only``: with features torch.func lacks)."""
    kinds_pool = KINDS + (TAPE_KINDS if mg_only else [])
    depth = int(rng.integers(2, 4))
    kinds = [str(rng.choice(kinds_pool)) for _ in range(depth)]
    return {
        "n": n,
        "kinds": kinds,
        "at_point": [bool(rng.integers(2)) and k not in TAPE_KINDS for k in kinds],
        "mix": [str(rng.choice(MIXES)) for _ in kinds],
        "body": [str(b) for b in rng.choice(BODY_OPS, size=int(rng.integers(1, 3)))],
        "param_grad": bool(rng.integers(2)),
        "module": MODULES[int(rng.integers(len(MODULES)))],
        "inplace": mg_only and bool(rng.integers(4) == 0),
        "checkpoint": mg_only and bool(rng.integers(3) == 0),
        "dropout": mg_only and bool(rng.integers(3) == 0),
        "outer": str(rng.choice(OUTERS if mg_only else OUTERS[:6])),
        "seed": int(rng.integers(1000)),
        **values(rng, n),
    }


def values(rng: np.random.Generator, n: int) -> dict:
    """The numbers of a program: its input, directions, constants and weights."""
    def vec(scale: float = 1.0) -> list:
        return (rng.standard_normal(n) * scale).round(3).tolist()

    return {"x": vec(0.8), "u": vec(), "u2": vec(), "c": vec(), "v": vec(), "p0": vec(0.8), "w": vec(0.7),
            "Wc": (rng.standard_normal((n, n)) * 0.6).round(3).tolist(),
            "W": (rng.standard_normal((n, n)) * 0.6).round(3).tolist(), "b": vec(0.3)}


def has_reverse(spec: dict) -> bool:
    """True if some part of the program runs reverse mode (the tape records its values)."""
    return (any(k not in FORWARD_KINDS for k in spec["kinds"]) or spec["outer"] not in FORWARD_OUTERS
            or spec["param_grad"])


def backward_inside_transform(spec: dict) -> bool:
    """True if a ``tape_backward`` level runs inside an ``mg.func`` transform -- an enclosing level's
    or the outer derivative's -- where ``backward()`` is refused, as PyTorch refuses it."""
    outer_transforms = spec["outer"] not in ("mg_grad", "backward")
    return any(k == "tape_backward" and (outer_transforms or any(e not in TAPE_KINDS for e in spec["kinds"][:i]))
               for i, k in enumerate(spec["kinds"]))


# ---------------------------------------------------------------------------
# The program, on any engine
# ---------------------------------------------------------------------------
def _body(E: Any, spec: dict, z: Any, env: list, closures: dict) -> Any:
    w, Wc = closures["w"], closures["Wc"]
    for e in env:
        z = z * (1.0 + 0.3 * E.sin(e))
    for op in spec["body"]:
        if op == "sin":
            z = E.sin(z * w) * z
        elif op == "tanh_mat":
            z = E.tanh(E.matmul(Wc, z)) + 0.5 * z
        elif op == "exp":
            z = E.exp(-0.5 * z * z) * w + z
        else:
            z = z ** 3 * 0.3 + z * w
    if spec["module"] == "linear":
        z = E.tanh(E.linear(z, closures))
    elif spec["module"] in ("bn_train", "bn_eval"):
        z = E.batch_norm(z, closures) * w + z
    if spec.get("checkpoint"):
        z = E.checkpoint(lambda t: E.tanh(t) * t, z)
    if spec.get("dropout"):
        z = E.dropout(z)
    if spec.get("inplace"):
        z = E.inplace(z)
    return z


def _transform(E: Any, kind: str, g: Any, p: Any, u: Any, u2: Any, closures: dict) -> Any:
    def scalar(z):
        return (g(z) * u).sum()

    if kind == "grad":
        return E.grad(scalar)(p)
    if kind == "value_and_grad":
        value, d = E.value_and_grad(scalar)(p)
        return d * E.tanh(value)
    if kind == "vjp":
        return E.vjp(g, p)[1](u)[0]
    if kind == "jacrev":
        return E.matmul(E.jacrev(g)(p), u)
    if kind == "jacfwd":
        return E.matmul(E.jacfwd(g)(p), u)
    if kind == "jvp":
        return E.jvp(g, (p,), (u,))[1]
    if kind == "hessian":
        return E.matmul(E.hessian(scalar)(p), u2)
    if kind == "hvp":
        return E.hvp(scalar, (p,), (u2,))[1][0]
    if kind == "linearize":
        return E.linearize(g, p)[1](u2)
    return E.tape(kind, g, closures, u)


def _mix(E: Any, how: str, y: Any, d: Any) -> Any:
    if how == "mul":
        return y * d
    if how == "add":
        return E.sin(y) + d
    return E.tanh(d) * y + y


def build(E: Any, spec: dict, closures: dict) -> Any:
    """The program of ``spec`` on engine ``E``, closing over ``closures`` (see :meth:`MgEngine.closures`)."""
    top = _level(E, spec, closures, 0, [closures["w"]])

    def program(x):
        E.reseed(spec["seed"])  # the same dropout masks in every evaluation
        return top(x)

    return program


def _transform_by_differences(kind: str, g: Any, p: np.ndarray, u: np.ndarray, u2: np.ndarray) -> np.ndarray:
    """What :func:`_transform` computes, by central differences of ``g`` (NumPy in and out)."""
    def scalar(z):
        return g(z) @ u

    if kind in ("hessian", "hvp"):
        return hessian_by_differences(scalar, p) @ u2
    J = central(g, p, 1e-6)
    if kind in ("grad", "vjp", "tape_grad", "tape_backward"):
        return u @ J
    if kind == "value_and_grad":
        return (u @ J) * np.tanh(scalar(p))
    return J @ (u2 if kind == "linearize" else u)


def check_levels(E: Any, spec: dict, closures: dict, x: Any) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """``(level, engine's value, central differences)`` for the transform of every level.

    Central differences of the whole program check only its outermost
    derivative: the inner derivatives are part of the program's value, so an
    engine that got them wrong would still agree with itself.  Here each
    level's transform is compared with central differences of the function it
    transforms (whose own levels are checked in turn), at the point where the
    program evaluates it -- so every derivative the program produces is checked.
    """
    u, u2, p0 = (np.asarray(spec[k], dtype=np.float64) for k in ("u", "u2", "p0"))
    E.reseed(spec["seed"])
    found = []
    env, y = [closures["w"]], x
    for i, kind in enumerate(spec["kinds"]):
        def g_engine(z, i=i, env=env + [y]):
            return _level(E, spec, closures, i + 1, env)(z)

        point = y if spec["at_point"][i] else E.const(p0)
        if kind in TAPE_KINDS:
            point = E.const(p0)
        state = E.rng_state()  # each evaluation of g draws the same dropout masks as the transform's

        def g_numpy(zn, g=g_engine, state=state):
            E.set_rng_state(state)
            return E.numpy(g(E.const(zn)))

        got = E.numpy(_transform(E, kind, g_engine, point, E.const(u), E.const(u2), closures))
        want = _transform_by_differences(kind, g_numpy, E.numpy(point), u, u2)
        found.append((i, got, want))
        env, y = env + [y], point
    return found


def check_every_level(E: Any, spec: dict, closures: dict, tol: dict) -> None:
    """Assert :func:`check_levels` (the inner derivatives, each against central differences)."""
    for level, got, want in check_levels(E, spec, closures, E.const(spec["x"])):
        rtol = 1e-4 if spec["kinds"][level] in ("hessian", "hvp") else tol["rtol"]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=tol["atol"] * max(1.0, float(np.abs(want).max())),
                                   err_msg=f"level {level} of program {spec}")


def _level(E: Any, spec: dict, closures: dict, i: int, env: list) -> Any:
    u, u2, p0 = (E.const(spec[k]) for k in ("u", "u2", "p0"))

    def h(y):
        if i == len(spec["kinds"]):
            return _body(E, spec, y, env, closures)
        g = _level(E, spec, closures, i + 1, env + [y])
        point = y if spec["at_point"][i] else p0
        return _mix(E, spec["mix"][i], y, _transform(E, spec["kinds"][i], g, point, u, u2, closures))

    if spec.get("segments") and i < len(spec["kinds"]) and spec["segments"][i]:
        # the level as a checkpointed segment: its transform's backward runs while the segment records
        return lambda y: E.checkpoint(h, y)
    return h


def derivative(E: Any, spec: dict, program: Any, x: Any) -> Any:
    """What the outer method of ``spec`` computes, as a NumPy array (see :func:`expected`)."""
    c, v = E.const(spec["c"]), E.const(spec["v"])
    outer = spec["outer"]
    if outer == "grad":
        return E.numpy(E.grad(lambda a: (program(a) * c).sum())(x))
    if outer == "jacrev":
        return E.numpy(E.jacrev(program)(x))
    if outer == "jacfwd":
        return E.numpy(E.jacfwd(program)(x))
    if outer == "jvp":
        return E.numpy(E.jvp(program, (x,), (v,))[1])
    if outer == "vjp":
        return E.numpy(E.vjp(program, x)[1](c)[0])
    if outer == "hessian":
        return E.numpy(E.hessian(lambda a: (program(a) * c).sum())(x))
    return E.outer_tape(outer, program, x, c)


def central(fn: Any, x: np.ndarray, eps: float) -> np.ndarray:
    """The Jacobian of ``fn`` (NumPy in and out) at ``x`` by central differences."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = eps
        cols.append((np.asarray(fn(x + e)) - np.asarray(fn(x - e))) / (2 * eps))
    return np.stack(cols, axis=-1)


def hessian_by_differences(scalar: Any, x: np.ndarray) -> np.ndarray:
    """The Hessian of ``scalar`` (NumPy in, a float out) at ``x``: nested central differences at
    h, h/2 and h/4, extrapolated twice (Richardson's) so that their O(h^2) and O(h^4) errors cancel.

    Plain h = 1e-4 was 3.8e-5 off (past rtol 2e-5) for a batch-normalised pair of close samples, whose
    fourth derivatives are large (x = [0.101, -0.106], bn_train).  The steps stay at 1e-4 and above
    because the rounding error of nested differences grows as 1/h^2: extrapolating once from 5e-5 left
    6e-6 of rounding in a third derivative of cubes (three nested grads of a Linear layer, x = [0.877,
    0.185]) and 8e-6 in a level's Hessian of Hessians of cubes and exponentials (bn_eval).
    """
    def hess(h: float) -> np.ndarray:
        return central(lambda a: central(scalar, a, h), x, h)
    d1, d2, d4 = hess(4e-4), hess(2e-4), hess(1e-4)
    once_coarse, once_fine = (4 * d2 - d1) / 3, (4 * d4 - d2) / 3
    return (16 * once_fine - once_coarse) / 15


def expected(spec: dict, value: Any) -> np.ndarray:
    """What :func:`derivative` must equal, from central differences of the program ``value``
    (a function from a NumPy ``x`` to the program's NumPy output)."""
    x = np.asarray(spec["x"], dtype=np.float64)
    c, v = np.asarray(spec["c"]), np.asarray(spec["v"])
    outer = spec["outer"]
    if outer == "hessian":
        return hessian_by_differences(lambda b: value(b) @ c, x)
    J = central(value, x, 1e-6)
    if outer in ("jacrev", "jacfwd"):
        return J
    if outer == "jvp":
        return J @ v
    return c @ J


# ---------------------------------------------------------------------------
# minigrad_ckpt
# ---------------------------------------------------------------------------
class MgEngine:
    """The engine of :func:`build` on ``minigrad_ckpt``."""

    def __init__(self) -> None:
        import minigrad_ckpt as mg
        import minigrad_ckpt.nn.functional as nnf

        self.mg, self.nnf, F = mg, nnf, mg.func
        self.sin, self.tanh, self.exp, self.matmul = mg.sin, mg.tanh, mg.exp, mg.matmul
        self.grad, self.value_and_grad, self.vjp, self.jacrev = F.grad, F.value_and_grad, F.vjp, F.jacrev
        self.jacfwd, self.jvp, self.hessian, self.hvp, self.linearize = F.jacfwd, F.jvp, F.hessian, F.hvp, F.linearize

    def const(self, values: Any) -> Any:
        return self.mg.tensor(np.asarray(values, dtype=np.float64))

    def numpy(self, t: Any) -> np.ndarray:
        return np.array(t.numpy())

    def reseed(self, seed: int) -> None:
        self.mg.manual_seed(seed)

    def rng_state(self) -> Any:
        return self.mg.get_rng_state()

    def set_rng_state(self, state: Any) -> None:
        self.mg.set_rng_state(state)

    def closures(self, spec: dict, w: Any = None) -> dict:
        """The tensors and modules a program closes over (``w`` overrides the parameter's values)."""
        mg = self.mg
        w = self.const(spec["w"] if w is None else w)
        out = {"w": w.requires_grad_() if spec["param_grad"] else w, "Wc": self.const(spec["Wc"]),
               "p0": spec["p0"]}
        n = spec["n"]
        if spec["module"] == "linear":
            lin = mg.nn.Linear(n, n, dtype="float64")
            with mg.no_grad():
                lin.weight.copy_(self.const(spec["W"]))
                lin.bias.copy_(self.const(spec["b"]))
            out["module"] = lin
        elif spec["module"] in ("bn_train", "bn_eval"):
            bn = mg.nn.BatchNorm1d(1, dtype="float64")
            out["module"] = bn.train() if spec["module"] == "bn_train" else bn.eval()
        if "module" in out and not spec["param_grad"]:
            out["module"].requires_grad_(False)  # a frozen module: its parameters are constants
        return out

    def linear(self, z: Any, closures: dict) -> Any:
        return closures["module"](z)

    def batch_norm(self, z: Any, closures: dict) -> Any:
        n = z.shape[0]
        return closures["module"](z.reshape((n, 1))).reshape((n,))

    def checkpoint(self, fn: Any, z: Any) -> Any:
        return self.mg.checkpoint.checkpoint(fn, z)

    def dropout(self, z: Any) -> Any:
        return self.nnf.dropout(z, p=0.3, training=True)

    def inplace(self, z: Any) -> Any:
        buf = self.mg.zeros(z.shape[0], dtype="float64")
        buf[0] = z[-1] * z[0]
        buf[1:] = self.mg.sin(z[:-1])
        buf.mul_(0.5)
        buf.add_(z)
        return buf

    def tape(self, kind: str, g: Any, closures: dict, u: Any) -> Any:
        """``J_g^T u`` at ``p0`` through the tape itself, on a leaf made here."""
        mg = self.mg
        leaf = self.const(closures["p0"]).requires_grad_()
        out = (g(leaf) * u).sum()
        if kind == "tape_grad":
            return mg.grad(out, [leaf], create_graph=True)[0]
        # A backward inside g (a nested tape_backward whose function closes over ``leaf``)
        # accumulated into leaf.grad already, as in PyTorch: start from none.
        leaf.grad = None
        out.backward(create_graph=True)
        return leaf.grad

    def outer_tape(self, outer: str, program: Any, x: Any, c: Any) -> np.ndarray:
        leaf = x.detach().requires_grad_()
        out = (program(leaf) * c).sum()
        leaf.grad = None  # a backward inside the program accumulated into it, as in PyTorch
        if outer == "mg_grad":
            return self.numpy(self.mg.grad(out, [leaf])[0])
        out.backward()
        return self.numpy(leaf.grad)
