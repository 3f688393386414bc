"""The checks of step 3: the broadcasting rule forward, and summing a gradient back down to a shape.

Expected shapes come from NumPy's own rule; expected gradients come from the
engine (the gradient ``broadcast_to`` hands back to its input).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..backend import host_numpy as np
from .grading import CaseError, Check, Mismatch, attribute, case, own_work, property_check, raised

__all__ = ["BROADCAST_CHECKS"]

_SHAPE_CASES = [((3, 1), (4,), (3, 4)), ((), (2, 3), (2, 3)), ((2, 1, 5), (3, 1), (2, 3, 5)),
                ((2, 0), (1,), (2, 0)), ((5,), (5,), (5,))]


def _file_of(function: Any) -> Any:
    """The file ``function`` was written in (its errors name their line there)."""
    code = getattr(function, "__code__", None)
    return None if code is None else code.co_filename


def _shape_rule(module: ModuleType) -> Any:
    return attribute(module, "broadcast_shape", "the function")


def _sum_rule(module: ModuleType) -> Any:
    return attribute(module, "sum_to_shape", "the function")


_RULE_HINT = ("align the shapes at the right (pad the shorter one with 1s on the left); per axis the sizes must "
              "be equal or one of them 1, and the result takes the other; return a tuple")


def _expect_shape(rule: Any, a: tuple, b: tuple, want: tuple) -> None:
    try:
        with case(f"broadcast_shape({a}, {b})"):
            got = rule(a, b)
    except CaseError as exc:
        if not isinstance(exc.error, ValueError):
            raise
        raise Mismatch(f"broadcast_shape({a}, {b}) == {want} (these shapes do broadcast)",
                       raised(exc.error, _file_of(rule)), _RULE_HINT) from exc
    if not isinstance(got, tuple) or tuple(got) != want:
        raise Mismatch(f"broadcast_shape({a}, {b}) == {want}", repr(got), _RULE_HINT)


def _shape_examples(module: ModuleType) -> None:
    rule = _shape_rule(module)
    for a, b, want in _SHAPE_CASES:
        _expect_shape(rule, a, b, want)


def _shape_mismatch(module: ModuleType) -> None:
    rule = _shape_rule(module)
    for a, b in (((3,), (4,)), ((2, 3), (3, 2))):
        try:
            got = rule(a, b)
        except ValueError:
            continue
        except Exception as exc:
            raise Mismatch(f"broadcast_shape({a}, {b}) to raise ValueError", raised(exc, _file_of(rule)),
                           "raise ValueError (the error NumPy raises for shapes that do not broadcast), "
                           "naming both shapes") from exc
        raise Mismatch(f"broadcast_shape({a}, {b}) to raise ValueError (the sizes 3 and 4 or 2 and 3 "
                       "do not broadcast)", f"it returned {got!r}",
                       "when two sizes differ and neither is 1, raise ValueError naming both shapes")


def _random_shapes(module: ModuleType) -> None:
    from ..testing import strategies as mst

    rule = _shape_rule(module)
    property_check(mst.broadcastable_shapes(2),
                   lambda ab: _expect_shape(rule, ab[0], ab[1], np.broadcast_shapes(*ab)), max_examples=60)


def _engine_sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """What the engine sends back to an input of ``shape`` that was broadcast to ``g.shape``."""
    from .. import creation, functional

    x = creation.zeros(shape, dtype=str(g.dtype), requires_grad=True)
    functional.broadcast_to(x, g.shape).backward(creation.tensor(g))
    return x.grad.numpy()


def _expect_sum(rule: Any, g: np.ndarray, shape: tuple) -> None:
    want = _engine_sum_to(g, shape)
    before = g.copy()
    call = f"sum_to_shape(grad of shape {g.shape}, {shape})"
    with case(call):
        got = rule(g, shape)
    if not np.array_equal(g, before):
        raise Mismatch(f"{call} to leave grad unchanged", "grad was changed in place",
                       "sum into a new array (grad.sum(...) makes one); never write into the gradient you get")
    if not hasattr(got, "shape") or got.shape != shape:
        raise Mismatch(f"{call} to have shape {shape}", f"shape {getattr(got, 'shape', type(got).__name__)}",
                       "sum over the leading axes the input did not have, then over the axes where the input "
                       "had size 1, keeping those (keepdims=True)")
    if getattr(got, "dtype", None) != g.dtype:
        raise Mismatch(f"{call} to have grad's dtype {g.dtype}", f"dtype {getattr(got, 'dtype', None)}",
                       "sum grad itself (grad.sum(...) keeps its dtype): no np.zeros(shape) accumulator, no astype")
    tol = 1e-12 if g.dtype == np.float64 else 1e-5
    if not np.allclose(got, want, rtol=tol, atol=tol):
        raise Mismatch(f"{call} == {want.tolist()} for grad {g.tolist()}", repr(np.asarray(got).tolist()),
                       "an input element that was stretched over k positions gets the sum of those k gradients")
    if isinstance(got, np.ndarray) and np.shares_memory(got, g):
        raise Mismatch(f"{call} to be a new array", "an array that shares grad's memory (grad itself or a view "
                       "of it)", "where there is nothing to sum, return a copy (grad.copy()): the engine may add "
                       "into the gradient you return, and that must not change the one you were given")


_SUM_CASES = [((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), ()), ((2, 3), (2, 3)), ((4, 2, 3), (1, 3)),
              ((2, 0), (1,))]


def _sum_examples(module: ModuleType) -> None:
    rule = _sum_rule(module)
    for dtype in (np.float64, np.float32):  # a float32 gradient stays float32
        for big, small in _SUM_CASES:
            _expect_sum(rule, np.arange(1.0, 1.0 + np.prod(big), dtype=dtype).reshape(big), small)


def _random_sums(module: ModuleType) -> None:
    from hypothesis import strategies as st

    from ..testing import strategies as mst

    rule = _sum_rule(module)
    pairs = mst.broadcastable_shapes(2).flatmap(
        lambda ab: st.tuples(mst.arrays("float64", np.broadcast_shapes(*ab)), st.just(tuple(ab[0]))))
    property_check(pairs, lambda gs: _expect_sum(rule, gs[0], gs[1]), max_examples=60)


_NUMPYS_RULE = ("NumPy's broadcasting functions apply the rule for you: the step is to write it (plain NumPy "
                "arithmetic and sums are fine)")

BROADCAST_CHECKS = [
    own_work({"minigrad_ckpt": "the engine broadcasts for you: the step is to write the rule, with plain NumPy",
              **{f"numpy.{name}": _NUMPYS_RULE for name in ("broadcast_shapes", "broadcast_to", "broadcast_arrays",
                                                            "broadcast", "lib.stride_tricks")}}),
    Check("broadcast_shape of a few shapes", _shape_examples),
    Check("broadcast_shape refuses shapes that do not broadcast", _shape_mismatch),
    Check("broadcast_shape agrees with NumPy on random shapes (Hypothesis)", _random_shapes),
    Check("sum_to_shape of a few gradients matches the engine", _sum_examples),
    Check("sum_to_shape of random gradients matches the engine (Hypothesis)", _random_sums),
]
