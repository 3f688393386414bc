"""Check analytic gradients against finite differences.

``gradcheck(fn, inputs)`` compares, for every input that requires grad, the
Jacobian that backward computes with a central-difference estimate::

    J_num[i, j] = (f(x + eps * e_j)[i] - f(x - eps * e_j)[i]) / (2 * eps)

The default tolerances are meant for float64 inputs (as in PyTorch); in
float32 the finite differences themselves are too noisy to be trusted.

``gradgradcheck`` checks second derivatives by running ``gradcheck`` on the
function ``(x, v) -> grad(f(x), x, v, create_graph=True)``.

``modes`` says which derivatives are checked: ``"rev"`` the Jacobian that
backward computes, ``"fwd"`` the one forward mode computes (one
``mg.func.jvp`` per input element, each against the same finite
differences).  With both, the two are also checked against each other by the
dot-product test ``<u, J v> == <J^T u, v>`` for random ``u`` and ``v`` -- one
jvp and one backward, agreeing to rounding error.  At ``order=2`` the
function checked is the gradient itself, so ``"fwd"`` then checks forward
mode over a backward pass (how ``mg.func.hessian`` works).

**Complex numbers** are pairs of reals here, as in PyTorch's gradcheck: a
complex input is perturbed in its real and its imaginary part separately, a
complex output contributes a row for each part, and the analytic Jacobian
follows the gradient convention of docs/complex.md (``grad = dL/dRe +
i dL/dIm``: backward is seeded with ``1`` for a real part and ``1j`` for an
imaginary one).  Indices in messages then end in ``0`` (real part) or ``1``
(imaginary part).

Both also check that backward is deterministic (two runs agree to
``nondet_tol``), that every gradient has its input's shape and dtype, and that
inputs are not mutated.  A failure is a :class:`GradcheckError` that says
whether the first- or the second-order check failed, in which mode, and names
the output, the input and the *worst* element as multi-indices, with plain
numbers.  Every function here sets ``__tracebackhide__``, so pytest shows a
failure at the caller's line, not inside gradcheck.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..backend import host_numpy as np
from ..backend import to_host
from ..backward import grad as _grad
from ..creation import tensor
from ..grad_mode import enable_grad
from ..ops.base import MissingJvpError
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from .repro import repro_script

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "ForwardModeNotCheckedWarning", "GradcheckKinkWarning",
           "numerical_jacobian",
           "analytical_jacobian", "forward_jacobian"]

MODES = ("rev", "fwd")


class GradcheckError(AssertionError, RuntimeError):
    """Raised by :func:`gradcheck` / :func:`gradgradcheck` when analytic and numeric
    derivatives disagree (or backward misbehaves).  An ``AssertionError`` (a failed check, as test
    code catches it) and a ``RuntimeError``, PyTorch's class for its ``GradcheckError``, so that a
    program written for ``torch.autograd.gradcheck`` (``except RuntimeError``) catches it too.

    For a Jacobian mismatch the attributes say where: ``order`` (1 for
    gradcheck, 2 for gradgradcheck), ``mode`` (``"rev"`` or ``"fwd"``),
    ``output`` and ``input`` (positions), ``output_index`` and ``input_index``
    (multi-indices of the *worst* element: the one that exceeds the tolerance
    by the most) and ``analytic`` / ``numeric`` (its two values, plain floats).
    """

    def __init__(self, message: str, *, order: int = 1, mode: str = "rev", output: int | None = None,
                 input: int | None = None, output_index: tuple[int, ...] | None = None,
                 input_index: tuple[int, ...] | None = None, analytic: float | None = None,
                 numeric: float | None = None) -> None:
        super().__init__(message)
        self.order = order
        self.mode = mode
        self.output = output
        self.input = input
        self.output_index = output_index
        self.input_index = input_index
        self.analytic = analytic
        self.numeric = numeric
        self.call: tuple[str, Callable, tuple, dict] | None = None  # set by the check that raised

    def repro_script(self) -> str:
        """A standalone Python script that runs the failing check again: the function's
        source where it can be found, the inputs embedded bit-exactly."""
        if self.call is None:
            raise ValueError("this GradcheckError was not raised by gradcheck or gradgradcheck: no call to repeat")
        check, fn, inputs, options = self.call
        return repro_script(check, fn, inputs, options, str(self))

    def save_repro(self, path: Any) -> str:
        """Write :meth:`repro_script` to ``path``; return the path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.repro_script())
        return str(path)


class GradcheckKinkWarning(UserWarning):
    """Some input elements sit at kinks -- non-differentiable points, where the one-sided
    differences disagree (``relu``/``abs`` at 0, ``max`` ties) -- and were left out of the
    comparison; the message names them.  ``kinks="fail"`` makes them errors instead."""


class ForwardModeNotCheckedWarning(UserWarning):
    """Forward mode was not checked: the function runs an op without a ``jvp`` rule (named in
    the message).  Everything else was checked.  Pass ``modes=("rev", "fwd")`` explicitly to make
    a missing ``jvp`` an error instead."""


def warn_forward_not_checked(what: str, exc: MissingJvpError) -> None:
    """Say that ``what`` did not check forward mode because op ``exc.op`` has no jvp."""
    warnings.warn(ForwardModeNotCheckedWarning(
        f"{what}: forward mode was not checked: op {exc.op} has no jvp rule (reverse mode and the other "
        f"checks ran; pass modes=('rev', 'fwd') to make this an error)"),
        stacklevel=stacklevel_outside_the_engine())


