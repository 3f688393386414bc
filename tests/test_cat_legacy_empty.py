"""``cat`` leaves out a 1-D empty tensor among tensors it does not fit, PyTorch's legacy rule:
``out = mg.tensor([]); for row in rows: out = mg.cat([out, row])`` (the accumulate-from-nothing idiom)
raised JoinShapeMismatch "shapes (0,) and (2, 2) differ outside axis 0".  torch 2.13:
``torch.cat([torch.tensor([]), torch.ones(2, 2)])`` is (2, 2), so is ``cat([ones(2, 2), tensor([])], 1)``;
the empty tensor's dtype still counts (float32 empty + float64 -> float64, int64 empty + float32 ->
float32); two empties join to (0,); a real mismatch is still an error.  ``concat`` and ``concatenate``
(PyTorch's aliases; NumPy refuses this case) follow ``cat``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_rows_gathered_from_an_empty_tensor(device, dtype):
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, device=device, requires_grad=True)

    def gather(w):
        out = mg.tensor([], dtype=dtype, device=device)
        for i in range(3):
            out = mg.cat([out, w * (i + 1)])
        return out

    for run in (gather, lambda w: checkpoint(gather, w, use_reentrant=False)):
        w.grad = None
        out = run(w)
        assert out.shape == (6, 2) and out.dtype == dtype
        (out * out).sum().backward()
        np.testing.assert_allclose(w.grad.cpu().numpy(), 2 * 14 * w.detach().cpu().numpy(), rtol=1e-6)


def test_the_empty_tensor_counts_in_the_dtype_and_every_alias_skips_it():
    assert mg.cat([mg.tensor([]), mg.ones(2, 2, dtype=mg.float64)]).dtype == mg.float64
    assert mg.cat([mg.tensor([], dtype=mg.int64), mg.ones(2)]).dtype == mg.float32
    assert mg.cat([mg.ones(2, 2), mg.tensor([])], 1).shape == (2, 2)
    assert mg.cat([mg.tensor([]), mg.tensor([])]).shape == (0,)
    assert mg.concat([mg.tensor([]), mg.ones(1, 3)]).shape == (1, 3)
    assert mg.concatenate([mg.tensor([]), mg.ones(1, 3)]).shape == (1, 3)
    with pytest.raises(mg.functional.errors.JoinShapeMismatch, match=r"\(2, 3\) and \(2, 2\)"):
        mg.cat([mg.tensor([]), mg.ones(2, 3), mg.ones(2, 2)])


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_the_left_out_empty_tensor_still_gets_its_empty_gradient(device, dtype):
    # torch 2.13: e = torch.tensor([], requires_grad=True); torch.autograd.grad(torch.cat([e, w]).sum(), [e])
    # is (tensor([]),) and backward() sets e.grad to tensor([]); the engine left e off the graph (None, and
    # autograd.grad's "input 0 was not used")
    e = mg.tensor([], dtype=dtype, device=device, requires_grad=True)
    w = mg.ones(2, 2, dtype=dtype, device=device, requires_grad=True)
    for run in (lambda: mg.cat([e, w]), lambda: mg.cat([w, e], 1),
                lambda: checkpoint(lambda e, w: mg.cat([e, w]) * 1, e, w, use_reentrant=False)):
        out = run()
        ge, gw = mg.autograd.grad((out * out).sum(), [e, w])
        assert ge.shape == (0,) and ge.dtype == dtype and ge.device == e.device
        np.testing.assert_allclose(gw.cpu().numpy(), 2 * np.ones((2, 2)))
    e.grad = None
    mg.cat([e, w]).sum().backward()
    assert e.grad is not None and e.grad.shape == (0,)


def test_the_left_out_empty_tensor_under_func_transforms():
    w = mg.ones(2, 2, dtype=mg.float64)
    ge = mg.func.grad(lambda e: (mg.cat([e, w]) ** 2).sum())(mg.tensor([], dtype=mg.float64))
    assert ge.shape == (0,)
    out, tangent = mg.func.jvp(lambda e, w: mg.cat([e, w]), (mg.tensor([], dtype=mg.float64), w),
                               (mg.tensor([], dtype=mg.float64), mg.ones(2, 2, dtype=mg.float64)))
    assert out.shape == tangent.shape == (2, 2)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("dim", [1, -2, 5])
def test_only_empty_tensors_join_along_any_dim(device, dtype, dim):
    # torch 2.13 skips each 1-D empty tensor, so with nothing left it judges no dim:
    # torch.cat([empty, empty], dim=1) is empty (PyTorch's test_cat_empty_legacy); the engine raised
    # "Dimension out of range" (found running that test against the engine)
    e = mg.tensor([], dtype=dtype, device=device, requires_grad=True)
    f = mg.tensor([], dtype=mg.int64, device=device)
    for join in (mg.cat, mg.concat, mg.concatenate):
        out = join([e, f, e], dim)
        assert out.shape == (0,) and out.dtype == dtype and out.device == e.device
    (ge,) = mg.autograd.grad(checkpoint(lambda e: mg.cat([e, e], dim) * 2, e, use_reentrant=False).sum(), [e])
    assert ge.shape == (0,) and ge.dtype == dtype
    assert mg.func.grad(lambda e: mg.cat([e, e], dim).sum())(e.detach()).shape == (0,)
    with pytest.raises(mg.functional.errors.JoinShapeMismatch, match="zero-dimensional"):
        mg.cat([e, mg.tensor(1.0, dtype=dtype, device=device)], dim)
