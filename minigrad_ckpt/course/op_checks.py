"""The checks of steps 4 and 5: an op class (forward, backward) and its forward mode (jvp).

These are the engine's own tools: :func:`~minigrad_ckpt.testing.gradcheck`
against central differences and the battery :func:`~minigrad_ckpt.testing.check_op`
that every built-in op passes, run on the learner's class.  Their errors name
the worst element; the hints below say what usually causes each kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from ..backend import host_numpy as np
from .grading import CaseError, Check, Mismatch, attribute, own_work, property_check

__all__ = ["OP_CHECKS", "JVP_CHECKS"]

#: What usually breaks each check of the battery, in the words of an op's author.
BATTERY_HINTS = {
    "forward": "forward must compute the formula of the docstring, with xp.<function> (not np.) and operators",
    "gradcheck": "a gradient disagrees with central differences: re-derive it on paper, one input at a time",
    "gradgradcheck": "second derivatives run your backward again on Tensors: write it only with xp.<function>, "
                     "operators and the inputs/out/g it receives (no np., no .item(), no float())",
    "noncontiguous": "the inputs may be strided views: do not rely on their memory layout (no .data, no "
                     "np.frombuffer)",
    "float32": "float32 inputs must give float32 results: avoid np.float64 constants and astype(float)",
    "no mutation": "never write into the inputs, out, g or the tangents (no +=, no x[...] = ...): build new arrays",
    "no aliasing": "return new arrays: an input (or g itself) returned unchanged is an alias the engine may "
                   "write into later",
}


def _op_class(module: ModuleType, name: str) -> type:
    from ..ops.base import Op

    cls = attribute(module, name, "the op class")
    if not (isinstance(cls, type) and issubclass(cls, Op)):
        raise Mismatch(f"{name} to be a class derived from minigrad_ckpt.ops.Op", repr(cls),
                       f"write `class {name}(Op):` (from minigrad_ckpt.ops import Op)")
    return cls


def _applied(cls: type) -> Callable[..., Any]:
    from ..tape import apply

    def fn(*tensors: Any) -> Any:
        return apply(cls(), *tensors)

    return fn


def _inputs(*arrays: np.ndarray) -> tuple:
    from ..creation import tensor

    return tuple(tensor(a, dtype="float64", requires_grad=True) for a in arrays)


def _words(exc: BaseException) -> str:
    """A gradcheck or battery message without its matrices dump, on one line."""
    text = str(exc).split("\nanalytic:\n")[0]
    return " ".join(text.split()).replace("analytic ", "your derivative (analytic) ", 1)


def _gradcheck(cls: type, arrays: Sequence[np.ndarray], modes: tuple[str, ...], hints: Sequence[str]) -> None:
    """gradcheck of the learner's op at ``arrays``; a failure names the input and its formula's hint."""
    from ..testing import GradcheckError, gradcheck

    try:
        gradcheck(_applied(cls), _inputs(*arrays), modes=modes)
    except GradcheckError as exc:
        where = f"input {exc.input} ({'xy'[exc.input]})" if exc.input is not None else "the inputs"
        mode = "forward mode (jvp)" if exc.mode == "fwd" else "backward"
        shapes = " and ".join(f"{'xy'[i]}.shape {a.shape}" for i, a in enumerate(arrays))
        raise Mismatch(f"the {mode} derivative for {where} to match central differences at {shapes}",
                       _words(exc),
                       hints[exc.input] if exc.input is not None and exc.input < len(hints) else hints[0]) from exc


def _battery(cls: type, reference: Callable, modes: tuple[str, ...], hints: Sequence[str]) -> None:
    """check_op on the learner's class at inputs drawn by Hypothesis (broadcast shapes, moderate values)."""
    from hypothesis import strategies as st

    from ..testing import GradcheckError, OpCheckError, check_op
    from ..testing import strategies as mst

    pairs = mst.broadcastable_shapes(2, min_side=1, max_dims=3).flatmap(
        lambda ab: st.tuples(*(mst.arrays("float64", s, bound=2.0) for s in ab)))
    try:
        property_check(pairs, lambda xy: check_op(cls, *xy, reference=reference, modes=modes), max_examples=4,
                       shrink=False)
    except OpCheckError as exc:
        raise Mismatch(f"the op battery's check '{exc.check}' to pass", _words(exc),
                       BATTERY_HINTS.get(exc.check, hints[0])) from exc
    except GradcheckError as exc:
        raise Mismatch("the op battery's gradient checks to pass", _words(exc),
                       hints[exc.input] if exc.input is not None and exc.input < len(hints) else hints[0]) from exc


