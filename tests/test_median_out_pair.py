"""``median`` and ``nanmedian`` with a dim take PyTorch's ``out=(values, indices)``, as ``max``, ``sort``,
``mode`` and ``kthvalue`` do: the pair written into the two tensors and returned as the named pair of them.
The engine refused it ("out= is not supported"), and ``mg.median(x, 1, True, out=...)`` was a clash with
NumPy's positional ``out``.  Found running PyTorch's ``test_namedtuple_return_api.py`` against the engine.
Expected: the lower middle value and its index, by hand; the dtype errors are torch 2.13's words.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

NAN = float("nan")
#: (rows, the lower middle value of each row and its index); nanmedian skips the NaN
X = [[3.0, 1.0, 2.0, 5.0], [4.0, NAN, 0.0, -1.0]]
WANT = {"median": ([2.0, NAN], [2, 1]), "nanmedian": ([2.0, 0.0], [2, 2])}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("spelling", ["keyword", "positional"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_writes_its_pair_into_out(name, spelling, keepdim):
    x = mg.tensor(X, dtype=mg.float64)
    values, indices = mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int64)
    fn = getattr(mg, name)
    if spelling == "keyword":
        got = fn(x, dim=1, keepdim=keepdim, out=(values, indices))
    else:
        got = fn(x, 1, keepdim, out=[values, indices])
    assert got.values is values and got.indices is indices and got[0] is values
    assert type(got) is getattr(mg.return_types, f"{name}_out")  # (torch 2.13: return_types.median_out)
    want_values, want_indices = WANT[name]
    shape = (2, 1) if keepdim else (2,)
    np.testing.assert_array_equal(values.numpy(), np.reshape(want_values, shape))
    np.testing.assert_array_equal(indices.numpy(), np.reshape(want_indices, shape))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_out_pair_of_other_dtypes_is_refused_in_torchs_words(name):
    x = mg.tensor(X, dtype=mg.float64)
    fn = getattr(mg, name)
    with pytest.raises(RuntimeError, match="Expected tensor for 'values' to have the same type as tensor for argument "
                                           "#2 'self'; but type torch.FloatTensor does not equal torch.DoubleTensor"):
        fn(x, 1, out=(mg.empty(0, dtype=mg.float32), mg.empty(0, dtype=mg.int64)))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have scalar type Long; "
                                           "but got torch.IntTensor instead"):
        fn(x, 1, out=(mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int32)))
    with pytest.raises(TypeError, match="tuple of 2 Tensors"):
        fn(x, 1, out=(mg.empty(0, dtype=mg.float64),))
