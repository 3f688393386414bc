"""``check_op``: the op battery, for your own ops and functions.

:func:`check_op` runs the op battery on one op of yours -- an
:class:`~minigrad_ckpt.ops.Op` instance or class, or any function of Tensors --
at the inputs you give, or at inputs drawn by a Hypothesis strategy.  It is the
one implementation of those checks: the registry's battery
(``property_tests/test_op_battery.py``) runs it on every built-in op, with
samples, upstream gradients and memory layouts drawn by Hypothesis
(:class:`Draws` says where that material comes from)::

    check_op(MyOp(), x, y)                     # one sample: arrays, Tensors or Python scalars
    check_op(my_function, x, reference=np_fn)  # a function: say what it should compute
    check_op(MyOp(), strategy)                 # a strategy of input tuples (Hypothesis)

The checks (each named in the error when it fails):

``forward``        the output equals the op's NumPy ``reference`` (or ``reference=``), at the
                   inputs' own dtypes, with its dtype, without a RuntimeWarning; an op's
                   output is recorded on the tape exactly when the op is differentiable
``gradcheck``      float64 gradients match central differences, in reverse mode and
                   (for an op with a ``jvp``) forward mode, and the modes each other
``gradgradcheck``  second derivatives match, with a random cotangent and with one
                   that has exact zeros (a derivative through a zero upstream gradient)
``hessian symmetry``  exact, no finite differences: for ``s = sum(a * f(x))`` at ``a = 0``,
                   ``d/da d/dx s`` is the transpose of ``d/dx d/da s`` (a second
                   derivative through a zero upstream gradient is not lost)
``noncontiguous``  strided, reversed, transposed-in-memory views of the inputs and of the upstream
                   gradient (and of the tangents) give the same values, gradients (and
                   forward-mode tangents) as contiguous arrays
``float32``        float32 inputs give a float32 output (the reference's dtype; complex64
                   for complex results), gradients of the inputs' dtypes and (forward
                   mode) single-precision tangents, close to the float64 ones; for an
                   Op, its own backward and jvp return single precision too (before
                   the engine's casts could hide a float64 upcast)
``no mutation``    forward and backward change neither the inputs, nor the upstream
                   gradient, nor the output (the inputs are read-only arrays during the check)
``no aliasing``    the output shares memory with no input (unless the op declares
                   ``is_view``), gradients share memory with nothing (from ``mg.grad``
                   and from ``.backward()`` alike)

Inputs that are floating or complex arrays are differentiated (``grad_inputs=``
picks others); integer and boolean arrays and Python scalars are passed through.
Complex inputs are cast to complex64/complex128 with the float precision, and
their tangents and upstream gradients have imaginary parts.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..backend import host_numpy as np
from ..backward import grad as _grad
from ..ops.base import MissingJvpError
from ..tape import apply
from ..tensor import Tensor
from .gradcheck import MODES, gradcheck, gradgradcheck, warn_forward_not_checked

__all__ = ["check_op", "OpCheckError", "CHECKS", "Draws"]

#: Every check :func:`check_op` runs, in order.
CHECKS = ("forward", "gradcheck", "gradgradcheck", "hessian symmetry", "noncontiguous", "float32",
          "no mutation", "no aliasing")


class OpCheckError(AssertionError):
    """A check of :func:`check_op` failed; ``check`` names it (one of :data:`CHECKS`)."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(f"check_op [{check}]: {message}")
        self.check = check