def _on_a_gpu_like_device(cls: type, arrays: Sequence[np.ndarray], modes: tuple[str, ...]) -> None:
    """Forward, backward (and jvp) on the strict stand-in device, against the same on the CPU.

    The CPU hands the op NumPy arrays, so ``np.exp`` where ``xp.exp`` belongs
    works there and fails only on a GPU; the strict device's arrays refuse
    NumPy's functions and implicit reads, as CuPy's do.
    """
    from .. import creation, func
    from ..testing import strict  # noqa: F401  (registers the device)

    def run(device: str) -> list[np.ndarray]:
        xs = [creation.tensor(a, dtype="float64", device=device, requires_grad=True) for a in arrays]
        out = _applied(cls)(*xs)
        weights = creation.tensor(np.linspace(-1.0, 1.0, out.size).reshape(out.shape), device=device)
        results = [out]
        (out * weights).sum().backward()
        results += [x.grad for x in xs]
        if "fwd" in modes:
            tangents = [creation.tensor(np.cos(a), dtype="float64", device=device) for a in arrays]
            results.append(func.jvp(_applied(cls), tuple(x.detach() for x in xs), tuple(tangents))[1])
        return [r.numpy() for r in results]

    cpu = run("cpu")
    try:
        device = run("strict")
    except Exception as exc:
        what = "forward, backward and jvp" if "fwd" in modes else "forward and backward"
        raise CaseError(f"{what} on a GPU-like device (the strict stand-in: its arrays refuse NumPy's functions, "
                        "as CuPy's do)", exc) from exc
    names = ["the output", "x's gradient", "y's gradient", "the tangent"]
    for name, want, got in zip(names, cpu, device):
        if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
            raise Mismatch(f"{name} on a GPU-like device as on the CPU", f"a difference of "
                           f"{float(np.max(np.abs(got - want))):.3g}", BATTERY_HINTS["forward"])


# ---------------------------------------------------------------------------
# Step 4: an op class
# ---------------------------------------------------------------------------
def _mul_exp_reference(np_: Any, x: Any, y: Any) -> Any:
    return x * np_.exp(y)


_MUL_EXP_HINTS = ("d out / d x = exp(y): return g * xp.exp(y) as the first gradient -- always times g, the "
                  "gradient arriving (a backward that ignores g gives every output element the same gradient)",
                  "d out / d y = x * exp(y), which is out itself: declare save_output = True and return g * out "
                  "-- always times g, the gradient arriving")
_X, _Y = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]), np.array([[0.1, 0.2, -0.3], [-1.0, 0.5, 0.0]])


def _is_op(module: ModuleType) -> None:
    _op_class(module, "MulExp")


def _forward(module: ModuleType) -> None:
    out = _applied(_op_class(module, "MulExp"))(*_inputs(_X, _Y)).numpy()
    want = _mul_exp_reference(np, _X, _Y)
    if out.shape != want.shape or not np.allclose(out, want, rtol=1e-12, atol=0):
        raise Mismatch(f"MulExp()(x, y) == x * exp(y) == {want.round(6).tolist()}", repr(out.round(6).tolist()),
                       BATTERY_HINTS["forward"])


def _backward(module: ModuleType) -> None:
    _gradcheck(_op_class(module, "MulExp"), (_X, _Y), ("rev",), _MUL_EXP_HINTS)


def _broadcast_backward(module: ModuleType) -> None:
    _gradcheck(_op_class(module, "MulExp"), (_X[:, :1], _Y[0]), ("rev",),
               ("the engine sums a broadcast gradient down to each input's shape for you (step 3): return "
                "the full-shape gradient, without summing or reshaping it yourself", _MUL_EXP_HINTS[1]))


def _mul_exp_on_a_device(module: ModuleType) -> None:
    _on_a_gpu_like_device(_op_class(module, "MulExp"), (_X, _Y), ("rev",))


def _mul_exp_battery(module: ModuleType) -> None:
    _battery(_op_class(module, "MulExp"), _mul_exp_reference, ("rev",), _MUL_EXP_HINTS)


OP_CHECKS = [
    own_work(),
    Check("MulExp is an Op class", _is_op),
    Check("forward computes x * exp(y)", _forward),
    Check("backward matches central differences (gradcheck)", _backward),
    Check("backward with broadcast inputs (gradcheck)", _broadcast_backward),
    Check("the op battery on random inputs (check_op, Hypothesis)", _mul_exp_battery),
    Check("forward and backward on a GPU-like device (xp, not np)", _mul_exp_on_a_device),
]


