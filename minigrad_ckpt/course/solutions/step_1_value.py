"""Step 1, a reference solution: a scalar Value with data, grad, +, * and backward()."""

from __future__ import annotations


class Value:
    """A number, its gradient, and how it was computed."""

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

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        # Each intermediate Value is used once here, so depth-first from the loss is in time:
        # a Value's gradient is complete when its only user has sent it.  (Step 2: shared values.)
        self.grad = 1.0
        stack = [self]
        while stack:
            v = stack.pop()
            v._backward()
            stack.extend(p for p in v._prev if p._prev)  # leaves have nothing to pass on

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


if __name__ == "__main__":
    a, b = Value(2.0), Value(-3.0)
    loss = a * b + a
    loss.backward()
    print(loss, a, b)  # a.grad should be b + 1 = -2.0, b.grad should be a = 2.0
