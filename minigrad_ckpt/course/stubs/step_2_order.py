"""Step 2: the tape and reverse order -- why backward walks a topological order.

``Value`` is step 1's, finished and imported from its reference solution (with
``tanh`` added).  What is left is the order in which ``backward`` calls the
``_backward`` of each Value.

Take ``v1 = a * b; v2 = v1 * v1; loss = v2 + v1``.  ``v1`` is used twice, so
its gradient is the sum of two shares: one from ``v2`` and one from ``loss``.
If ``v1._backward()`` ran after ``loss`` sent its share but before ``v2`` did,
it would pass an incomplete gradient on to ``a`` and ``b`` -- and running it
again later would send the first share twice.  The rule: **a Value may pass
its gradient on only after every Value that uses it has passed theirs.**

A *topological order* lists every Value after all of its inputs.  Walked in
*reverse*, it visits every Value after all of its users: exactly the rule.

minigrad_ckpt never has to search for this order: its tape records each op as
it runs, and the order in which things were computed is a topological order
(an op can only run after its inputs exist).  Backward plays the tape in
reverse (``docs/tape.md``; ``mg.backward_steps(loss)`` shows it node by node).
micrograd, which keeps no tape, finds the order by a depth-first search from
the loss -- which is what you write here:

* ``topological_order(root)``: a list of every Value ``root`` was computed
  from, each once, each after all of its inputs (``v._prev``), ``root`` last.
  Do it with a loop and an explicit stack, not with recursion (nor with
  ``graphlib``, which would do the search for you): a chain of
  5000 ops would exceed Python's recursion limit (the checks try one).
  Hint: push ``(value, inputs_done)`` pairs; append a Value to the order when
  you pop it the second time, after its inputs.
* ``backward(root)``: set ``root.grad = 1.0``, then call ``v._backward()``
  for every ``v`` in ``reversed(topological_order(root))``.

Check with ``minigrad-ckpt course check 2``: your order is checked on random
graphs with shared values (Hypothesis), and the gradients against the engine.
"""

from __future__ import annotations

# Step 1's Value, finished (with tanh): data, grad, +, * and the _prev / _backward each Value
# keeps.  Its own loss.backward() is step 1's depth-first walk, which this step replaces.
from minigrad_ckpt.course.solutions.step_1_value import Value


def topological_order(root):
    """Every Value ``root`` depends on (and ``root``), each once, each after all of its inputs."""
    raise NotImplementedError("step 2: a depth-first search with an explicit stack")


def backward(root):
    """Fill ``.grad`` of every Value ``root`` depends on with d root / d that Value."""
    raise NotImplementedError("step 2: seed root.grad, then reversed(topological_order(root))")


if __name__ == "__main__":
    a, b = Value(1.5), Value(-2.0)
    v1 = a * b
    loss = v1 * v1 + v1
    backward(loss)
    print(a, b)  # a.grad = (2 * v1 + 1) * b = 10.0, b.grad = (2 * v1 + 1) * a = -7.5
