"""``check_op``: the op battery, for your own ops and functions.

The registry's battery (``property_tests/test_op_battery.py``) runs a fixed
list of checks on every built-in op.  :func:`check_op` runs the same checks on
one op of yours -- an :class:`~minigrad_ckpt.ops.Op` instance or class, or any
function of Tensors -- at the inputs you give, or at inputs drawn by a
Hypothesis strategy::

    check_op(MyOp(), x, y)                     # one sample: arrays, Tensors or Python scalars
    check_op(my_function, x, reference=np_fn)  # a function: say what it should compute
    check_op(MyOp(), strategy)                 # a strategy of input tuples (Hypothesis)

The checks (each named in the error when it fails):

``forward``        the output equals the op's NumPy ``reference`` (or ``reference=``)
``gradcheck``      float64 gradients match central differences, in reverse mode and
                   (for an op with a ``jvp``) forward mode, and the modes each other
``gradgradcheck``  second derivatives match, with a random cotangent and with one
                   that has exact zeros (a derivative through a zero upstream gradient)
``noncontiguous``  strided, reversed, transposed-in-memory views of the inputs and of the upstream
                   gradient (and of the tangents) give the same values, gradients (and
                   forward-mode tangents) as contiguous arrays
``float32``        float32 inputs give a float32 output, float32 gradients and (forward
                   mode) float32 tangents, close to the float64 ones
``no mutation``    forward and backward change neither the inputs nor the upstream
                   gradient (the inputs are read-only arrays during the check)
``no aliasing``    the output shares memory with no input (unless the op declares
                   ``is_view``), gradients share memory with nothing

Inputs that are floating arrays are differentiated (``grad_inputs=`` picks
others); integer and boolean arrays and Python scalars are passed through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..backend import host_numpy as np
from ..backward import grad as _grad
from ..ops.base import MissingJvpError
from ..tape import apply
from ..tensor import Tensor
from .gradcheck import MODES, gradcheck, gradgradcheck, warn_forward_not_checked

__all__ = ["check_op", "OpCheckError", "CHECKS"]

#: Every check :func:`check_op` runs, in order.
CHECKS = ("forward", "gradcheck", "gradgradcheck", "noncontiguous", "float32", "no mutation",
          "no aliasing")


class OpCheckError(AssertionError):
    """A check of :func:`check_op` failed; ``check`` names it (one of :data:`CHECKS`)."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(f"check_op [{check}]: {message}")
        self.check = check


def check_op(op_or_function: Any, *sample_inputs: Any, reference: Callable | None = None,
             grad_inputs: Sequence[int] | None = None, skip: Sequence[str] = (),
             modes: Sequence[str] | None = None, eps: float = 1e-6, atol: float = 1e-5,
             rtol: float = 1e-3, max_examples: int = 20, seed: int = 0) -> list[str]:
    """Run the op battery on ``op_or_function`` and return the names of the checks that ran.

    ``op_or_function`` is an Op instance, an Op class without attributes, or a
    callable taking Tensors (and constants) and returning a Tensor.
    ``sample_inputs`` are the inputs of one application (NumPy arrays, Tensors,
    Python scalars, None), or a single Hypothesis strategy that draws a tuple
    of them (a lone array is one input); a strategy runs the battery on
    ``max_examples`` draws.  ``reference(np, *arrays)`` is the expected
    forward (default: the op's own ``reference``; a function without one
    skips that check).  ``grad_inputs`` lists the positions to differentiate
    (default: every floating array).  ``skip`` names checks not to run
    (for instance ``"gradgradcheck"`` for an op without second derivatives).
    ``modes`` are gradcheck's (default: ``("rev", "fwd")``, leaving forward mode
    out with a :class:`ForwardModeNotCheckedWarning` naming the op where an op
    has no ``jvp``; explicit ``modes`` make a missing ``jvp`` an error); ``eps``/``atol``/``rtol``
    too.  Raises :class:`OpCheckError` (or :class:`GradcheckError`, which names the worst element) on a failure.
    """
    __tracebackhide__ = True
    unknown = [c for c in skip if c not in CHECKS]
    if unknown:
        raise ValueError(f"check_op: unknown check(s) in skip: {unknown}; the checks are {CHECKS}")
    fn, ref, is_view, has_jvp = _as_function(op_or_function, reference)
    if modes is not None:
        modes = tuple(modes)
    elif not has_jvp:  # an op class without its own jvp: everything but forward mode, said so
        warn_forward_not_checked("check_op", MissingJvpError(op_or_function.name), stacklevel=2)
        modes = ("rev",)
    if len(sample_inputs) == 1 and _is_strategy(sample_inputs[0]):
        return _check_strategy(fn, ref, is_view, sample_inputs[0], grad_inputs, skip, modes, eps, atol,
                               rtol, max_examples, seed)
    if not sample_inputs:
        raise TypeError("check_op: give the inputs of one application, or a Hypothesis strategy of them")
    return _Battery(fn, ref, is_view, sample_inputs, grad_inputs, skip, modes, eps, atol, rtol, seed).run()


