"""PyTorch's argument parser reads NumPy's ``axis=`` as ``dim=`` wherever an op takes a ``dim`` (and
``keepdims=`` as ``keepdim=``): ``x.amax(axis=1)``, ``x.softmax(axis=1)``, ``x.unbind(axis=1)``,
``x.chunk(3, axis=1)``, ``x.unsqueeze(axis=1)``, ``x.count_nonzero(axis=1)``, ``x.nansum(axis=1)``,
``x.median(axis=1)`` and ``mg.mode(x, axis=1)`` answer in torch 2.13; they were TypeErrors here ("got an
unexpected keyword argument 'axis'").  Where a method has a NumPy meaning of its own (``x.max(axis=1)``,
``x.std(axis=1)``), ``axis=`` keeps selecting it (docs/from-pytorch.md).

Expected values: torch 2.13 on x = torch.arange(6.).reshape(2, 3).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

ROWS = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
SOFTMAX_ROW = [0.09003057317038046, 0.24472847105479767, 0.6652409557748219]
CASES = [  # (call, torch 2.13's answer, as nested lists; a pair's values first)
    ("x.amax(axis=1)", [2.0, 5.0]),
    ("mg.amin(x, axis=1, keepdims=True)", [[0.0], [3.0]]),
    ("x.softmax(axis=1)", [SOFTMAX_ROW] * 2),
    ("mg.log_softmax(x, axis=1)", np.log([SOFTMAX_ROW] * 2).tolist()),
    ("mg.stack(x.unbind(axis=1))", [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]),
    ("mg.stack(x.chunk(3, axis=1))", [[[0.0], [3.0]], [[1.0], [4.0]], [[2.0], [5.0]]]),
    ("x.unsqueeze(axis=1)", [[[0.0, 1.0, 2.0]], [[3.0, 4.0, 5.0]]]),
    ("x.count_nonzero(axis=1)", [2, 3]),
    ("x.nansum(axis=1)", [3.0, 12.0]),
    ("x.median(axis=1).values", [1.0, 4.0]),
    ("mg.mode(x, axis=1).indices", [0, 0]),
    ("mg.kthvalue(x, 2, axis=1).values", [1.0, 4.0]),
]


@pytest.mark.parametrize("call, want", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_axis_is_dim_where_only_pytorch_has_the_op(call, want, device, dtype):
    x = mg.tensor(ROWS, dtype=dtype, device=device)
    got = eval(call, {"mg": mg, "x": x})
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == mg.float32 else 1e-15)


def test_the_gradient_and_transforms_see_the_same_op():
    x = mg.tensor(ROWS, dtype=mg.float64, requires_grad=True)
    x.softmax(axis=1)[:, 2].sum().backward()
    p = np.array(SOFTMAX_ROW)
    np.testing.assert_allclose(x.grad.numpy(), [(p[2] * (np.eye(3)[2] - p)).tolist()] * 2, rtol=1e-12)
    g = mg.func.grad(lambda t: t.amax(axis=1).sum())(mg.tensor(ROWS))
    assert g.tolist() == [[0.0, 0.0, 1.0]] * 2
    assert mg.func.vmap(lambda r: r.unsqueeze(axis=0))(mg.tensor(ROWS)).shape == (2, 1, 3)


def test_numpys_own_methods_keep_their_meaning_and_both_spellings_are_refused():
    x = mg.tensor(ROWS)
    assert x.max(axis=1).tolist() == [2.0, 5.0]  # NumPy's ndarray.max: values only
    np.testing.assert_allclose(x.std(axis=1).numpy(), np.std(ROWS, axis=1))  # ddof=0
    with pytest.raises(TypeError, match="dim"):
        x.amax(1, axis=1)
    with pytest.raises(TypeError, match="dim"):
        x.unbind(dim=1, axis=1)