class _Names:
    """How messages name the check, the outputs and the inputs of the function checked:
    at order 2 the outputs are gradients and the extra inputs cotangents."""

    def __init__(self, order: int, n_in: int = 0, wrt: Sequence[int] = (), cotangents: Sequence[int] = ()):
        self.order, self.n_in, self.wrt, self.cotangents = order, n_in, list(wrt), list(cotangents)

    def check(self) -> str:
        return "gradcheck (first derivatives)" if self.order == 1 else "gradgradcheck (second derivatives)"

    def output(self, i: int) -> str:
        return f"output {i}" if self.order == 1 else f"the gradient of input {self.wrt[i]}"

    def input(self, k: int) -> str:
        if self.order == 1 or k < self.n_in:
            return f"input {k}"
        return f"the cotangent of output {self.cotangents[k - self.n_in]}"

    def error(self, message: str, **where: Any) -> GradcheckError:
        return GradcheckError(f"{self.check()} failed: {message}", order=self.order, **where)


def _differentiable(t: Tensor) -> bool:
    """Floating or complex: a dtype with derivatives."""
    return t.dtype.kind in "fc"


def _real_shape(t: Any) -> tuple[int, ...]:
    """The shape of ``t`` seen as reals: a complex tensor gains a last axis (real, imaginary)."""
    shape = tuple(getattr(t, "shape", ()))
    return shape + (2,) if getattr(t, "dtype", None) is not None and t.dtype.kind == "c" else shape


def _real_size(t: Tensor) -> int:
    return t.size * (2 if t.dtype.kind == "c" else 1)


def _real_flat(a: Any) -> Any:
    """The values of an array (or Tensor) as float64 reals, each complex number as (re, im)."""
    a = to_host(a._data if isinstance(a, Tensor) else a)
    if a.dtype.kind == "c":
        return np.stack([a.real, a.imag], axis=-1).astype(np.float64).reshape(-1)
    return a.astype(np.float64).reshape(-1)


def _from_real_flat(flat: Any, like: Tensor) -> Any:
    """The inverse of :func:`_real_flat`: an array of ``like``'s shape and dtype."""
    if like.dtype.kind == "c":
        pairs = flat.reshape(tuple(like.shape) + (2,))
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(like.dtype)
    return flat.reshape(like.shape).astype(like.dtype)


def _real_basis(like: Tensor, j: int) -> Tensor:
    """The ``j``-th unit vector of ``like``'s real coordinates (``1`` or ``1j`` at one element)."""
    e = np.zeros(_real_size(like))
    e[j] = 1
    return tensor(_from_real_flat(e, like), device=like.device)


def _random_like(rng: Any, t: Tensor) -> Any:
    """Standard normal values of ``t``'s shape and dtype (real and imaginary parts for complex)."""
    return _from_real_flat(rng.standard_normal(_real_size(t)), t)


def _plain(v: Any) -> Any:
    """A NumPy scalar as a Python number (messages read 0.5, not np.float64(0.5))."""
    return v.item() if hasattr(v, "item") else v


def _multi_index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape else ()


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn: Callable, inputs: Sequence[Any]) -> tuple[Tensor, ...]:
    __tracebackhide__ = True
    out = _as_tuple(fn(*inputs))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: output {i} of fn is a {type(o).__name__}, not a Tensor")
    return out


def _perturbed_outputs(fn: Callable, args: Sequence[Any], base: Sequence[Tensor], where: str) -> tuple:
    """``fn``'s outputs at perturbed inputs, refused (PyTorch's AssertionError and words) where one's
    shape or dtype differs from the unperturbed output's: no difference quotient exists there, and
    subtracting them would broadcast (a silent pass) or mix precisions."""
    __tracebackhide__ = True
    outs = _outputs(fn, args)
    for o, b in zip(outs, base):
        if tuple(o.shape) != tuple(b.shape):
            raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                                 f"{where}, but got: shapes {tuple(b.shape)} and {tuple(o.shape)}.")
        if o.dtype != b.dtype:
            raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                                 f"{where}, but got: dtypes {b.dtype} and {o.dtype}.")
    return outs


def numerical_jacobian(fn: Callable, inputs: Sequence[Any], eps: float = 1e-6) -> list[list[Any]]:
    """``J[k][i]``: d(output i)/d(input k) by central differences, shape (out.size, in.size)
    (complex tensors counted as pairs of reals: twice their size).

    Only inputs that require grad are perturbed; others get ``None``.
    """
    __tracebackhide__ = True
    return _numerical_jacobian(fn, inputs, eps)[0]


