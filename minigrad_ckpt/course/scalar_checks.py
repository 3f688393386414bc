"""The checks of steps 1 and 2: a scalar ``Value`` and the order of backward.

Every expected gradient comes from the engine: the same little program runs
on the learner's ``Value`` and on float64 Tensors, and the two must agree.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from .grading import Check, Mismatch, attribute, case, own_work, property_check, raised
from .programs import Program, close, engine_gradients, programs

__all__ = ["VALUE_CHECKS", "ORDER_CHECKS"]


def _tanh(v: Any) -> Any:
    return v.tanh()


def _value_class(module: ModuleType) -> type:
    return attribute(module, "Value", "the class")


def _grads_of(program: Program, make: Callable[[float], Any], backward: Callable[[Any], None]) -> tuple:
    leaves = [make(v) for v in program.leaves]
    loss = program.run(leaves, _tanh)
    backward(loss)
    return loss, leaves


def _compare(program: Program, make: Callable[[float], Any], backward: Callable[[Any], None],
             hint: str, zero_hint: bool = True) -> None:
    """The learner's loss and leaf gradients for ``program`` against the engine's.  ``zero_hint``: a leaf
    gradient left at 0 is explained as a Value backward never reached (step 1's usual cause; in step 2 a
    wrong order leaves zeros too, and the case's own hint says so)."""
    want_loss, want = engine_gradients(program)
    with case(f"the program {program}, then backward"):
        loss, leaves = _grads_of(program, make, backward)
    if not close(float(loss.data), want_loss):
        raise Mismatch(f"loss.data == {want_loss!r} for {program}", repr(loss.data),
                       "check the forward computation of + and * (and tanh) first")
    got = [leaf.grad for leaf in leaves]
    for name, g, w in zip("abc", got, want):
        if not isinstance(g, (int, float)):  # np.float64 is a float; np.float32, a Value, an array are not
            raise Mismatch(f"{name}.grad to be a number (a Python float) after loss.backward() for {program}",
                           f"{type(g).__name__} {g!r}",
                           "keep .data and .grad Python floats (float64: float(data)); a NumPy float32 rounds "
                           "every step to 7 digits, and a Value or an array in .grad is not a number")
        if not close(float(g), w):
            never = zero_hint and g == 0 and w != 0
            raise Mismatch(f"{name}.grad == {w!r} after loss.backward() for {program}",
                           f"{name}.grad == {g!r} (all leaves: {got})",
                           f"{name}.grad is 0: either backward() never reached {name} -- it must call the "
                           "_backward of every Value the loss was computed from, not only the loss's own -- or a "
                           "later share overwrote the earlier ones (accumulate with +=, never =)"
                           if never else hint)
    if getattr(loss, "grad", None) != 1.0:
        raise Mismatch("loss.grad == 1.0 after loss.backward()", repr(getattr(loss, "grad", None)),
                       "backward starts by setting the loss's own gradient to 1 (d loss / d loss)")


def _value_holds_numbers(module: ModuleType) -> None:
    Value = _value_class(module)
    v = Value(2.0)
    if getattr(v, "data", None) != 2.0 or getattr(v, "grad", None) != 0.0:
        raise Mismatch("Value(2.0) to have .data == 2.0 and .grad == 0.0",
                       f".data == {getattr(v, 'data', None)!r}, .grad == {getattr(v, 'grad', None)!r}",
                       "store the number in self.data and start self.grad at 0.0 in __init__")


_FORWARD_CASES = [("a + b", lambda a, b: a + b, 5.0), ("a * b", lambda a, b: a * b, 6.0),
                  ("a + 1", lambda a, b: a + 1, 3.0), ("a * 4", lambda a, b: a * 4, 8.0),
                  ("1 + a", lambda a, b: 1 + a, 3.0), ("4 * a", lambda a, b: 4 * a, 8.0)]


def _plus_and_times(module: ModuleType) -> None:
    Value = _value_class(module)
    for text, f, want in _FORWARD_CASES:
        hint = ("a number on the left calls the Value's __radd__ / __rmul__: define them (they can call "
                "__add__ / __mul__)" if text[0].isdigit() else
                "wrap a plain number in a Value first (other = other if isinstance(other, Value) "
                "else Value(other)), then return a new Value")
        expected = f"{text} with a = Value(2.0), b = Value(3.0) to be a Value with .data {want}"
        try:
            out = f(Value(2.0), Value(3.0))
        except TypeError as exc:
            raise Mismatch(expected, f"TypeError: {exc}", hint) from exc
        except RecursionError as exc:  # __radd__ written `return other + self`: Python calls __radd__ again
            raise Mismatch(expected, raised(exc, getattr(module, "__learner_path__", None)),
                           "an operator calls itself without end: in __radd__ / __rmul__ write `self + other` / "
                           "`self * other` (`other + self` with a number on the left calls __radd__ again)") from exc
        if not isinstance(out, Value) or out.data != want:
            raise Mismatch(expected, f"{type(out).__name__} with .data {getattr(out, 'data', None)!r}", hint)


def _fixed(leaves: tuple[float, ...], *steps: tuple[str, tuple]) -> Program:
    return Program(leaves, tuple(steps))


_BACKWARD_CASES = [
    (_fixed((2.0, -3.0), ("*", (0, 1))), "the gradient of a product sends each input the other input "
     "times the output's gradient: a.grad += b.data * out.grad"),
    (_fixed((2.0, -3.0), ("+", (0, 1))), "a sum passes the output's gradient to both inputs unchanged"),
    (_fixed((3.0,), ("*", (0, 0))), "a Value used twice receives a gradient from each use: accumulate "
     "with += (never =), so the second use does not overwrite the first"),
    (_fixed((2.0, -3.0, 4.0), ("*", (0, 1)), ("*", (3, 2))),
     "gradients pass through every level: each _backward multiplies by out.grad (the chain rule: v1's out.grad "
     "is c, not 1), and backward() calls the _backward of every Value below the loss, not only the loss's own"),
    (_fixed((2.0, 5.0), ("*", (3.0, 0)), ("+", (2, 1.0)), ("*", (3, 1))),
     "the numbers in the program are constants: wrap them in a Value (their gradient is simply unused)"),
]


def _backward_examples(module: ModuleType) -> None:
    Value = _value_class(module)
    for program, hint in _BACKWARD_CASES:
        _compare(program, Value, lambda loss: loss.backward(), hint)


def _random_trees(module: ModuleType) -> None:
    Value = _value_class(module)
    property_check(programs(share_intermediates=False),
                   lambda p: _compare(p, Value, lambda loss: loss.backward(),
                                      "each Value's _backward sends its gradient to its inputs; backward() "
                                      "must call the _backward of every Value the loss was computed from"),
                   max_examples=25)


VALUE_CHECKS = [
    own_work({"minigrad_ckpt": "step 1 builds by hand what the engine does: write Value with plain Python numbers, "
                               "without minigrad_ckpt"}),
    Check("Value(2.0) holds data and a zero grad", _value_holds_numbers),
    Check("+ and * make new Values (numbers on either side too)", _plus_and_times),
    Check("backward() of small expressions matches the engine", _backward_examples),
    Check("backward() of random expression trees matches the engine (Hypothesis)", _random_trees),
]


# ---------------------------------------------------------------------------
# Step 2: the tape and reverse order
# ---------------------------------------------------------------------------
def _all_values(root: Any) -> list[Any]:
    """Every Value ``root`` was computed from (and ``root``), found with an explicit stack."""
    seen, stack, out = {id(root)}, [root], []
    while stack:
        v = stack.pop()
        out.append(v)
        for p in v._prev:
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    return out


def _check_order(order: Any, root: Any, where: str) -> None:
    if not isinstance(order, list):
        raise Mismatch("topological_order(root) to return a list", type(order).__name__,
                       "collect the Values in a list and return it")
    ids = [id(v) for v in order]
    if len(set(ids)) != len(ids):
        raise Mismatch(f"each Value once in topological_order(root) {where}", "a Value listed twice",
                       "remember the Values you have visited (a set of them) and skip those")
    missing = len({id(v) for v in _all_values(root)} - set(ids))
    if missing:
        raise Mismatch(f"every Value the root depends on {where}", f"{missing} of them missing",
                       "visit the inputs (_prev) of every Value you reach, not only the root's")
    position = {i: k for k, i in enumerate(ids)}
    for v in order:
        for p in v._prev:
            if position[id(p)] > position[id(v)]:
                raise Mismatch(f"every Value after all of its inputs {where}",
                               f"Value(data={v.data!r}) at position {position[id(v)]} before its input "
                               f"Value(data={p.data!r}) at {position[id(p)]}",
                               "append a Value only after all of its inputs have been appended (post-order); "
                               "mark a Value visited when you expand it, not when you push it (a Value pushed "
                               "early may be reached again, deeper, through another of its users)")
    if order and order[-1] is not root:
        raise Mismatch("the root last", f"Value(data={order[-1].data!r}) last",
                       "the root depends on everything, so it comes last")


# v1 is used by v2 and by the loss, and v2 is the loss's other input: both operand orders, since a search
# that marks a Value visited when it is pushed (not when it is expanded) goes wrong in only one of them.
_DIAMONDS = (_fixed((1.5, -2.0), ("*", (0, 1)), ("*", (2, 2)), ("+", (3, 2))),
             _fixed((1.5, -2.0), ("*", (0, 1)), ("*", (2, 2)), ("+", (2, 3))))


def _order_of_diamond(module: ModuleType) -> None:
    Value, order_of = _value_class(module), attribute(module, "topological_order", "the function")
    for diamond in _DIAMONDS:
        loss = diamond.run([Value(v) for v in diamond.leaves], _tanh)
        with case(f"topological_order(loss) for {diamond}"):
            order = order_of(loss)
        _check_order(order, loss, f"for {diamond}")


def _backward_of(module: ModuleType) -> Callable[[Any], None]:
    return attribute(module, "backward", "the function")


def _backward_of_diamond(module: ModuleType) -> None:
    for diamond in _DIAMONDS:
        _compare(diamond, _value_class(module), _backward_of(module),
                 "v1 is used twice: its gradient is complete only when both users have sent their share. "
                 "Walk the topological order reversed, so every user of a Value runs its _backward before it",
                 zero_hint=False)


def _random_graphs(module: ModuleType) -> None:
    Value, backward = _value_class(module), _backward_of(module)
    order_of = attribute(module, "topological_order", "the function")

    def body(p: Program) -> None:
        loss = p.run([Value(v) for v in p.leaves], _tanh)
        _check_order(order_of(loss), loss, f"for {p}")
        _compare(p, Value, backward, "seed loss.grad = 1.0, then call _backward() of each Value in "
                                     "reversed(topological_order(loss))", zero_hint=False)

    property_check(programs(share_intermediates=True, ops=("+", "*", "tanh")), body, max_examples=50)


def _long_chain(module: ModuleType) -> None:
    Value, backward = _value_class(module), _backward_of(module)
    x = Value(1.0)
    v = x
    for _ in range(5000):
        v = v + x * 0.001
    backward(v)
    if not close(x.grad, 6.0):
        raise Mismatch("x.grad == 6.0 for v = x, then 5000 times v = v + x * 0.001", repr(x.grad),
                       "every link of the chain must be visited once, in reverse order")


ORDER_CHECKS = [
    own_work({"minigrad_ckpt": "the order is what this step writes: only step 1's finished Value may come from "
                               "minigrad_ckpt (the stub's import)",
              "graphlib": "graphlib sorts the graph for you: the step is to write that search, with a loop and an "
                          "explicit stack"},
             allowed=("minigrad_ckpt.course.solutions.step_1_value",)),
    Check("topological_order of a graph with a shared value", _order_of_diamond),
    Check("backward of that graph matches the engine", _backward_of_diamond),
    Check("random graphs with shared values: order and gradients (Hypothesis)", _random_graphs),
    Check("a chain of 5000 ops (no recursion limit)", _long_chain),
]
