"""Small scalar programs, run on the learner's ``Value`` and on the engine's Tensors alike.

A program is a few leaves (numbers) and a list of steps; each step applies
``+``, ``*`` or ``tanh`` to earlier values or to constants.  The same program
runs on any number type that has ``+`` and ``*`` (and a ``tanh`` function), so
the engine computes the expected gradients of exactly what the learner's
``Value`` computed.  A *tree* program uses each intermediate value at most
once (step 1: no topological order needed yet); a *graph* program may use it
several times (step 2: the order of backward matters).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Program", "programs", "engine_gradients"]

LEAF_NAMES = "abc"


@dataclass(frozen=True)
class Program:
    """Leaves and steps; an operand is an ``int`` (an earlier value: leaves first) or a ``float`` constant."""

    leaves: tuple[float, ...]
    steps: tuple[tuple[str, tuple[int | float, ...]], ...]

    def run(self, leaves: Sequence[Any], tanh: Callable[[Any], Any]) -> Any:
        """The last step's value, computed from ``leaves`` (Values, Tensors or floats)."""
        pool = list(leaves)
        for op, args in self.steps:
            a = [pool[x] if isinstance(x, int) else x for x in args]
            pool.append(a[0] + a[1] if op == "+" else a[0] * a[1] if op == "*" else tanh(a[0]))
        return pool[-1]

    def __str__(self) -> str:
        names = list(LEAF_NAMES[:len(self.leaves)])
        lines = [", ".join(f"{n} = Value({v!r})" for n, v in zip(names, self.leaves))]
        for k, (op, args) in enumerate(self.steps):
            a = [names[x] if isinstance(x, int) else repr(x) for x in args]
            names.append("loss" if k == len(self.steps) - 1 else f"v{k + 1}")
            rhs = f"{a[0]}.tanh()" if op == "tanh" else f"{a[0]} {op} {a[1]}"
            lines.append(f"{names[-1]} = {rhs}")
        return "; ".join(lines)


def programs(share_intermediates: bool, ops: Sequence[str] = ("+", "*")) -> Any:
    """A Hypothesis strategy of :class:`Program`; ``share_intermediates=False`` draws trees.

    Every step counts: the intermediate values no step used are combined into
    the loss at the end, so the loss depends on all of them (a step nothing
    used would test nothing).  In a graph an operand is drawn more often from
    the intermediate values than from the leaves, so that values are shared
    and a shared value is often also an input of one of its other users --
    ``v2 = v1 * a; loss = v1 + v2`` -- the shape that catches an order which
    lists a Value before one of its inputs.
    """
    from hypothesis import strategies as st

    values = st.integers(-20, 20).map(lambda k: k / 8)  # exact in binary: the printed program is the program

    @st.composite
    def draw_program(draw: Any) -> Program:
        leaves = tuple(draw(st.lists(values, min_size=1, max_size=len(LEAF_NAMES))))
        steps: list[tuple[str, tuple[int | float, ...]]] = []
        unused: list[int] = []  # intermediates no step has used yet (a tree may use only these)

        def operand() -> int:
            inner = range(len(leaves), len(leaves) + len(steps)) if share_intermediates else unused
            pool = list(inner) if inner and draw(st.booleans()) else list(range(len(leaves))) + list(inner)
            chosen = draw(st.sampled_from(pool))
            if chosen in unused:
                unused.remove(chosen)
            return chosen

        def append(op: str, args: tuple[int | float, ...]) -> None:
            steps.append((op, args))
            unused.append(len(leaves) + len(steps) - 1)

        for _ in range(draw(st.integers(1, 7))):
            op = draw(st.sampled_from(ops))
            first = operand()
            args: tuple[int | float, ...] = (first,)
            if op != "tanh":
                second = draw(values) if draw(st.booleans()) else operand()
                args = (first, second) if draw(st.booleans()) else (second, first)  # numbers on either side
            append(op, args)
        while len(unused) > 1:  # the loss depends on every step
            a, b = unused.pop(0), unused.pop(0)
            append(draw(st.sampled_from([o for o in ops if o != "tanh"])), (a, b))
        return Program(leaves, tuple(steps))

    return draw_program()


def engine_gradients(program: Program) -> tuple[float, list[float]]:
    """The loss and d loss / d leaf for every leaf, by the engine (float64, reverse mode)."""
    from .. import creation, functional

    leaves = [creation.tensor(v, dtype="float64", requires_grad=True) for v in program.leaves]
    loss = program.run(leaves, functional.tanh)
    if not getattr(loss, "requires_grad", False):  # a program of constants only
        return float(loss), [0.0] * len(leaves)
    loss.backward()
    return loss.item(), [0.0 if t.grad is None else t.grad.item() for t in leaves]


def close(a: float, b: float) -> bool:
    """Equal up to rounding (the learner may add the same numbers in another order)."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