def _numerical_jacobian(fn: Callable, inputs: Sequence[Any], eps: float,
                        atol: float = 1e-5) -> tuple[list[list[Any]], list[Any]]:
    """:func:`numerical_jacobian`, and for each input a boolean array over its (real) elements:
    True at a *kink*, where the one-sided differences ``(f(x + eps) - f(x)) / eps`` and
    ``(f(x) - f(x - eps)) / eps`` disagree by more than ``10 atol`` plus a tenth of the central
    difference plus what rounding may do (:func:`_rounding`) for some output, and the disagreement
    does not grow with the step (:func:`_grows_with_step`): a smooth function's differ by about
    ``eps f''``, which can be large too (``60 x**2`` at 0), and is no kink to leave out."""
    __tracebackhide__ = True
    inputs = list(inputs)
    # fn is evaluated in grad mode, with perturbed inputs that require grad like
    # the originals: fn may itself compute gradients (gradgradcheck does).
    base_out = _outputs(fn, inputs)
    base = [_real_flat(o) for o in base_out]
    kinks: list[Any] = []
    jac: list[list[Any]] = []
    for k, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            jac.append([None] * len(base_out))
            kinks.append(None)
            continue
        cols = [np.zeros((_real_size(o), _real_size(x))) for o in base_out]
        flat = _real_flat(x)
        kink = np.zeros(flat.size, dtype=bool)
        out_noise = [_rounding(o) * np.abs(b) / eps for o, b in zip(base_out, base)]
        for j in range(flat.size):
            vals = []
            for sign in (1.0, -1.0):
                pert = flat.copy()
                pert[j] = pert[j] + sign * eps
                args = list(inputs)
                args[k] = tensor(_from_real_flat(pert, x), dtype=x.dtype, device=x.device,
                                 requires_grad=True)
                where = f"on index {_multi_index(j, _real_shape(x))} by {eps}"
                vals.append([_real_flat(o) for o in _perturbed_outputs(fn, args, base_out, where)])
            apart = []
            for i in range(len(base_out)):
                central = cols[i][:, j] = (vals[0][i] - vals[1][i]) / (2 * eps)
                ahead, behind = (vals[0][i] - base[i]) / eps, (base[i] - vals[1][i]) / eps
                # rounding, not a kink: the outputs' last bits over eps, and the step x + eps rounded
                noise = out_noise[i] + np.abs(central) * _rounding(x) * abs(flat[j]) / eps
                gap = np.abs(ahead - behind)
                apart.append(np.where(gap > 10 * atol + 0.1 * np.abs(central) + noise, gap, 0.0))
            if any(a.any() for a in apart):
                kink[j] = not _grows_with_step(fn, inputs, k, j, flat, base, apart, eps)
        jac.append(cols)
        kinks.append(kink)
    return jac, kinks


def _grows_with_step(fn: Callable, inputs: list, k: int, j: int, flat: Any, base: list, apart: list,
                     eps: float) -> bool:
    """Whether the one-sided differences of real element ``j`` of input ``k``, ``apart`` at step
    ``eps`` (0 where they agree), move apart about twice as far at step ``2 eps``: a smooth
    function's gap is ``step * f''``, a kink's the jump of the derivative, which a longer step
    leaves as it is (``abs`` at 0: 2 at any step; a kink within ``eps``: less than 1.5 times).  A
    side that cannot be evaluated there (NaN) keeps the element a kink."""
    __tracebackhide__ = True
    x = inputs[k]
    wide = []
    for sign in (2.0, -2.0):
        pert = flat.copy()
        pert[j] = pert[j] + sign * eps
        args = list(inputs)
        args[k] = tensor(_from_real_flat(pert, x), dtype=x.dtype, device=x.device, requires_grad=True)
        wide.append([_real_flat(o) for o in _outputs(fn, args)])
    for i, gap in enumerate(apart):
        wide_gap = np.abs((wide[0][i] - base[i]) - (base[i] - wide[1][i])) / (2 * eps)
        if ((gap > 0) & ~(wide_gap >= 1.5 * gap)).any():
            return False
    return True


def _rounding(t: Tensor) -> float:
    """How far rounding may move a one-sided difference, per unit of value over ``eps``: a few
    ulps of ``t``'s precision.  Negligible in float64; in float32 at ``eps=1e-6`` it is about
    0.5 for values near 1, so noise there is not mistaken for a kink (whose skipping would
    hide a wrong gradient)."""
    return 4 * float(np.finfo(t.dtype).eps) if t.dtype.kind in "fc" else 0.0


def analytical_jacobian(fn: Callable, inputs: Sequence[Any]) -> list[list[Any]]:
    """``J[k][i]``: d(output i)/d(input k) by one backward pass per output element."""
    __tracebackhide__ = True
    inputs = list(inputs)
    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    with enable_grad():
        outs = _outputs(fn, inputs)
    jac: list[list[Any]] = [
        [np.zeros((_real_size(o), _real_size(x))) for o in outs]
        if isinstance(x, Tensor) and x.requires_grad else [None] * len(outs)
        for x in inputs
    ]
    for i, o in enumerate(outs):
        if not o.requires_grad or not _differentiable(o):
            continue
        for r in range(_real_size(o)):
            # d(real coordinate r of o): seed 1 at a real part, 1j at an imaginary part
            gs = _grad(o, wrt, grad_outputs=_real_basis(o, r), retain_graph=True, allow_unused=True)
            it = iter(gs)
            for k, x in enumerate(inputs):
                if isinstance(x, Tensor) and x.requires_grad:
                    g = next(it)
                    if g is not None:
                        if g.shape != x.shape:
                            raise GradcheckError(
                                f"gradient for input {k} has shape {g.shape}, the input has {x.shape}"
                            )
                        if g.dtype != x.dtype:
                            raise GradcheckError(
                                f"gradient for input {k} has dtype {g.dtype}, the input has {x.dtype}"
                            )
                        jac[k][i][r, :] = _real_flat(g)
    return jac


