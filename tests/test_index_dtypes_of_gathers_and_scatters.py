"""The index dtypes PyTorch 2.13's gathers and scatters take, op by op (found by a differential run against
torch): ``index_fill``, ``index_copy``, ``put`` and ``take_along_dim`` along a dim take int64 alone;
``index_add``, ``index_reduce``, ``index_select``, ``gather``, ``scatter``, ``scatter_add`` and
``scatter_reduce`` take int32 too; a smaller integer index is refused by all (a RuntimeError --
``index_fill``'s an IndexError -- that IndexRefused is both of).  They all took any integer dtype here.
NumPy's names (``take_along_axis``) keep NumPy's rule: any integer."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

OPS = {
    "index_fill": (lambda x, i: x.index_fill(0, i, 1.0), ("int64",)),
    "index_copy": (lambda x, i: x.index_copy(0, i, mg.ones(2, 3)), ("int64",)),
    "put": (lambda x, i: x.put(i, mg.ones(2)), ("int64",)),
    "take_along_dim": (lambda x, i: mg.take_along_dim(x, i.reshape(2, 1), dim=0), ("int64",)),
    "index_add": (lambda x, i: x.index_add(0, i, mg.ones(2, 3)), ("int64", "int32")),
    "index_reduce": (lambda x, i: x.index_reduce(0, i, mg.ones(2, 3), "prod"), ("int64", "int32")),
    "index_select": (lambda x, i: x.index_select(0, i), ("int64", "int32")),
    "gather": (lambda x, i: x.gather(0, i.reshape(2, 1)), ("int64", "int32")),
    "scatter": (lambda x, i: x.scatter(0, i.reshape(2, 1), mg.ones(2, 1)), ("int64", "int32")),
    "scatter_add": (lambda x, i: x.scatter_add(0, i.reshape(2, 1), mg.ones(2, 1)), ("int64", "int32")),
    "scatter_reduce": (lambda x, i: x.scatter_reduce(0, i.reshape(2, 1), mg.ones(2, 1), "sum"), ("int64", "int32")),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_an_index_of_a_dtype_pytorch_refuses_is_refused(name, dtype):
    call, taken = OPS[name]
    index = mg.tensor(np.array([0, 1], dtype=dtype))
    if dtype in taken:
        call(mg.zeros(3, 3), index)
    else:
        # (take_along_dim along a dim: PyTorch's "dtype of indices should be Long but got Int")
        with pytest.raises((RuntimeError, IndexError), match="Expected dtype|dtype of indices should be Long"):
            call(mg.zeros(3, 3), index)


def test_numpys_names_and_a_flattened_take_along_dim_take_any_integer():
    x = mg.arange(6.0).reshape(2, 3)
    index = mg.tensor(np.array([[2], [0]], dtype=np.int16))
    np.testing.assert_array_equal(mg.take_along_axis(x, index, 1).numpy(), [[2], [3]])
    np.testing.assert_array_equal(mg.take_along_dim(x, mg.tensor([5, 0], dtype=mg.int32)).numpy(), [5, 0])
