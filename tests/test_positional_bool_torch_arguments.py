"""A bool where NumPy's function takes something that is never a bool is PyTorch's positional
argument: ``mg.sort(x, 1, True)`` and ``mg.argsort(x, 1, True)`` sort descending (NumPy's third
argument is ``kind``, a string), ``mg.nansum(x, 1, True)`` keeps the dim (NumPy's is ``dtype``), as
``mg.nanmean(x, 1, True)`` already did.  Each raised before (``kind must be one of ...``, ``not a dtype:
True``) where torch 2.13 answers; its values are below (torch.sort(x, 1, True), ...).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

X = [[3.0, 1.0, 2.0, 2.0], [0.5, 4.0, -1.0, 0.0]]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_pytorchs_positional_descending_and_keepdim(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor(X, dtype=dtype, device=device)
    values, indices = mg.sort(x, 1, True)
    np.testing.assert_array_equal(values.numpy(), [[3.0, 2.0, 2.0, 1.0], [4.0, 0.5, 0.0, -1.0]])
    np.testing.assert_array_equal(indices.numpy(), [[0, 2, 3, 1], [1, 0, 3, 2]])
    values, indices = mg.sort(x, 0, False)
    np.testing.assert_array_equal(indices.numpy(), [[1, 0, 1, 1], [0, 1, 0, 0]])
    np.testing.assert_array_equal(mg.argsort(x, 1, True).numpy(), [[0, 2, 3, 1], [1, 0, 3, 2]])
    np.testing.assert_array_equal(mg.argsort(x, 1, False).numpy(), [[1, 2, 3, 0], [2, 3, 0, 1]])
    np.testing.assert_array_equal(mg.argsort(x, 0, True).numpy(), [[0, 1, 0, 0], [1, 0, 1, 1]])
    np.testing.assert_array_equal(mg.nansum(x, 1, True).numpy(), [[8.0], [3.5]])
    np.testing.assert_array_equal(mg.nansum(x, 0, False).numpy(), [3.5, 5.0, 1.0, 2.0])


def test_numpys_calls_and_the_gradient_stay():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    np.testing.assert_array_equal(mg.sort(x, 1).detach().numpy(), np.sort(np.array(X), 1))  # NumPy's values
    np.testing.assert_array_equal(mg.argsort(x, 1, "stable").numpy(), np.argsort(np.array(X), 1, "stable"))
    assert mg.nansum(x, 1, mg.float32).dtype == mg.float32
    values, _ = mg.sort(x, 1, True)
    (values * mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=mg.float64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 4.0, 2.0, 3.0], [2.0, 1.0, 4.0, 3.0]])