def forward_jacobian(fn: Callable, inputs: Sequence[Any], detach: bool = True) -> list[list[Any]]:
    """``J[k][i]``: d(output i)/d(input k) by forward mode, one ``jvp`` per input element.

    With ``detach`` the inputs are passed as values only, so the ops' ``jvp``
    rules run on plain arrays (the dot-product test of :func:`gradcheck` runs
    them on Tensors); a function that itself differentiates its inputs, as
    in :func:`gradgradcheck`, needs ``detach=False``.
    """
    __tracebackhide__ = True
    inputs = list(inputs)
    plain = [x.detach() if detach and isinstance(x, Tensor) else x for x in inputs]
    outs = _outputs(fn, plain)
    jac: list[list[Any]] = []
    for k, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            jac.append([None] * len(outs))
            continue
        cols = [np.zeros((_real_size(o), _real_size(x))) for o in outs]
        for j in range(_real_size(x)):
            _, ts = _jvp_at(fn, plain, [k], [_real_basis(x, j)])
            for i, (o, t) in enumerate(zip(outs, ts)):
                if t.shape != o.shape or t.dtype != o.dtype:
                    raise GradcheckError(
                        f"forward mode: the tangent of output {i} is {t.dtype} {t.shape}, the "
                        f"output is {o.dtype} {o.shape}"
                    )
                cols[i][:, j] = _real_flat(t)
        jac.append(cols)
    return jac


def _jvp_at(fn: Callable, inputs: Sequence[Any], which: Sequence[int], tangents: Sequence[Any]) -> tuple:
    """``mg.func.jvp`` of ``fn`` with tangents on the inputs at positions ``which`` only. The jvp's
    level is the dual level meanwhile, as PyTorch's check runs ``fn`` at one: ``fn`` reading a
    tangent with ``forward_ad.unpack_dual`` (and making duals of its own) is checked too."""
    __tracebackhide__ = True
    from ..autograd.forward_ad import as_dual_level
    from ..func import jvp
    from ..grad_mode import forward_mode

    def restricted(*xs: Any) -> tuple:
        __tracebackhide__ = True
        args = list(inputs)
        for k, x in zip(which, xs):
            args[k] = x
        with as_dual_level(max(forward_mode.levels)):  # the jvp's own level: the one it opened last
            return _outputs(fn, args)

    return jvp(restricted, tuple(inputs[k] for k in which), tuple(tangents))


def _dot_product_check(fn: Callable, inputs: Sequence[Any], seed: int = 0, names: _Names | None = None) -> None:
    """``<u, J v> == <J^T u, v>`` for random ``u``, ``v``: forward mode agrees with backward."""
    __tracebackhide__ = True
    rng = np.random.default_rng(seed)
    inputs = list(inputs)
    which = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    vs = [tensor(_random_like(rng, inputs[k]), device=inputs[k].device) for k in which]
    with enable_grad():
        outs, jv = _jvp_at(fn, inputs, which, vs)
        outs = _outputs(fn, inputs)  # recorded for backward (jvp's outputs are cut off the tape)
    pairs = [(i, o) for i, o in enumerate(outs) if _differentiable(o)]
    us = {i: _random_like(rng, o) for i, o in pairs}
    lhs = lhs_abs = 0.0
    for i, _ in pairs:  # the real inner product: complex numbers as pairs of reals
        prod = _real_flat(us[i]) * _real_flat(jv[i])
        lhs += float(prod.sum())
        lhs_abs += float(np.abs(prod).sum())
    live = [(i, o) for i, o in pairs if o.requires_grad]
    rhs = rhs_abs = 0.0
    if live:
        wrt = [inputs[k] for k in which]
        gs = _grad([o for _, o in live], wrt,
                   grad_outputs=[tensor(us[i], device=o.device) for i, o in live], allow_unused=True)
        for g, v in zip(gs, vs):
            if g is not None:
                prod = _real_flat(g) * _real_flat(v)
                rhs += float(prod.sum())
                rhs_abs += float(np.abs(prod).sum())
    if np.isnan(lhs) and np.isnan(rhs):
        return
    # single precision by its real part's: complex64 is 8 bytes, but float32 numbers
    low = any(np.finfo(t.dtype).eps > 1e-10 for t in (*(inputs[k] for k in which), *(o for _, o in pairs)))
    tol = (1e-4 if low else 1e-8) * (lhs_abs + rhs_abs) + 1e-12  # rounding, not method, error
    if not abs(lhs - rhs) <= tol:
        raise (names or _Names(1)).error(
            f"forward and reverse mode disagree: <u, J v> = {lhs} (jvp) but <J^T u, v> = {rhs} "
            f"(backward), difference {abs(lhs - rhs)} > {tol}", mode="fwd")


def _compare(a_k: list, n_k: list, k: int, atol: float, rtol: float, mode: str, names: _Names,
             out_shapes: Sequence[tuple], in_shape: tuple, complex_parts: bool = False,
             left_out: Any = None) -> None:
    """Raise for the worst element of the analytic Jacobians ``a_k`` (of input ``k``) that
    misses the numeric ones ``n_k`` by more than ``atol + rtol * |numeric|``."""
    __tracebackhide__ = True
    for i, (a, n) in enumerate(zip(a_k, n_k)):
        if a is None or n is None:
            continue
        excess = np.abs(a - n) - (atol + rtol * np.abs(n))
        bad = ~(excess <= 0) & ~(np.isnan(a) & np.isnan(n))
        if left_out is not None:  # kinks: the columns of input elements at non-differentiable points
            bad &= ~left_out[None, :]
        if not bad.any():
            continue
        # the worst element; a NaN on one side only counts as infinitely wrong
        score = np.where(bad, np.where(np.isnan(excess), np.inf, excess), -np.inf)
        r, c = (int(v) for v in np.unravel_index(int(np.argmax(score)), score.shape))
        oi, ii = _multi_index(r, tuple(out_shapes[i])), _multi_index(c, tuple(in_shape))
        av, nv = _plain(a[r, c]), _plain(n[r, c])
        what = "Jacobian" if mode == "rev" else "forward-mode (jvp) Jacobian"
        if complex_parts:
            what += " (complex numbers as pairs of reals: an index ending in 0 is a real part, 1 an imaginary part)"
        raise names.error(
            f"the {what} of {names.output(i)} with respect to {names.input(k)} differs from finite "
            f"differences; worst at output element {oi}, input element {ii}: analytic {av}, "
            f"numeric {nv} (|difference| {abs(av - nv)}); {int(bad.sum())} of {bad.size} entries "
            f"differ (atol={atol}, rtol={rtol}).\nanalytic:\n{a}\nnumeric:\n{n}",
            mode=mode, output=i, input=k, output_index=oi, input_index=ii, analytic=av, numeric=nv,
        )


