"""``mg.gradient`` (sampled derivatives, ``torch.gradient``): a NaN sample spoils only the
differences that read it, and integer samples answer in the default float dtype.

torch 2.13: ``torch.gradient(tensor([[1.5, nan, 0.5, 2.0]]), dim=1)`` is ``[[nan, -0.5, nan, 1.5]]``
-- the central difference at index 1 reads indices 0 and 2 only.  The engine multiplied the
centre sample by its zero weight (``0 * nan``), so index 1 was NaN too.  ``torch.gradient`` of an
int64 tensor is float32; the engine answered float64.

With one spacing ``h`` torch (and NumPy) subtract neighbours before they scale,
``(f[i+1] - f[i-1]) / 2h``; the engine weighted each sample by ``+-1/2h`` first, so near-equal
neighbours cancelled to a wrong difference: ``gradient([1, 7, 1 + 2**-52, 3], spacing=0.3)[1]``
was 4.44e-16 where torch says 3.70e-16, and a subnormal 1.5 ulps rounded up.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

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


# torch 2.13's torch.gradient(tensor(x, dtype), spacing=h, edge_order=e), bit for bit
_UNIFORM_CASES = [
    ([1.0, 7.0, 1 + 2**-52, 3.0], "float64", 0.3, 1,
     [20.0, 3.7007434154171886e-16, -6.666666666666667, 6.666666666666666]),
    ([1.0, 7.0, 1 + 2**-23, 3.0], "float32", 0.3, 1,
     [20.0, 1.986821445143505e-07, -6.666666507720947, 6.666666030883789]),
    ([5e-324, 0.0, 1.5e-323, 0.1], "float64", 1.0, 1, [-5e-324, 5e-324, 0.05, 0.1]),
    ([2.0, 2 + 2**-51, 2 + 2**-50, 5.0], "float64", 0.1, 2,
     [4.440892098500626e-15, 4.440892098500626e-15, 14.999999999999996, 44.99999999999998]),
    ([1.0, 7.0, 1 + 2**-23, 3.0], "float32", 0.3, 2, [40.0, 1.986821445143505e-07, -6.666666507720947, 20.0]),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("x, dtype, h, edge_order, expected", _UNIFORM_CASES)
def test_one_spacing_subtracts_the_neighbours_before_it_scales(x, dtype, h, edge_order, expected, device):
    if device == "strict" and dtype == "float32":
        device = "strict-f32"  # float32 arithmetic with no float64 inside
    t = mg.tensor(np.asarray(x, dtype=dtype), device=device)
    (out,) = mg.gradient(t, spacing=h, edge_order=edge_order)
    assert out.dtype == getattr(mg, dtype)
    np.testing.assert_array_equal(out.numpy(), np.asarray(expected, dtype=dtype))
