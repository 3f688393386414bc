"""Step 2, a reference solution: the tape and reverse order (topological order by an explicit stack)."""

from __future__ import annotations

# Step 1's Value, finished (with tanh): data, grad, +, * and the _prev / _backward each Value
# keeps.  Its own loss.backward() is step 1's depth-first walk, which this step replaces.
from minigrad_ckpt.course.solutions.step_1_value import Value  # noqa: F401  (the checks build with it)


def topological_order(root):
    """Every Value ``root`` depends on (and ``root``), each once, each after all of its inputs."""
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        v, inputs_done = stack.pop()
        if inputs_done:
            order.append(v)  # second visit: every input is already in the order
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        stack.append((v, True))
        stack.extend((p, False) for p in v._prev if id(p) not in seen)
    return order


def backward(root):
    """Fill ``.grad`` of every Value ``root`` depends on with d root / d that Value."""
    root.grad = 1.0
    for v in reversed(topological_order(root)):
        v._backward()  # every user of v has already sent its share: v.grad is complete