def _check_modes(modes: Any, order: Any) -> tuple[str, ...]:
    """The modes asked for, checked; ``None`` (the default) is every mode."""
    modes = MODES if modes is None else (modes,) if isinstance(modes, str) else tuple(modes)
    if not modes or any(m not in MODES for m in modes):
        raise ValueError(f"gradcheck: modes must be a non-empty subset of {MODES}, got {modes!r}")
    if order not in (1, 2):
        raise ValueError(f"gradcheck: order must be 1 or 2, got {order!r}")
    return modes


def gradcheck(fn: Callable, inputs: Any, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0, *,
              modes: Sequence[str] | None = None, order: int = 1, fast_mode: bool = False,
              kinks: str = "skip") -> bool:
    """True if the derivatives of ``fn`` at ``inputs`` match finite differences.

    ``inputs`` is a Tensor or a sequence of Tensors (and other arguments passed
    through); derivatives are checked for the tensors that require grad.
    ``modes``: ``"rev"`` (backward), ``"fwd"`` (forward mode), both by default
    (then also the dot-product test between them) -- by default an op without a
    ``jvp`` leaves forward mode unchecked with a :class:`ForwardModeNotCheckedWarning`
    naming it, while ``modes`` given explicitly make that an error; ``order=2`` checks second
    derivatives (:func:`gradgradcheck`).  On a mismatch raises
    :class:`GradcheckError` naming the mode, the input, the output and the
    worst element (or returns False if ``raise_exception=False``).

    ``fast_mode=True`` compares random projections ``u^T J v`` instead of whole
    Jacobians (PyTorch's fast mode): :data:`FAST_PROJECTIONS` independent pairs
    ``(u, v)``, so that one direction that happens to miss a wrong entry cannot
    hide it; on a disagreement the whole check runs, which reports the worst
    element.  Complex inputs or outputs, and ``order=2``, always run in full.

    ``kinks``: input elements at non-differentiable points (the one-sided
    differences disagree: ``relu``/``abs`` at 0, ``max`` ties) are left out
    of the comparison with a :class:`GradcheckKinkWarning` naming them
    (``"skip"``, the default) -- every other element is still compared, so a
    wrong gradient elsewhere still fails -- or are errors (``"fail"``), or are
    compared like every other element, by central differences, and not reported
    (``"compare"``, PyTorch's gradcheck: ``abs`` at 0 passes, both sides giving 0,
    and ``relu`` at 0 fails, 1/2 against 0).

    Backward must scale with its upstream gradient, as in PyTorch's gradcheck: zero gradients for
    every output give zero gradients (a backward that ignores ``grad_output`` is wrong where no
    Jacobian built from unit upstream gradients shows it: a scalar output).
    """
    __tracebackhide__ = True
    fwd_optional = modes is None
    modes = _check_modes(modes, order)
    if kinks not in ("skip", "fail", "compare"):
        raise ValueError(f"gradcheck: kinks must be 'skip', 'fail' or 'compare', got {kinks!r}")
    if order == 2:
        return gradgradcheck(fn, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                             nondet_tol=nondet_tol, modes=None if fwd_optional else modes, kinks=kinks)
    tied_fn, tied_inputs = _tie_repeated_inputs(fn, _as_tuple(inputs))
    try:
        return _gradcheck(tied_fn, tied_inputs, eps, atol, rtol, raise_exception, nondet_tol, modes, detach=True,
                          names=_Names(1), fwd_optional=fwd_optional, kinks=kinks, fast_mode=fast_mode)
    except GradcheckError as e:
        e.call = ("gradcheck", fn, _as_tuple(inputs), dict(eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                                                           modes=None if fwd_optional else modes, kinks=kinks,
                                                           fast_mode=fast_mode))
        raise


def _tie_repeated_inputs(fn: Callable, inputs: tuple) -> tuple[Callable, tuple]:
    """One tensor passed at several positions (``gradcheck(f, (x, x))``) is one variable, as in
    PyTorch's gradcheck: its derivative is checked once, at its first position, and includes every
    position it is used at.  Perturbing one position's copy alone would compare backward's total
    derivative with a partial one.  The later positions get a placeholder (``x.detach()``) that
    ``fn`` never sees: it is handed the first position's value there."""
    first: dict[int, int] = {}
    source = []
    for k, x in enumerate(inputs):
        tied = isinstance(x, Tensor) and x.requires_grad
        source.append(first.setdefault(id(x), k) if tied else k)
    if source == list(range(len(inputs))):
        return fn, inputs

    def tied_fn(*args: Any) -> Any:
        __tracebackhide__ = True
        return fn(*(args[s] for s in source))

    return tied_fn, tuple(x if s == k else x.detach() for k, (x, s) in enumerate(zip(inputs, source)))