def check_op(op_or_function: Any, *sample_inputs: Any, reference: Callable | None = None,
             grad_inputs: Sequence[int] | None = None, skip: Sequence[str] = (),
             modes: Sequence[str] | None = None, eps: float = 1e-6, atol: float = 1e-5,
             rtol: float = 1e-3, max_examples: int = 20, seed: int = 0, draws: Draws | None = None) -> list[str]:
    """Run the op battery on ``op_or_function`` and return the names of the checks that ran.

    ``op_or_function`` is an Op instance, an Op class without attributes, or a
    callable taking Tensors (and constants) and returning a Tensor.
    ``sample_inputs`` are the inputs of one application (NumPy arrays, Tensors,
    Python scalars, None), or a single Hypothesis strategy that draws a tuple
    of them (a lone array is one input); a strategy runs the battery on
    ``max_examples`` draws.  ``reference(np, *arrays)`` is the expected
    forward (default: the op's own ``reference``; a function without one
    skips that check).  ``grad_inputs`` lists the positions to differentiate
    (default: every floating or complex array).  ``skip`` names checks not to run
    (for instance ``"gradgradcheck"`` for an op without second derivatives).
    ``modes`` are gradcheck's (default: ``("rev", "fwd")``, leaving forward mode
    out with a :class:`ForwardModeNotCheckedWarning` naming the op where an op
    has no ``jvp``; explicit ``modes`` make a missing ``jvp`` an error); ``eps``/``atol``/``rtol``
    too.
    ``draws`` supplies upstream gradients, tangents, cotangents and non-contiguous
    layouts for the one sample given (default, and for a strategy's samples:
    :class:`Draws` seeded with ``seed``).  Raises :class:`OpCheckError`
    (or :class:`GradcheckError`, which names the worst element) on a failure.
    """
    __tracebackhide__ = True
    unknown = [c for c in skip if c not in CHECKS]
    if unknown:
        raise ValueError(f"check_op: unknown check(s) in skip: {unknown}; the checks are {CHECKS}")
    target = _as_target(op_or_function, reference)
    if modes is not None:
        modes = tuple(modes)
    elif target.op is not None:  # an Op: its class says whether it has a jvp
        if not target.has_jvp:  # everything but forward mode, said so
            warn_forward_not_checked("check_op", MissingJvpError(target.op.name))
        modes = MODES if target.has_jvp else ("rev",)
    opts = _Options(grad_inputs, set(skip), modes, eps, atol, rtol)
    if len(sample_inputs) == 1 and _is_strategy(sample_inputs[0]):
        return _check_strategy(target, opts, sample_inputs[0], max_examples, seed)
    if not sample_inputs:
        raise TypeError("check_op: give the inputs of one application, or a Hypothesis strategy of them")
    return _Battery(target, opts, sample_inputs, draws or Draws(seed)).run()


