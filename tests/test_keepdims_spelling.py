"""PyTorch's argument parser reads NumPy's ``keepdims=`` as ``keepdim=`` wherever an op takes it: makemore
part 1 writes ``P.sum(1, keepdims=True)``, and ``x.std(1, keepdims=True)`` is torch's per-row standard
deviation with Bessel's correction.  The engine took ``keepdims=`` beside a dim as NumPy's spelling and
dropped the dim: ``x.std(1, keepdims=True)`` and ``x.var(...)`` silently reduced every element with ddof=0
(shape (1, 1)), ``mg.median(x, dim=1, keepdims=True)`` silently dropped ``keepdims``, and ``x.mean(1, ...)``,
``x.max``/``min``, ``amax``/``amin``, ``nansum``/``nanmean``, ``median``/``nanmedian`` (methods), ``mode`` and
``kthvalue`` raised TypeError.  Without a dim, ``keepdims=`` still selects NumPy's meaning where the two differ
(``x.var(keepdims=True)``: ddof=0, docs/from-pytorch.md).

Expected values: torch 2.13 on x = torch.arange(6.).reshape(2, 3).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

ROWS = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
# (call, torch 2.13's values: the tensor, or the (values, indices) pair)
CASES = [
    ("x.std(1, keepdims=True)", [[1.0], [1.0]]),
    ("x.std(dim=1, keepdims=True)", [[1.0], [1.0]]),
    ("x.var(1, keepdims=True)", [[1.0], [1.0]]),
    ("x.var(1, False, keepdims=True)", [[2 / 3], [2 / 3]]),  # unbiased=False positionally
    ("x.mean(1, keepdims=True)", [[1.0], [4.0]]),
    ("x.sum(1, keepdims=True)", [[3.0], [12.0]]),
    ("x.amax(1, keepdims=True)", [[2.0], [5.0]]),
    ("mg.amin(x, 1, keepdims=True)", [[0.0], [3.0]]),
    ("x.nansum(1, keepdims=True)", [[3.0], [12.0]]),
    ("x.nanmean(1, keepdims=True)", [[1.0], [4.0]]),
    ("x.max(1, keepdims=True)", ([[2.0], [5.0]], [[2], [2]])),
    ("x.min(1, keepdims=True)", ([[0.0], [3.0]], [[0], [0]])),
    ("x.median(1, keepdims=True)", ([[1.0], [4.0]], [[1], [1]])),
    ("x.nanmedian(1, keepdims=True)", ([[1.0], [4.0]], [[1], [1]])),
    ("mg.median(x, dim=1, keepdims=True)", ([[1.0], [4.0]], [[1], [1]])),
    ("x.mode(1, keepdims=True)", ([[0.0], [3.0]], [[0], [0]])),
    ("mg.kthvalue(x, 2, 1, keepdims=True)", ([[1.0], [4.0]], [[1], [1]])),
]


@pytest.mark.parametrize("call, want", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_keepdims_beside_a_dim_is_keepdim(call, want, device, dtype):
    x = mg.tensor(ROWS, dtype=dtype, device=device)
    got = eval(call, {"mg": mg, "x": x})
    if isinstance(want, tuple):
        values, indices = got
        assert indices.tolist() == want[1]
        got, want = values, want[0]
    assert got.shape == (2, 1) and got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == mg.float32 else 1e-15)


def test_the_gradient_is_torchs_per_row_one():
    # torch 2.13: x.std(1, keepdims=True).sum().backward() -> x.grad [[-0.5, 0, 0.5], [-0.5, 0, 0.5]]
    x = mg.tensor(ROWS, requires_grad=True)
    x.std(1, keepdims=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.5, 0.0, 0.5]] * 2, atol=1e-15)
    g = mg.func.grad(lambda t: t.var(1, keepdims=True).sum())(mg.tensor(ROWS))
    np.testing.assert_allclose(g.numpy(), [[-1.0, 0.0, 1.0]] * 2, atol=1e-15)
    per_row = mg.func.vmap(lambda r: r.std(0, keepdims=True))(mg.tensor(ROWS))
    assert per_row.tolist() == [[1.0], [1.0]]
    y = mg.tensor(ROWS, requires_grad=True)
    mg.checkpoint.checkpoint(lambda t: t.std(1, keepdims=True).sum(), y).backward()
    np.testing.assert_allclose(y.grad.numpy(), [[-0.5, 0.0, 0.5]] * 2, atol=1e-15)


def test_without_a_dim_numpys_spelling_keeps_numpys_meaning():
    x = mg.tensor(ROWS)
    assert x.var(keepdims=True).shape == (1, 1)
    np.testing.assert_allclose(x.var(keepdims=True).numpy(), [[np.var(ROWS)]])  # ddof=0, as documented
    np.testing.assert_allclose(x.std(axis=1, keepdims=True).numpy(), np.std(ROWS, axis=1, keepdims=True))
    assert x.max(axis=1, keepdims=True).tolist() == [[2.0], [5.0]]  # NumPy's: values only


def test_both_spellings_at_once_are_refused():
    x = mg.tensor(ROWS)
    for call in (lambda: x.std(1, keepdim=True, keepdims=True), lambda: x.mean(1, keepdim=True, keepdims=True),
                 lambda: x.amax(1, keepdim=True, keepdims=True), lambda: x.median(1, keepdim=True, keepdims=True)):
        with pytest.raises(TypeError, match="keepdim"):
            call()