# ---------------------------------------------------------------------------
# Step 5: forward mode
# ---------------------------------------------------------------------------
def _sin_mul(x: Any, y: Any) -> Any:
    return np.sin(x) * y


def _sin_mul_reference(np_: Any, x: Any, y: Any) -> Any:
    return np_.sin(x) * y


_SIN_MUL_HINTS = ("the tangent of sin(x) * y is cos(x) * y * tx + sin(x) * ty: the change of the output "
                  "when x moves by tx and y by ty",
                  "the term of ty is sin(x) * ty (y enters linearly)")
_TX, _TY = np.array([1.0, -0.5, 0.25]), np.array([0.5, 2.0, -1.0])
_SX, _SY = np.array([0.3, -1.2, 2.0]), np.array([1.5, -0.5, 0.75])


def _jvp_of(module: ModuleType, tx: Any, ty: Any) -> Any:
    """The learner's jvp at the fixed point, on copies: a jvp that writes into what it is given must neither
    pass nor change the constants the next checks (or the next grading) read."""
    op = _op_class(module, "SinMul")()
    given = {"tx": tx, "ty": ty, "out": _sin_mul(_SX, _SY), "x": _SX, "y": _SY}
    copies = {name: None if a is None else a.copy() for name, a in given.items()}
    got = op.jvp(np, (copies["tx"], copies["ty"]), copies["out"], copies["x"], copies["y"])
    for name, a in given.items():
        if a is not None and not np.array_equal(copies[name], a):
            raise Mismatch(f"jvp to leave {name} as it was given", f"{name} was changed in place",
                           BATTERY_HINTS["no mutation"])
    return got


def _expect_tangent(module: ModuleType, tx: Any, ty: Any, hint: str) -> None:
    h = 1e-6
    ztx, zty = (np.zeros(3) if tx is None else tx), (np.zeros(3) if ty is None else ty)
    want = (_sin_mul(_SX + h * ztx, _SY + h * zty) - _sin_mul(_SX - h * ztx, _SY - h * zty)) / (2 * h)
    got = _jvp_of(module, tx, ty)
    case = f"jvp(xp, ({'None' if tx is None else 'tx'}, {'None' if ty is None else 'ty'}), out, x, y)"
    if got is None or np.shape(got) not in ((3,), ()) or not np.allclose(got, want, rtol=1e-6, atol=1e-8):
        raise Mismatch(f"{case} == {want.round(6).tolist()} (central differences) at x = {_SX.tolist()}, "
                       f"y = {_SY.tolist()}, tx = {_TX.tolist()}, ty = {_TY.tolist()}",
                       repr(None if got is None else np.asarray(got).round(6).tolist()), hint)


def _both_tangents(module: ModuleType) -> None:
    _expect_tangent(module, _TX, _TY, _SIN_MUL_HINTS[0])


def _one_tangent(module: ModuleType) -> None:
    none_hint = ("None means that input does not move (a constant): leave its term out -- add_tangents(a, b) "
                 "from minigrad_ckpt.ops adds the terms that are not None")
    for tx, ty in ((_TX, None), (None, _TY)):
        try:
            _expect_tangent(module, tx, ty, none_hint)
        except TypeError as exc:
            raise Mismatch("jvp to accept None for the tangent of an input", f"TypeError: {exc}", none_hint) from exc


def _modes_agree(module: ModuleType) -> None:
    _gradcheck(_op_class(module, "SinMul"), (_SX, _SY), ("rev", "fwd"), _SIN_MUL_HINTS)


def _sin_mul_on_a_device(module: ModuleType) -> None:
    _on_a_gpu_like_device(_op_class(module, "SinMul"), (_SX, _SY), ("rev", "fwd"))


def _sin_mul_battery(module: ModuleType) -> None:
    _battery(_op_class(module, "SinMul"), _sin_mul_reference, ("rev", "fwd"), _SIN_MUL_HINTS)


JVP_CHECKS = [
    own_work(),
    Check("jvp with both tangents matches central differences", _both_tangents),
    Check("jvp with one tangent None (a constant input)", _one_tangent),
    Check("forward mode (mg.func.jvp) and backward agree with differences and each other (gradcheck)",
          _modes_agree),
    Check("the op battery in both modes on random inputs (check_op, Hypothesis)", _sin_mul_battery),
    Check("forward, backward and jvp on a GPU-like device (xp, not np)", _sin_mul_on_a_device),
]
