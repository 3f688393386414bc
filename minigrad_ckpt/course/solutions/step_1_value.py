"""Step 1, a reference solution: a scalar Value with data, grad, +, * and backward()."""

from __future__ import annotations

import math


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

    def tanh(self):
        # Not asked in step 1: step 2 builds on this Value, and its graphs use tanh.
        t = math.tanh(self.data)

        def _backward():
            self.grad += (1.0 - t * t) * out.grad

        out = Value(t, (self,), _backward)
        return out

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