class Draws:
    """Where the battery's random material comes from: upstream gradients, tangents, the
    cotangents of the second-derivative check and the non-contiguous layouts of arrays.

    This default draws from a NumPy generator seeded with ``seed``.  The registry's
    battery subclasses it to draw with Hypothesis, so that a failure shrinks.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def upstream(self, shape: tuple[int, ...], dtype: Any, label: str = "upstream") -> Any:
        """A random array of ``shape`` and ``dtype`` (an upstream gradient or a tangent):
        standard normal values, with an imaginary part for a complex ``dtype``."""
        g = self.rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            g = g + 1j * self.rng.standard_normal(shape)
        return np.asarray(g).astype(dtype)

    def cotangents(self, shape: tuple[int, ...], dtype: Any) -> list[Any]:
        """The cotangents gradgradcheck runs with: a random one and one with exact zeros."""
        g = self.upstream(shape, dtype)
        if g.size:
            g[self.rng.random(shape) < 0.5] = 0
            g.reshape(-1)[0] = 0
        return [self.upstream(shape, dtype), g]

    def layout(self, a: Any, label: str) -> tuple[Any, Any]:
        """``(contiguous, view)`` with equal values, the view non-contiguous: every other
        element of a bigger buffer, negative strides, and (2-D and up) axes transposed in memory."""
        return a.copy(), _strided(a)


@dataclass
class _Target:
    fn: Callable                # Tensors -> Tensor
    ref: Callable | None        # the NumPy reference, or None
    op: Any = None              # the Op, when one is checked (not a function)

    @property
    def is_view(self) -> bool:
        return self.op is not None and bool(type(self.op).is_view)

    @property
    def has_jvp(self) -> bool:
        from ..ops.base import Op

        return self.op is None or type(self.op).jvp is not Op.jvp


@dataclass
class _Options:
    grad_inputs: Sequence[int] | None
    skip: set[str]
    modes: tuple | None         # None: a function, probed for ops without a jvp before the checks
    eps: float
    atol: float
    rtol: float


def _as_target(target: Any, reference: Callable | None) -> _Target:
    from ..ops.base import Op

    if isinstance(target, type) and issubclass(target, Op):
        target = target()
    if isinstance(target, Op):
        op = target

        def fn(*args: Any) -> Any:
            return apply(op, *args)

        own = type(op).reference is not Op.reference
        ref = reference or ((lambda np_, *a: op.reference(np_, *a)) if own else None)
        return _Target(fn, ref, op)
    if not callable(target):
        raise TypeError(f"check_op: expected an Op or a function, got {type(target).__name__}")
    return _Target(target, reference)


def _is_strategy(obj: Any) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:
        return False
    return isinstance(obj, SearchStrategy)


def _check_strategy(target: _Target, opts: _Options, strategy: Any, max_examples: int, seed: int) -> list[str]:
    __tracebackhide__ = True
    from hypothesis import HealthCheck, given, settings

    ran: list[str] = []

    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(drawn: Any) -> None:
        inputs = drawn if isinstance(drawn, tuple) else (drawn,)
        ran[:] = _Battery(target, opts, inputs, Draws(seed)).run()

    run()
    return ran


def _host(v: Any) -> Any:
    """A sample input as the battery stores it: Tensors become NumPy arrays (copies)."""
    if isinstance(v, Tensor):
        return np.array(v.numpy())
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


def _close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


class _Battery:
    def __init__(self, target: _Target, opts: _Options, inputs: Sequence[Any], draws: Draws) -> None:
        self.target, self.fn, self.ref = target, target.fn, target.ref
        self.inputs = [_host(v) for v in inputs]
        floating = [i for i, v in enumerate(self.inputs) if isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
        self.diff = list(floating if opts.grad_inputs is None else opts.grad_inputs)
        for i in self.diff:
            if not isinstance(i, int) or not 0 <= i < len(self.inputs):
                raise IndexError(f"check_op: grad_inputs names input {i!r}, but the op takes {len(self.inputs)} "
                                 f"input(s), at positions 0 to {len(self.inputs) - 1}")
            if i not in floating:
                raise TypeError(f"check_op: input {i} is not a floating or complex array, so it cannot be "
                                f"differentiated")
        self.skip = opts.skip
        self.fwd_optional = opts.modes is None  # a function not known to have jvp rules everywhere: probed
        self.modes = MODES if opts.modes is None else opts.modes
        self.eps, self.atol, self.rtol = opts.eps, opts.atol, opts.rtol
        self.draws = draws

    # ------------------------------------------------------------- helpers
    def args(self, arrays: Sequence[Any], requires_grad: bool = True) -> tuple[list, list]:
        """Tensors around ``arrays`` -- no copy, so views stay views -- and those that require grad."""
        args, wrt = [], []
        for i, v in enumerate(arrays):
            if isinstance(v, np.ndarray):
                t = Tensor.constant(v)  # no copy: a view stays a view
                if requires_grad and i in self.diff:
                    t.requires_grad_()
                    wrt.append(t)
                args.append(t)
            else:
                args.append(v)
        return args, wrt

    def copies(self) -> list[Any]:
        """The inputs as given (arrays copied)."""
        return [v.copy() if isinstance(v, np.ndarray) else v for v in self.inputs]

    def cast(self, dtype: Any) -> list[Any]:
        """The inputs in ``dtype``'s precision: floats as ``dtype``, complex numbers as its complex type."""
        return [v.astype(_precision(v.dtype, dtype)) if isinstance(v, np.ndarray) and v.dtype.kind in "fc" else v
                for v in self.inputs]

    def run_once(self, arrays: Sequence[Any], g: Any = None) -> tuple[Tensor, list, list]:
        __tracebackhide__ = True
        args, wrt = self.args(arrays, requires_grad=g is not None)
        out = self.fn(*args)
        if not isinstance(out, Tensor):
            raise OpCheckError("forward", f"the function returned a {type(out).__name__}, not a Tensor")
        if g is None or not wrt:
            return out, [], wrt
        if not out.requires_grad:
            raise OpCheckError("gradcheck", "the output does not require grad although inputs do: "
                                            "is the op differentiable (and recorded)?")
        grads = _grad(out, wrt, grad_outputs=Tensor.constant(g), allow_unused=True)
        return out, [None if r is None else r.numpy() for r in grads], wrt

    def jvp_once(self, arrays: Sequence[Any], tangents: Sequence[Any]) -> Any:
        """The output tangent (a NumPy array) of ``mg.func.jvp`` with ``tangents`` on the
        differentiated inputs -- the op's ``jvp`` rule on plain arrays."""
        from ..func import jvp

        args, _ = self.args(arrays, requires_grad=False)

        def f(*xs: Any) -> Any:
            full = list(args)
            for i, x in zip(self.diff, xs):
                full[i] = x
            return self.fn(*full)

        _, t = jvp(f, tuple(args[i] for i in self.diff), tuple(Tensor.constant(v) for v in tangents))
        return t.numpy()

    def probe_forward_mode(self) -> None:
        """Run forward mode once: where an op of the function has no jvp, check all but forward
        mode (with a warning naming the op) rather than stop at the first jvp."""
        arrays = self.cast(np.float64)
        try:
            self.jvp_once(arrays, [np.ones_like(arrays[i]) for i in self.diff])
        except MissingJvpError as exc:
            warn_forward_not_checked("check_op", exc)
            self.modes = tuple(m for m in self.modes if m != "fwd")

    def tangents(self, dtype: Any) -> list[Any]:
        """Tangents of the differentiated inputs in ``dtype``'s precision (complex for complex inputs)."""
        return [self.draws.upstream(self.inputs[i].shape, _precision(self.inputs[i].dtype, dtype), f"tangent {i}")
                for i in self.diff]

    def grad_fwd(self, out: Tensor) -> bool:
        """Whether gradients (and forward mode) apply: differentiated inputs and a floating
        or complex output."""
        return bool(self.diff) and out.dtype.kind in "fc"

    # -------------------------------------------------------------- checks
    def run(self) -> list[str]:
        __tracebackhide__ = True
        if self.fwd_optional and self.diff:
            self.probe_forward_mode()
        ran = []
        for name in CHECKS:
            if name in self.skip:
                continue
            if name == "forward" and self.ref is None:
                continue
            if name in ("gradcheck", "gradgradcheck", "hessian symmetry", "float32") and not self.diff:
                continue
            getattr(self, "check_" + name.replace(" ", "_"))()
            ran.append(name)
        return ran

    def check_forward(self) -> None:
        __tracebackhide__ = True
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            out, _, _ = self.run_once(self.copies())
        with np.errstate(all="ignore"):
            expected = np.asarray(self.ref(np, *self.copies()))
        if not isinstance(out._data, np.ndarray):
            raise OpCheckError("forward", f"the output holds a {type(out._data).__name__}, not an array")
        got = out.numpy()
        if got.shape != expected.shape or got.dtype != expected.dtype:
            raise OpCheckError("forward", f"output {got.dtype} {got.shape}, the reference gives "
                                          f"{expected.dtype} {expected.shape}")
        low = got.dtype.kind in "fc" and np.finfo(got.dtype).bits < 64  # float32, complex64, float16
        if not _close(got, expected, 1e-4 if low else 1e-9, 1e-5 if low else 1e-12):
            worst = np.unravel_index(int(np.nanargmax(np.abs(got - expected))), got.shape) if got.size else ()
            idx = tuple(int(i) for i in worst)
            raise OpCheckError("forward", f"output differs from the reference; worst at {idx}: "
                                          f"{got[idx].item()} vs {expected[idx].item()}")
        self._check_recorded(got)

    def _check_recorded(self, got: Any) -> None:
        """An op's output, with its floating inputs requiring grad, is the same and is on the
        tape exactly when the op is differentiable (never for a result that is neither floating
        nor complex: a cast to int)."""
        op = self.target.op
        floating = [i for i, v in enumerate(self.inputs) if isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
        if op is None or not floating or (op.differentiable and got.dtype.kind not in "fc"):
            return
        args = [Tensor.constant(v).requires_grad_() if i in floating else
                (Tensor.constant(v) if isinstance(v, np.ndarray) else v) for i, v in enumerate(self.copies())]
        out = self.fn(*args)
        if not np.array_equal(out.numpy(), got, equal_nan=True):
            raise OpCheckError("forward", "the output differs when the inputs require grad")
        if out.requires_grad != bool(op.differentiable) or (out.grad_fn is None) == bool(op.differentiable):
            raise OpCheckError("forward", "a differentiable op was not recorded" if op.differentiable else
                                          "a forward-only op was recorded")

    def check_gradcheck(self) -> None:
        __tracebackhide__ = True
        args, _ = self.args(self.cast(np.float64))
        gradcheck(self.fn, args, eps=self.eps, atol=self.atol, rtol=self.rtol, modes=self.modes)

    def check_gradgradcheck(self) -> None:
        __tracebackhide__ = True
        args, _ = self.args(self.cast(np.float64))
        out = self.fn(*args)
        # random cotangents, and ones with exact zeros: d(gradient)/d(cotangent) there too
        for v in self.draws.cotangents(out.shape, out.dtype):
            gradgradcheck(self.fn, args, grad_outputs=[v], eps=self.eps, atol=self.atol, rtol=self.rtol,
                          modes=self.modes)

    def check_hessian_symmetry(self) -> None:
        """``<w, H_ax u> == <u, H_xa w>`` for ``s = sum(a * f(x))`` at ``a = 0``: exact, no
        finite differences.  ``d/dx s`` is f's backward with the upstream gradient ``a = 0``;
        its derivative with respect to ``a`` is ``J_f^T``, as ``d/dx <f(x), w>`` shows."""
        __tracebackhide__ = True
        args, wrt = self.args(self.cast(np.float64))
        out = self.fn(*args)
        if not self.grad_fwd(out) or not out.requires_grad or not np.isfinite(out.numpy()).all():
            return  # NaN values (a mean over an empty batch): nothing to compare
        a = Tensor.constant(np.zeros(out.shape, dtype=out.dtype)).requires_grad_()
        us = [self.draws.upstream(t.shape, t.dtype, f"u {k}") for k, t in enumerate(wrt)]
        w = self.draws.upstream(out.shape, out.dtype, "w")
        gw = _grad(out, wrt, grad_outputs=Tensor.constant(w), allow_unused=True, retain_graph=True)
        # (complex values: every product is the real inner product <a, b> = Re sum(a conj(b)))
        gx = _grad(_tensor_dot(out, a), wrt, create_graph=True, allow_unused=True)
        inner = sum((_tensor_dot(g, Tensor.constant(u)) for g, u in zip(gx, us) if g is not None),
                    start=Tensor.constant(np.zeros(())))
        lhs = 0.0
        if inner.requires_grad:
            (ha,) = _grad(inner, [a], allow_unused=True)
            lhs = 0.0 if ha is None else _real_dot(ha.numpy(), w)
        pairs = [(g.numpy(), u) for g, u in zip(gw, us) if g is not None]
        rhs = sum(_real_dot(g, u) for g, u in pairs)
        scale = max(1.0, sum(float(np.sum(np.abs(g * u))) for g, u in pairs))
        if not abs(lhs - rhs) <= 1e-9 * scale:
            raise OpCheckError("hessian symmetry", f"<w, d/da d/dx s u> = {lhs} but <u, d/dx d/da s w> = {rhs} "
                                                   f"at a = 0 (a second derivative through a zero upstream "
                                                   f"gradient is lost)")

    def check_noncontiguous(self) -> None:
        __tracebackhide__ = True
        pairs = [self.draws.layout(v, f"input {i}") if isinstance(v, np.ndarray) else (v, v)
                 for i, v in enumerate(self.cast(np.float64))]
        base, views = [c for c, _ in pairs], [w for _, w in pairs]
        out_c, _, _ = self.run_once(base)
        g_c = g_v = None
        if self.grad_fwd(out_c):
            g_c, g_v = self.draws.layout(self.draws.upstream(out_c.shape, out_c.dtype), "upstream")
        out_c, grads_c, _ = self.run_once(base, g_c)
        out_v, grads_v, _ = self.run_once(views, g_v)
        if not _close(out_v.numpy(), out_c.numpy(), 1e-12, 1e-12):
            raise OpCheckError("noncontiguous", "the output on strided/reversed input views differs from "
                                                "the output on contiguous copies")
        for k, (a, b) in enumerate(zip(grads_v, grads_c)):
            if (a is None) != (b is None) or (a is not None and not _close(a, b, 1e-10, 1e-12)):
                raise OpCheckError("noncontiguous", f"the gradient of differentiated input {k} differs when "
                                                    f"the inputs and the upstream gradient are views")
        if "fwd" in self.modes and self.grad_fwd(out_c):
            ts = [self.draws.layout(t, f"tangent {k}") for k, t in enumerate(self.tangents(np.float64))]
            t_c = self.jvp_once(base, [c for c, _ in ts])
            t_v = self.jvp_once(views, [w for _, w in ts])
            if not _close(t_v, t_c, 1e-10, 1e-12):
                raise OpCheckError("noncontiguous", "the forward-mode tangent differs when the inputs and "
                                                    "the tangents are views")

    def check_float32(self) -> None:
        __tracebackhide__ = True
        f32 = np.dtype(np.float32)
        args, wrt = self.args(self.cast(f32))
        out = self.fn(*args)
        if out.dtype not in self._float32_out_dtypes():
            raise OpCheckError("float32", f"float32 inputs gave a {out.dtype} output")
        g = self.draws.upstream(out.shape, out.dtype)
        self._check_own_backward_dtype(out, g)
        grads = [None if r is None else r.numpy()
                 for r in _grad(out, wrt, grad_outputs=Tensor.constant(g), allow_unused=True)]
        out64, grads64, _ = self.run_once(self.cast(np.float64), _widen(g))
        scale = max(1.0, _finite_max(out64.numpy()))
        if not _close(_widen(out.numpy()), out64.numpy(), 2e-3, 1e-4 * scale):
            raise OpCheckError("float32", "the float32 output is far from the float64 one")
        for k, (r, r64, t) in enumerate(zip(grads, grads64, wrt)):
            if r is None:
                continue
            if r.dtype != t.dtype:
                raise OpCheckError("float32", f"the gradient of differentiated input {k} is {r.dtype}, "
                                              f"not {t.dtype} (a hidden float64 upcast?)")
            if not _close(r, r64, 2e-3, 1e-4 * max(1.0, _finite_max(r64))):
                raise OpCheckError("float32", f"the float32 gradient of input {k} is far from the float64 one")
        if "fwd" in self.modes:
            self._check_float32_tangent(out.dtype)

    def _float32_out_dtypes(self) -> tuple:
        """The dtypes float32 inputs may give: the reference's (an op may cast), else single
        precision, real or complex."""
        if self.ref is None:
            return _SINGLE
        with np.errstate(all="ignore"):
            return (np.asarray(self.ref(np, *self.cast(np.float32))).dtype,)

    def _check_own_backward_dtype(self, out: Tensor, g: Any) -> None:
        """An op's own backward on float32, before the engine's casts: no float64 (or
        complex128) sneaks in."""
        node = out.grad_fn
        if self.target.op is None or node is None or out.dtype not in _SINGLE:
            return
        raw = node.op.backward(node.xp, g, *node.saved)
        for k, r in enumerate(raw if isinstance(raw, tuple) else (raw,)):
            if r is not None and hasattr(r, "dtype") and r.dtype not in _SINGLE:
                raise OpCheckError("float32", f"{node.op.name}.backward returned a {r.dtype} gradient for "
                                              f"input {k} (a hidden float64 upcast)")

    def _check_float32_tangent(self, out_dtype: Any) -> None:
        """Forward mode on float32 inputs: tangents of the output's dtype (``out_dtype``, the
        reference's), from the op's own jvp too, close to the float64 ones."""
        __tracebackhide__ = True
        f32 = np.dtype(np.float32)
        ts = self.tangents(f32)
        op = self.target.op
        if op is not None:  # the op's own jvp rule, before the engine's casts
            inputs = self.cast(f32)
            out = self.fn(*self.args(inputs, requires_grad=False)[0])
            full = [None] * len(inputs)
            for i, t in zip(self.diff, ts):
                full[i] = t
            raw = op.jvp(out.device.xp, tuple(full), out._data, *inputs)
            if out.dtype in _SINGLE and raw is not None and raw.dtype not in _SINGLE:
                raise OpCheckError("float32", f"{op.name}.jvp returned a {raw.dtype} tangent for float32 inputs")
        t32 = self.jvp_once(self.cast(f32), ts)
        if t32.dtype != out_dtype:
            raise OpCheckError("float32", f"the forward-mode tangent is {t32.dtype}, not {out_dtype} like "
                                          f"the output (a hidden float64 upcast in jvp?)")
        t64 = self.jvp_once(self.cast(np.float64), [_widen(t) for t in ts])
        if not _close(t32, t64, 2e-3, 1e-4 * max(1.0, _finite_max(t64))):
            raise OpCheckError("float32", "the float32 forward-mode tangent is far from the float64 one")

    def check_no_mutation(self) -> None:
        __tracebackhide__ = True
        before = self.cast(np.float64)
        arrays = [_readonly(v) for v in before]
        try:
            out, _, _ = self.run_once(arrays)
            if self.grad_fwd(out):
                g = _readonly(self.draws.upstream(out.shape, out.dtype))
                g0 = g.copy()
                out, _, _ = self.run_once(arrays, g)
                out0 = out.numpy().copy()
                if not np.array_equal(g, g0, equal_nan=True):
                    raise OpCheckError("no mutation", "backward changed the upstream gradient")
        except ValueError as exc:
            if "read-only" in str(exc):
                raise OpCheckError("no mutation", f"forward or backward wrote into an input ({exc})") from exc
            raise
        if self.grad_fwd(out) and not np.array_equal(out.numpy(), out0, equal_nan=True):
            raise OpCheckError("no mutation", "backward changed the forward output")
        for k, (a, b) in enumerate(zip(arrays, before)):
            if isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True):
                raise OpCheckError("no mutation", f"input {k} was changed")

    def check_no_aliasing(self) -> None:
        __tracebackhide__ = True
        arrays = self.cast(np.float64)
        args, wrt = self.args(arrays)
        out = self.fn(*args)
        ins = [(f"input {k}", v) for k, v in enumerate(arrays) if isinstance(v, np.ndarray)]
        # a function's output may be a view (t.T, t[1:]) when the op that made it declares one
        maker = out._node.op if self.target.op is None and out._node is not None else self.target.op
        if not (maker is not None and type(maker).is_view):
            for what, v in ins:
                if np.shares_memory(out.numpy(), v):
                    raise OpCheckError("no aliasing", f"the output shares memory with {what} "
                                                      f"({_undeclared_view(self.target.op, maker)})")
        if not wrt or out.dtype.kind not in "fc" or not out.requires_grad:
            return
        g = self.draws.upstream(out.shape, out.dtype)
        grads = _grad(out, wrt, grad_outputs=Tensor.constant(g), allow_unused=True, retain_graph=True)
        out.backward(Tensor.constant(g))  # the same through .backward(): into the leaves' .grad
        others = [("the upstream gradient", g), ("the output", out.numpy())] + ins
        for via, results in (("mg.grad", [r.numpy() for r in grads if r is not None]),
                             (".backward()", [t.grad.numpy() for t in wrt if t.grad is not None])):
            _check_disjoint(via, results, others)


