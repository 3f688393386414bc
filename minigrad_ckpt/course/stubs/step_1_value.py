"""Step 1: a scalar Value with data, grad, +, * and backward().

An autograd engine is numbers that remember how they were made.  Write the
class ``Value`` (the shape of Andrej Karpathy's micrograd):

* ``Value(2.0)`` holds the number in ``.data`` and a gradient in ``.grad``,
  which starts at ``0.0``.
* ``a + b`` and ``a * b`` return a *new* Value.  A plain number on either side
  works too: ``a + 1``, ``2 * a`` (Python calls ``__radd__`` / ``__rmul__``
  when the number is on the left).
* Each new Value remembers its inputs (``self._prev``) and how to send its
  gradient back to them (``self._backward``, a function of no arguments):

  - for ``out = a + b``:  ``a.grad += out.grad`` and ``b.grad += out.grad``
  - for ``out = a * b``:  ``a.grad += b.data * out.grad`` and ``b.grad += a.data * out.grad``

  Always ``+=``: a Value used twice (``a * a``) receives a share from each use.
* ``loss.backward()`` sets ``loss.grad = 1.0`` (d loss / d loss) and calls the
  ``_backward`` of every Value the loss was computed from, so that every
  Value's ``.grad`` ends up as d loss / d that Value.  In this step each
  intermediate Value is used once, so visiting them from the loss down to the
  inputs (for example depth-first) is enough; step 2 shows why shared
  intermediate values need more care.

Write it with plain Python numbers: the checks refuse a file that imports
minigrad_ckpt, since this step builds by hand what the engine does.

Check your work with ``minigrad-ckpt course check 1``: it runs your Value on
small programs and on random ones (drawn by Hypothesis) and compares every
gradient with the one minigrad_ckpt's engine computes.
"""

from __future__ import annotations


class Value:
    """A number, its gradient, and how it was computed."""

    def __init__(self, data, _prev=(), _backward=None):
        raise NotImplementedError("step 1: store data, start grad at 0.0, keep _prev and _backward")

    def __add__(self, other):
        raise NotImplementedError("step 1: return a new Value for self + other, with its _backward")

    def __mul__(self, other):
        raise NotImplementedError("step 1: return a new Value for self * other, with its _backward")

    def __radd__(self, other):  # other + self, when other is a number
        raise NotImplementedError("step 1: a number on the left")

    def __rmul__(self, other):  # other * self, when other is a number
        raise NotImplementedError("step 1: a number on the left")

    def backward(self):
        raise NotImplementedError("step 1: seed self.grad = 1.0 and send gradients down to the inputs")

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


if __name__ == "__main__":
    a, b = Value(2.0), Value(-3.0)
    loss = a * b + a
    loss.backward()
    print(loss, a, b)  # a.grad should be b + 1 = -2.0, b.grad should be a = 2.0
