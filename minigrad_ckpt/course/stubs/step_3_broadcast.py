"""Step 3: broadcasting forward, and summing gradients back down to a shape.

From here on values are arrays.  ``x + b`` with ``x`` of shape ``(32, 10)``
and a bias ``b`` of shape ``(10,)`` works because NumPy *broadcasts*: it
lines the shapes up at the right, and an axis of size 1 (or a missing leading
axis) is stretched to the other's size.

Backward must undo that.  The bias was used 32 times (once per row), so its
gradient is the sum of the 32 rows of the output's gradient: a gradient of
shape ``(32, 10)`` must be *summed down* to ``(10,)``.  Every op that
broadcasts its inputs needs this; minigrad_ckpt does it once, for all ops,
where backward hands a gradient to an input (so an op's ``backward`` may
return the broadcast shape -- step 4 relies on it).  Write both directions:

* ``broadcast_shape(a, b)``: the shape of ``x + y`` for ``x.shape == a`` and
  ``y.shape == b`` (tuples of ints), as a tuple.  Pad the shorter shape with
  1s on the left; per axis the sizes must be equal or one of them 1, and the
  result takes the other one (so ``(2, 0)`` and ``(1,)`` give ``(2, 0)``).
  Raise ``ValueError`` when two sizes differ and neither is 1.
* ``sum_to_shape(grad, shape)``: ``grad`` (a NumPy array) has the broadcast
  shape; return a new array of ``shape``, where each element is the sum of
  the gradients of every position it was stretched over.  Sum over the
  leading axes ``shape`` does not have, then over the axes where ``shape``
  has a 1 (``keepdims=True``).  Never write into ``grad``.

Use NumPy, but not its broadcasting functions (``np.broadcast_shapes``,
``np.broadcast_to``, ``np.broadcast_arrays``, ``np.broadcast``): the point is
to write the rule; the checks refuse a file that uses them.  Check with ``minigrad-ckpt course check 3``: shapes
are compared with NumPy's rule and gradients with what the engine's
``broadcast_to`` sends back, on shapes drawn by Hypothesis (scalars, size-1
and empty axes included).
"""

from __future__ import annotations

import numpy as np


def broadcast_shape(a, b):
    """The shape two arrays of shapes ``a`` and ``b`` broadcast to; ValueError if they do not."""
    raise NotImplementedError("step 3: the broadcasting rule")


def sum_to_shape(grad, shape):
    """``grad`` summed down to ``shape`` (the gradient of an input that was broadcast)."""
    raise NotImplementedError("step 3: sum the stretched axes")


if __name__ == "__main__":
    print(broadcast_shape((3, 1), (4,)))                        # (3, 4)
    print(sum_to_shape(np.ones((2, 3)), (3,)))                  # [2. 2. 2.]
    print(sum_to_shape(np.arange(6.0).reshape(2, 3), (2, 1)))   # [[ 3.] [12.]]