#: How many independent random projections ``u^T J v`` ``gradcheck(fast_mode=True)`` compares.
FAST_PROJECTIONS = 4


def _projections_agree(fn: Callable, inputs: tuple, eps: float, atol: float, rtol: float,
                       modes: tuple[str, ...], fwd_optional: bool, nondet_tol: float, names: _Names,
                       seed: int = 0) -> bool:
    """Fast mode: for random unit ``u`` (outputs) and ``v`` (inputs), ``u^T J v`` from backward
    (``<J^T u, v>``) and from forward mode (``<u, J v>``) against the central difference of
    ``<u, f>`` along ``v``.  False on any disagreement -- or where fast mode does not apply."""
    __tracebackhide__ = True
    which = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    with enable_grad():
        outs = _outputs(fn, inputs)
    if not which or any(t.dtype.kind == "c" for t in (*outs, *(inputs[k] for k in which))):
        return False
    rng = np.random.default_rng(seed)
    for _ in range(FAST_PROJECTIONS):
        vs = [_unit(rng, inputs[k]) for k in which]
        us = [_unit(rng, o) for o in outs]
        numeric = _directional(fn, inputs, which, vs, us, eps, outs)
        analytic = []
        if "rev" in modes:
            gs = _projected_backward(fn, inputs, which, us)
            _same_twice(gs, _projected_backward(fn, inputs, which, us), which, nondet_tol, names)
            analytic.append(sum(float((_real_flat(g) * v.reshape(-1)).sum()) for g, v in zip(gs, vs)
                                if g is not None))
        if "fwd" in modes:
            try:
                _, ts = _jvp_at(fn, [x.detach() if isinstance(x, Tensor) else x for x in inputs], which,
                                [tensor(v, device=inputs[k].device) for k, v in zip(which, vs)])
            except MissingJvpError:
                if not fwd_optional:
                    raise
                return False  # the full check says which op, and checks the rest
            analytic.append(sum(float((_real_flat(t) * u.reshape(-1)).sum()) for t, u in zip(ts, us)))
        if any(not abs(a - numeric) <= atol + rtol * abs(numeric) for a in analytic):
            return False
    return True


def _projected_backward(fn: Callable, inputs: tuple, which: list[int], us: list) -> tuple:
    """``J^T u``: backward from ``fn``'s outputs with upstream gradients ``us``, to the inputs ``which``."""
    with enable_grad():
        live = [(o, u) for o, u in zip(_outputs(fn, inputs), us) if o.requires_grad]
        return _grad([o for o, _ in live], [inputs[k] for k in which],
                     grad_outputs=[tensor(u, device=o.device) for o, u in live], allow_unused=True)


def _same_twice(first: Sequence[Any], second: Sequence[Any], which: list[int], nondet_tol: float,
                names: _Names) -> None:
    """Fast mode's reentrancy check: backward run twice with the same upstream gradients agrees to
    ``nondet_tol`` (the full check compares whole Jacobians; fast mode, which may never run it, these)."""
    __tracebackhide__ = True
    for k, a, b in zip(which, first, second):
        if a is None or b is None:
            continue
        diff = float(np.abs(_real_flat(a) - _real_flat(b)).max(initial=0.0))
        if diff > nondet_tol:
            raise names.error(f"Backward is not reentrant: backward is not deterministic for {names.input(k)}: "
                              f"two runs with the same upstream gradients differ by {diff} "
                              f"(nondet_tol={nondet_tol})", input=k)


def _unit(rng: Any, t: Tensor) -> Any:
    """A random direction of unit length, of ``t``'s shape and dtype."""
    r = rng.standard_normal(tuple(t.shape))
    return (r / max(float(np.sqrt((r * r).sum())), 1e-300)).astype(t.dtype)


def _directional(fn: Callable, inputs: tuple, which: list[int], vs: list, us: list, eps: float,
                 base: tuple) -> float:
    """The central difference of ``<u, f(x)>`` along ``v``; ``f`` gets perturbed inputs that require
    grad like the originals, as in the full check (a function may register a hook on what it makes)."""
    __tracebackhide__ = True
    sides = []
    for sign in (1.0, -1.0):
        args = list(inputs)
        for k, v in zip(which, vs):
            x = inputs[k]
            args[k] = tensor(to_host(x._data) + sign * eps * v, device=x.device, requires_grad=True)
        outs = _perturbed_outputs(fn, args, base, f"by {eps}")
        sides.append(sum(float((_real_flat(o) * u.reshape(-1)).sum()) for o, u in zip(outs, us)))
    return (sides[0] - sides[1]) / (2 * eps)