def _undeclared_view(target_op: Any, maker: Any) -> str:
    """Why an output that shares an input's memory is reported: for an Op checked, or for a
    function, the op that made its output."""
    if target_op is not None:
        return "an op whose output is a view must declare is_view = True"
    if maker is None:
        return "the function returns an input tensor itself"
    return f"{maker.name}, the op that made it, does not declare is_view = True, as an op whose output is a view must"


def _check_disjoint(via: str, grads: list[Any], others: list[tuple[str, Any]]) -> None:
    for i, a in enumerate(grads):
        for j in range(i + 1, len(grads)):
            if np.shares_memory(a, grads[j]):
                raise OpCheckError("no aliasing", f"{via}: gradients {i} and {j} share memory")
        for what, b in others:
            if np.shares_memory(a, b):
                raise OpCheckError("no aliasing", f"{via}: gradient {i} shares memory with {what}")


def _finite_max(a: Any) -> float:
    a = np.abs(np.asarray(a)).astype(np.float64)
    return float(np.max(a[np.isfinite(a)], initial=0.0))


#: Single precision, real or complex: what float32 inputs may produce.
_SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))


def _precision(kind_of: Any, dtype: Any) -> Any:
    """``dtype`` (a float dtype) for a float ``kind_of``, its complex type for a complex one."""
    return np.result_type(dtype, np.complex64) if np.dtype(kind_of).kind == "c" else np.dtype(dtype)


