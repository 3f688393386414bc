"""Step 3, a reference solution: broadcasting forward, and summing gradients back down to a shape."""

from __future__ import annotations

import numpy as np


def broadcast_shape(a, b):
    """The shape two arrays of shapes ``a`` and ``b`` broadcast to; ValueError if they do not."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, j in zip(a, b):
        if i != j and 1 not in (i, j):
            raise ValueError(f"shapes {a} and {b} do not broadcast: sizes {i} and {j}")
        out.append(j if i == 1 else i)
    return tuple(out)


def sum_to_shape(grad, shape):
    """``grad`` summed down to ``shape`` (the gradient of an input that was broadcast)."""
    shape = tuple(shape)
    extra = grad.ndim - len(shape)
    summed = grad.sum(axis=tuple(range(extra))) if extra else np.array(grad, copy=True)
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and summed.shape[i] != 1)
    if stretched:
        summed = summed.sum(axis=stretched, keepdims=True)
    return summed.reshape(shape)