def _gradcheck(fn: Callable, inputs: Any, eps: float, atol: float, rtol: float, raise_exception: bool,
               nondet_tol: float, modes: tuple[str, ...], detach: bool, names: _Names,
               fwd_optional: bool = False, kinks: str = "skip", fast_mode: bool = False) -> bool:
    __tracebackhide__ = True
    inputs = _as_tuple(inputs)
    checked = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not checked:  # (PyTorch's words, which ported tests match)
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True: there is nothing to check")
    for k, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{k} requires gradient and is not a double precision floating point or complex "
                f"({x.dtype}). This check will likely fail if all the inputs are not of double precision "
                f"floating point or complex: the default tolerances assume float64 (or complex128) and finite "
                f"differences are unreliable in lower precision",
                stacklevel=stacklevel_outside_the_engine(),
            )
    before = [to_host(x._data).copy() for x in checked]
    try:
        with enable_grad():
            outs = _outputs(fn, inputs)
        _check_fn_deterministic(fn, inputs, outs, nondet_tol, names)
        # fast mode: random projections stand for the whole Jacobians, and every other check still runs
        if not (fast_mode and _projections_agree(fn, inputs, eps, atol, rtol, modes, fwd_optional, nondet_tol,
                                                   names)):
            _check_jacobians(fn, inputs, outs, eps, atol, rtol, nondet_tol, modes, detach, names, fwd_optional,
                             kinks)
        if "rev" in modes:
            _check_backward_scales(fn, inputs, names)
        for x, b in zip(checked, before):
            if not np.array_equal(to_host(x._data), b, equal_nan=True):
                raise names.error("fn or its backward mutated one of its inputs")
    except GradcheckError as e:
        low = [f"{names.input(k)} is {x.dtype}" for k, x in enumerate(inputs)
               if isinstance(x, Tensor) and x.requires_grad and x.dtype not in (np.float64, np.complex128)]
        if low:  # the likely cause, said where the failure is read (the warning is easily missed)
            e.args = (f"{e.args[0]}\n({', '.join(low)}: finite differences with eps={eps} are unreliable "
                      f"in that precision; check in float64, or pass a larger eps and looser atol/rtol)",)
        if raise_exception:
            raise
        return False
    return True


def _check_jacobians(fn: Callable, inputs: tuple, outs: tuple, eps: float, atol: float, rtol: float,
                     nondet_tol: float, modes: tuple[str, ...], detach: bool, names: _Names, fwd_optional: bool,
                     kinks: str) -> None:
    """Every analytic Jacobian (backward's, run twice to see it is deterministic, and forward
    mode's) against central differences, element by element."""
    __tracebackhide__ = True
    out_shapes = [_real_shape(o) for o in outs]
    in_shapes = [_real_shape(x) for x in inputs]
    parts = any(_real_shape(t) != tuple(getattr(t, "shape", ())) for t in (*outs, *inputs))
    numeric, kink_masks = _numerical_jacobian(fn, inputs, eps, atol)
    left_out = kink_masks if kinks == "skip" else [None] * len(inputs)
    if "rev" in modes:
        analytic = analytical_jacobian(fn, inputs)
        again = analytical_jacobian(fn, inputs)
        for k, (a_k, b_k) in enumerate(zip(analytic, again)):
            for i, (a, b) in enumerate(zip(a_k, b_k)):
                if a is not None and np.abs(a - b).max(initial=0.0) > nondet_tol:
                    raise names.error(
                        f"Backward is not reentrant: backward is not deterministic for {names.input(k)}, "
                        f"{names.output(i)}: "
                        f"two runs differ by {_plain(np.abs(a - b).max())} (nondet_tol={nondet_tol})",
                        output=i, input=k)
        for k, (a_k, n_k) in enumerate(zip(analytic, numeric)):
            _compare(a_k, n_k, k, atol, rtol, "rev", names, out_shapes, in_shapes[k], parts, left_out[k])
    if "fwd" in modes:
        _check_forward(fn, inputs, detach, numeric, modes, fwd_optional, names,
                       lambda k, f_k, n_k: _compare(f_k, n_k, k, atol, rtol, "fwd", names, out_shapes,
                                                    in_shapes[k], parts, left_out[k]))
    if kinks != "compare":
        _report_kinks(kink_masks, in_shapes, names, kinks)


def _check_backward_scales(fn: Callable, inputs: tuple, names: _Names) -> None:
    """PyTorch's check of backward with zero upstream gradients: zero gradients for every output
    give zero (or no) gradients -- "backward not multiplied by grad_output" otherwise, a wrong rule
    that a scalar output's Jacobian, built from the upstream gradient 1, cannot show.  (PyTorch's
    ``check_undefined_grad`` runs backward with one output's gradient left out: the Jacobians here
    already do, one output at a time, so a backward that cannot take a None gradient fails there.)"""
    __tracebackhide__ = True
    wrt_at = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    with enable_grad():
        live = [o for o in _outputs(fn, inputs) if o.requires_grad and _differentiable(o)]
    if not live:
        return
    zeros = [tensor(np.zeros(tuple(o.shape), dtype=o.dtype), device=o.device) for o in live]
    gs = _grad(live, [inputs[k] for k in wrt_at], grad_outputs=zeros, allow_unused=True)
    for k, g in zip(wrt_at, gs):
        if g is not None and not (to_host(g._data) == 0).all():
            flat = _real_flat(g)
            at = int(np.argmax(np.where(np.isnan(flat), np.inf, np.abs(flat))))  # the largest, NaN first
            worst = _multi_index(at, _real_shape(g))
            raise names.error(f"backward not multiplied by grad_output: with zero gradients for every output, the "
                              f"gradient of {names.input(k)} is not zero ({_plain(flat[at])} at element {worst}): "
                              f"its backward does not scale with the upstream gradient", input=k, input_index=worst)


