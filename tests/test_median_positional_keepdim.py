"""``mg.median(x, 1, True)``: PyTorch's positional ``keepdim`` (``torch.median(input, dim, keepdim)``)
gives PyTorch's pair, as ``mg.median(x, 1, keepdim=True)`` did.

NumPy's third argument is ``out``, which mg's median took and ignored: ``mg.median(x, 1, True)``
answered NumPy's median (the mean of the two middle values, no kept dim) -- ``[2., 0.25]`` where torch
2.13 gives ``values=[[2.], [0.]], indices=[[2], [3]]``, silently.  Any other ``out`` is refused, as
``mg.quantile``'s is (quantile took PyTorch's positional keepdim the same way already).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = [[3.0, 1.0, 2.0, 2.0], [0.5, 4.0, -1.0, 0.0]]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_a_positional_bool_is_pytorchs_keepdim(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor(X, dtype=dtype, device=device)
    values, indices = mg.median(x, 1, True)  # torch 2.13: values [[2.], [0.]], indices [[2], [3]]
    np.testing.assert_array_equal(values.numpy(), [[2.0], [0.0]])
    np.testing.assert_array_equal(indices.numpy(), [[2], [3]])
    values, indices = mg.median(x, 1, False)
    np.testing.assert_array_equal(values.numpy(), [2.0, 0.0])
    values, indices = mg.nanmedian(x, 0, True)  # torch 2.13: [[0.5, 1., -1., 0.]], [[1, 0, 1, 1]]
    np.testing.assert_array_equal(values.numpy(), [[0.5, 1.0, -1.0, 0.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 0, 1, 1]])


def test_numpys_calls_stay_and_another_out_is_refused():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    np.testing.assert_array_equal(mg.median(x, 1).detach().numpy(), [2.0, 0.25])  # NumPy's: the mean of the middles
    np.testing.assert_array_equal(mg.median(x, 1, keepdims=True).detach().numpy(), [[2.0], [0.25]])
    with pytest.raises(TypeError, match="out= is not supported"):
        mg.median(x, 1, mg.zeros(2))
    values, _ = mg.median(x, 1, True)
    values.sum().backward()  # the gradient goes to the chosen element, as PyTorch's
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