def _as_function(target: Any, reference: Callable | None) -> tuple[Callable, Callable | None, bool, bool]:
    from ..ops.base import Op

    if isinstance(target, type) and issubclass(target, Op):
        target = target()
    if isinstance(target, Op):
        op = target

        def fn(*args: Any) -> Any:
            return apply(op, *args)

        own = type(op).reference is not Op.reference
        ref = reference or ((lambda np_, *a: op.reference(np_, *a)) if own else None)
        return fn, ref, bool(type(op).is_view), type(op).jvp is not Op.jvp
    if not callable(target):
        raise TypeError(f"check_op: expected an Op or a function, got {type(target).__name__}")
    return target, reference, False, True


def _is_strategy(obj: Any) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:
        return False
    return isinstance(obj, SearchStrategy)


def _check_strategy(fn: Callable, ref: Callable | None, is_view: bool, strategy: Any,
                    grad_inputs: Sequence[int] | None, skip: Sequence[str], modes: tuple | None, eps: float,
                    atol: float, rtol: float, max_examples: int, seed: int) -> list[str]:
    __tracebackhide__ = True
    from hypothesis import HealthCheck, given, settings

    ran: list[str] = []

    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(drawn: Any) -> None:
        inputs = drawn if isinstance(drawn, tuple) else (drawn,)
        ran[:] = _Battery(fn, ref, is_view, inputs, grad_inputs, skip, modes, eps, atol, rtol, seed).run()

    run()
    return ran


def _host(v: Any) -> Any:
    """A sample input as the battery stores it: Tensors become NumPy arrays (copies)."""
    if isinstance(v, Tensor):
        return np.array(v.numpy())
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