def _widen(a: Any) -> Any:
    """``a`` in double precision: complex128 for complex values, float64 otherwise."""
    return a.astype(_precision(a.dtype, np.float64))


def _real_dot(a: Any, b: Any) -> float:
    """The real inner product ``sum(a * b)`` of two arrays, complex numbers as pairs of reals."""
    return float(np.sum((np.asarray(a) * np.conj(b)).real))


def _tensor_dot(t: Tensor, b: Tensor) -> Tensor:
    """:func:`_real_dot` of two Tensors, differentiable in both (written with real products
    only, so it needs no complex multiplication and has a real result)."""
    if t.dtype.kind == "c" or b.dtype.kind == "c":
        return (t.real * b.real).sum() + (t.imag * b.imag).sum()
    return (t * b).sum()


def _strided(a: Any) -> Any:
    """The values of ``a`` in a non-contiguous view: every other element of a bigger
    buffer, with negative strides, and (2-D and up) the axes transposed in memory."""
    if a.ndim == 0:
        buf = np.zeros(3, dtype=a.dtype)
        buf[1] = a
        return buf[1, ...]
    if a.ndim >= 2:
        return _spaced_reversed(np.ascontiguousarray(a.T)).T
    return _spaced_reversed(a)


def _spaced_reversed(a: Any) -> Any:
    rev = (slice(None, None, -1),) * a.ndim
    buf = np.zeros(tuple(2 * n + 1 for n in a.shape), dtype=a.dtype)
    sl = tuple(slice(1, 1 + 2 * n, 2) for n in a.shape)
    buf[sl] = a[rev]
    return buf[sl][rev]


def _readonly(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        a = a.copy()
        a.flags.writeable = False
    return a