def _check_fn_deterministic(fn: Callable, inputs: tuple, outs: tuple, nondet_tol: float, names: _Names) -> None:
    """A second call of ``fn`` on the same inputs gives the same values (to ``nondet_tol``): a function
    that draws random numbers (dropout) makes finite differences and every comparison meaningless,
    and would otherwise be reported as a backward that is not deterministic."""
    __tracebackhide__ = True
    with enable_grad():
        again = _outputs(fn, inputs)
    for i, (a, b) in enumerate(zip(outs, again)):
        diff = np.abs(_real_flat(a) - _real_flat(b))
        if diff.size and not (diff.max() <= nondet_tol or np.array_equal(_real_flat(a), _real_flat(b), equal_nan=True)):
            raise names.error(
                f"fn is not deterministic: two calls with the same inputs gave {names.output(i)} values that "
                f"differ by {_plain(np.nanmax(diff))} (nondet_tol={nondet_tol}); it draws random numbers "
                f"(dropout?) or reads changing state: seed it inside fn (mg.manual_seed) or fix what it draws",
                output=i)


def _report_kinks(kink_masks: list, in_shapes: list, names: _Names, kinks: str) -> None:
    """Name the input elements at kinks: a :class:`GradcheckKinkWarning` (they were left out of
    the comparison), or with ``kinks="fail"`` a :class:`GradcheckError`."""
    __tracebackhide__ = True
    where = []
    for k, mask in enumerate(kink_masks):
        if mask is not None and mask.any():
            elements = [_multi_index(j, tuple(in_shapes[k])) for j in np.flatnonzero(mask)]
            more = f" and {len(elements) - 10} more" if len(elements) > 10 else ""
            where.append(f"{names.input(k)} at {', '.join(map(str, elements[:10]))}{more}")
    if not where:
        return
    message = (f"kinks (non-differentiable points: the one-sided differences disagree) at "
               f"{'; '.join(where)}")
    if kinks == "fail":
        raise names.error(message + " (kinks='fail')")
    warnings.warn(GradcheckKinkWarning(f"{names.check()}: {message}; those elements were left out of the "
                                       f"comparison (kinks='fail' makes this an error)"),
                                       stacklevel=stacklevel_outside_the_engine())


def _check_forward(fn: Callable, inputs: Any, detach: bool, numeric: list, modes: tuple[str, ...],
                   fwd_optional: bool, names: _Names, compare: Callable) -> None:
    """Forward mode's Jacobians against ``numeric`` (and, with ``"rev"``, the dot-product test):
    an op without a ``jvp`` skips this with a warning when forward mode was not asked for explicitly."""
    __tracebackhide__ = True
    try:
        forward = forward_jacobian(fn, inputs, detach)
    except MissingJvpError as exc:
        if not fwd_optional:
            raise
        warn_forward_not_checked(names.check(), exc)
        return
    for k, (f_k, n_k) in enumerate(zip(forward, numeric)):
        compare(k, f_k, n_k)
    if "rev" in modes:
        _dot_product_check(fn, inputs, names=names)


def gradgradcheck(fn: Callable, inputs: Any, grad_outputs: Any = None, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
                  nondet_tol: float = 0.0, seed: int = 0, *, modes: Sequence[str] | None = None,
                  kinks: str = "skip") -> bool:
    """True if second derivatives of ``fn`` match finite differences of its gradients.

    ``grad_outputs`` (one per output) default to fixed random tensors; they
    are differentiated too, like PyTorch's ``gradgradcheck``.  ``modes`` as in
    :func:`gradcheck`: ``"fwd"`` checks forward mode over the backward pass.
    """
    __tracebackhide__ = True
    fwd_optional = modes is None
    modes = _check_modes(modes, 2)
    original_fn, original_inputs = fn, _as_tuple(inputs)
    fn, inputs = _tie_repeated_inputs(original_fn, original_inputs)
    outs = _outputs(fn, inputs)
    diff_outs = [i for i, o in enumerate(outs) if o.requires_grad and _differentiable(o)]
    rng = np.random.default_rng(seed)
    if grad_outputs is None:
        vs = [tensor(_random_like(rng, outs[i]), device=outs[i].device, requires_grad=True) for i in diff_outs]
    else:
        # given as arrays or lists: on the device (and of the dtype) of the output each belongs to
        like = [outs[i] for i in diff_outs] + [None] * len(_as_tuple(grad_outputs))
        vs = [v if isinstance(v, Tensor) else tensor(v) if o is None else tensor(v, dtype=o.dtype, device=o.device)
              for v, o in zip(_as_tuple(grad_outputs), like)]
        vs = [v.detach().requires_grad_() if _differentiable(v) else v for v in vs]
    n_in = len(inputs)
    wrt_idx = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args: Any) -> tuple:
        __tracebackhide__ = True
        xs, v = args[:n_in], args[n_in:]
        outs = _outputs(fn, xs)
        wrt = [xs[k] for k in wrt_idx]
        gs = _grad([outs[i] for i in diff_outs], wrt, grad_outputs=list(v),
                   create_graph=True, allow_unused=True)
        res = []
        for g, x in zip(gs, wrt):
            res.append(g if g is not None else x * 0)
        return tuple(res)

    try:
        return _gradcheck(first_derivative, tuple(inputs) + tuple(vs), eps, atol, rtol, raise_exception,
                          nondet_tol, modes, detach=False, names=_Names(2, n_in, wrt_idx, diff_outs),
                          fwd_optional=fwd_optional, kinks=kinks)
    except GradcheckError as e:
        e.call = ("gradgradcheck", original_fn, original_inputs,
                  dict(grad_outputs=list(vs), eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                       modes=None if fwd_optional else modes, kinks=kinks))
        raise
