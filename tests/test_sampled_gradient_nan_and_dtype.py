"""``mg.gradient`` (sampled derivatives, ``torch.gradient``): a NaN sample spoils only the
differences that read it, and integer samples answer in the default float dtype.

torch 2.13: ``torch.gradient(tensor([[1.5, nan, 0.5, 2.0]]), dim=1)`` is ``[[nan, -0.5, nan, 1.5]]``
-- the central difference at index 1 reads indices 0 and 2 only.  The engine multiplied the
centre sample by its zero weight (``0 * nan``), so index 1 was NaN too.  ``torch.gradient`` of an
int64 tensor is float32; the engine answered float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

NAN = float("nan")
X = [[1.5, NAN, 0.5, 2.0], [3.0, -1.0, NAN, 4.0]]


@pytest.mark.parametrize("kwargs, expected", [        # torch 2.13's answers
    ({"dim": 1}, [[NAN, -0.5, NAN, 1.5], [-4.0, NAN, 2.5, NAN]]),
    ({"dim": 1, "spacing": 2.0}, [[NAN, -0.25, NAN, 0.75], [-2.0, NAN, 1.25, NAN]]),
    ({"dim": 1, "edge_order": 2}, [[NAN, -0.5, NAN, NAN], [NAN, NAN, 2.5, NAN]]),
    ({"dim": 1, "spacing": ([0.0, 1.0, 3.0, 4.0],)}, [[NAN, NAN, NAN, 1.5], [-4.0, NAN, NAN, NAN]]),
])
def test_a_nan_sample_spoils_only_the_differences_that_read_it(kwargs, expected):
    if isinstance(kwargs.get("spacing"), tuple):
        kwargs = dict(kwargs, spacing=(mg.tensor(kwargs["spacing"][0]),))
    (out,) = mg.gradient(mg.tensor(X), **kwargs)
    np.testing.assert_allclose(out.numpy(), expected, equal_nan=True)
    assert out.dtype == mg.float32


def test_the_backward_pass_through_a_nan_free_difference_is_finite():
    x = mg.tensor(X, requires_grad=True)
    (out,) = mg.gradient(x, dim=1)
    out[0, 1].backward()                                  # (x[0, 2] - x[0, 0]) / 2
    np.testing.assert_array_equal(x.grad.numpy(), [[-0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]])


def test_integer_samples_answer_in_the_default_float_dtype():
    (out,) = mg.gradient(mg.tensor([1, 4, 9, 16]), dim=0)
    assert out.dtype == mg.float32 and out.tolist() == [3.0, 4.0, 6.0, 7.0]   # torch 2.13