class _Battery:
    def __init__(self, fn: Callable, ref: Callable | None, is_view: bool, inputs: Sequence[Any],
                 grad_inputs: Sequence[int] | None, skip: Sequence[str], modes: tuple | None, eps: float,
                 atol: float, rtol: float, seed: int) -> None:
        self.fn, self.ref, self.is_view = fn, ref, is_view
        self.inputs = [_host(v) for v in inputs]
        floating = [i for i, v in enumerate(self.inputs) if isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
        self.diff = list(floating if grad_inputs is None else grad_inputs)
        for i in self.diff:
            if i not in floating:
                raise TypeError(f"check_op: input {i} is not a floating or complex array, so it cannot be "
                                f"differentiated")
        self.skip = set(skip)
        self.fwd_optional = modes is None  # a function not known to have jvp rules everywhere: probed in run()
        self.modes = MODES if modes is None else modes
        self.eps, self.atol, self.rtol = eps, atol, rtol
        self.rng = np.random.default_rng(seed)

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
        grads = _grad(out, wrt, grad_outputs=self._as_tensor(g), allow_unused=True)
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
            warn_forward_not_checked("check_op", exc, stacklevel=4)
            self.modes = tuple(m for m in self.modes if m != "fwd")

    def tangents(self, dtype: Any) -> list[Any]:
        return [self._normal(self.inputs[i].shape, _precision(self.inputs[i].dtype, dtype)) for i in self.diff]

    def _normal(self, shape: tuple, dtype: Any) -> Any:
        """Standard normal values of ``dtype`` (real and imaginary parts for a complex one)."""
        g = self.rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            g = g + 1j * self.rng.standard_normal(shape)
        return np.asarray(g).astype(dtype)

    def _as_tensor(self, g: Any) -> Tensor:
        return Tensor.constant(g)

    def upstream(self, out: Tensor, zeros: bool = False) -> Any:
        g = self._normal(out.shape, out.dtype)
        if zeros and g.size:
            g[self.rng.random(out.shape) < 0.5] = 0
            g.reshape(-1)[0] = 0
        return g

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
            if name in ("gradcheck", "gradgradcheck", "float32") and not self.diff:
                continue
            getattr(self, "check_" + name.replace(" ", "_"))()
            ran.append(name)
        return ran

    def check_forward(self) -> None:
        __tracebackhide__ = True
        out, _, _ = self.run_once(self.cast(np.float64))
        with np.errstate(all="ignore"):
            expected = np.asarray(self.ref(np, *self.cast(np.float64)))
        got = out.numpy()
        if got.shape != expected.shape:
            raise OpCheckError("forward", f"output shape {got.shape}, the reference gives {expected.shape}")
        if not np.allclose(got, expected, rtol=1e-7, atol=1e-9, equal_nan=True):
            worst = np.unravel_index(int(np.nanargmax(np.abs(got - expected))), got.shape) if got.size else ()
            idx = tuple(int(i) for i in worst)
            raise OpCheckError("forward", f"output differs from the reference; worst at {idx}: "
                                          f"{got[idx].item()} vs {expected[idx].item()}")

    def check_gradcheck(self) -> None:
        __tracebackhide__ = True
        args, _ = self.args(self.cast(np.float64))
        gradcheck(self.fn, args, eps=self.eps, atol=self.atol, rtol=self.rtol, modes=self.modes)

    def check_gradgradcheck(self) -> None:
        __tracebackhide__ = True
        args, _ = self.args(self.cast(np.float64))
        out = self.fn(*args)
        gradgradcheck(self.fn, args, eps=self.eps, atol=self.atol, rtol=self.rtol, modes=self.modes)
        # and through exact zeros of the cotangent: d(gradient)/d(cotangent) there too
        gradgradcheck(self.fn, args, grad_outputs=[self.upstream(out, zeros=True)], eps=self.eps,
                      atol=self.atol, rtol=self.rtol, modes=self.modes)

    def check_noncontiguous(self) -> None:
        __tracebackhide__ = True
        base = self.cast(np.float64)
        views = [_strided(v) if isinstance(v, np.ndarray) else v for v in base]
        out_c, _, _ = self.run_once(base)
        g = self.upstream(out_c) if self.diff and out_c.dtype.kind in "fc" else None
        out_c, grads_c, _ = self.run_once(base, g)
        out_v, grads_v, _ = self.run_once(views, None if g is None else _strided(g))
        if not np.allclose(out_v.numpy(), out_c.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True):
            raise OpCheckError("noncontiguous", "the output on strided/reversed input views differs from "
                                                "the output on contiguous copies")
        for k, (a, b) in enumerate(zip(grads_v, grads_c)):
            if (a is None) != (b is None) or (a is not None and not np.allclose(a, b, rtol=1e-10, atol=1e-12,
                                                                                 equal_nan=True)):
                raise OpCheckError("noncontiguous", f"the gradient of differentiated input {k} differs when "
                                                    f"the inputs and the upstream gradient are views")
        if "fwd" in self.modes and self.diff and out_c.dtype.kind in "fc":
            ts = self.tangents(np.float64)
            t_c = self.jvp_once(base, ts)
            t_v = self.jvp_once(views, [_strided(t) for t in ts])
            if not np.allclose(t_v, t_c, rtol=1e-10, atol=1e-12, equal_nan=True):
                raise OpCheckError("noncontiguous", "the forward-mode tangent differs when the inputs and "
                                                    "the tangents are views")

    def check_float32(self) -> None:
        __tracebackhide__ = True
        f32 = np.dtype(np.float32)
        out, _, _ = self.run_once(self.cast(f32))
        if out.dtype not in _SINGLE:
            raise OpCheckError("float32", f"float32 inputs gave a {out.dtype} output")
        g = self.upstream(out)
        out, grads, wrt = self.run_once(self.cast(f32), g)
        out64, grads64, _ = self.run_once(self.cast(np.float64), g.astype(_precision(g.dtype, np.float64)))
        scale = max(1.0, float(np.nanmax(np.abs(out64.numpy()), initial=0.0)))
        if not np.allclose(out.numpy(), out64.numpy(), rtol=2e-3, atol=1e-4 * scale, equal_nan=True):
            raise OpCheckError("float32", "the float32 output is far from the float64 one")
        for k, (r, r64) in enumerate(zip(grads, grads64)):
            if r is None:
                continue
            if r.dtype not in _SINGLE:
                raise OpCheckError("float32", f"the gradient of differentiated input {k} is {r.dtype}, "
                                              f"not float32 (a hidden float64 upcast?)")
            gs = max(1.0, float(np.nanmax(np.abs(r64), initial=0.0)))
            if not np.allclose(r, r64, rtol=2e-3, atol=1e-4 * gs, equal_nan=True):
                raise OpCheckError("float32", f"the float32 gradient of input {k} is far from the float64 one")
        if "fwd" in self.modes:
            ts = self.tangents(f32)
            t32 = self.jvp_once(self.cast(f32), ts)
            if t32.dtype not in _SINGLE:
                raise OpCheckError("float32", f"the forward-mode tangent is {t32.dtype}, not float32 "
                                              f"(a hidden float64 upcast in jvp?)")
            t64 = self.jvp_once(self.cast(np.float64), [t.astype(_precision(t.dtype, np.float64)) for t in ts])
            ts_ = max(1.0, float(np.nanmax(np.abs(t64), initial=0.0)))
            if not np.allclose(t32, t64, rtol=2e-3, atol=1e-4 * ts_, equal_nan=True):
                raise OpCheckError("float32", "the float32 forward-mode tangent is far from the float64 one")

    def check_no_mutation(self) -> None:
        __tracebackhide__ = True
        before = self.cast(np.float64)
        arrays = [_readonly(v) for v in before]
        try:
            out, _, _ = self.run_once(arrays)
            if self.diff and out.dtype.kind in "fc":
                g = _readonly(self.upstream(out))
                g0 = g.copy()
                self.run_once(arrays, g)
                if not np.array_equal(g, g0, equal_nan=True):
                    raise OpCheckError("no mutation", "backward changed the upstream gradient")
        except ValueError as exc:
            if "read-only" in str(exc):
                raise OpCheckError("no mutation", f"forward or backward wrote into an input ({exc})") from exc
            raise
        for k, (a, b) in enumerate(zip(arrays, before)):
            if isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True):
                raise OpCheckError("no mutation", f"input {k} was changed")

    def check_no_aliasing(self) -> None:
        __tracebackhide__ = True
        arrays = self.cast(np.float64)
        args, wrt = self.args(arrays)
        out = self.fn(*args)
        ins = [(f"input {k}", v) for k, v in enumerate(arrays) if isinstance(v, np.ndarray)]
        if not self.is_view:
            for what, v in ins:
                if np.shares_memory(out.numpy(), v):
                    raise OpCheckError("no aliasing", f"the output shares memory with {what} (an op whose "
                                                      f"output is a view must declare is_view = True)")
        if not wrt or out.dtype.kind not in "fc" or not out.requires_grad:
            return
        g = self.upstream(out)
        grads = [r.numpy() for r in _grad(out, wrt, grad_outputs=self._as_tensor(g), allow_unused=True)
                 if r is not None]
        others = [("the upstream gradient", g), ("the output", out.numpy())] + ins
        for i, a in enumerate(grads):
            for j in range(i + 1, len(grads)):
                if np.shares_memory(a, grads[j]):
                    raise OpCheckError("no aliasing", f"gradients {i} and {j} share memory")
            for what, b in others:
                if np.shares_memory(a, b):
                    raise OpCheckError("no aliasing", f"gradient {i} shares memory with {what}")


#: Single precision, real or complex: what float32 inputs may produce.
_SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))


def _precision(kind_of: Any, dtype: Any) -> Any:
    """``dtype`` (a float dtype) for a float ``kind_of``, its complex type for a complex one."""
    return np.result_type(dtype, np.complex64) if np.dtype(kind_of).kind == "c" else np.dtype(dtype)


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

