"""Step 2, a reference solution: the tape and reverse order (topological order by an explicit stack)."""

from __future__ import annotations

import math


class Value:
    """A number, its gradient, and how it was computed (finished: nothing to write here)."""

    def __init__(self, data, _prev=(), _backward=None):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(_prev)
        self._backward = _backward or (lambda: None)

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out = Value(self.data + other.data, (self, other), _backward)
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out = Value(self.data * other.data, (self, other), _backward)
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def tanh(self):
        t = math.tanh(self.data)

        def _backward():
            self.grad += (1.0 - t * t) * out.grad

        out = Value(t, (self,), _backward)
        return out

    def backward(self):
        backward(self)

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


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


if __name__ == "__main__":
    a, b = Value(1.5), Value(-2.0)
    v1 = a * b
    loss = v1 * v1 + v1
    backward(loss)
    print(a, b)  # a.grad = (2 * v1 + 1) * b = 10.0, b.grad = (2 * v1 + 1) * a = -7.5
