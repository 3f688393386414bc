"""``nn.functional`` takes the index and operand dtypes PyTorch 2.13's kernels take, and refuses the others
with its RuntimeError (the engine, indexing with NumPy, took any integer and promoted any float -- so a
program trained here and failed under PyTorch):

- class-index targets: ``nll_loss``/``cross_entropy`` int64 or uint8 ("expected target dtype to be Long or
  Byte, but got Int"), ``multi_margin_loss``/``multilabel_margin_loss`` int64 ("expected scalar type Long but
  found Int");
- ``embedding`` ids int64 or int32 (uint8 refused); ``max_unpool`` indices int64 ("elements in indices should
  be type int64");
- ``kl_div`` of integers ("kl_div: Integral inputs not supported.");
- a convolution's bias of another dtype than its input ("Input type (float) and bias type (double) should be
  the same") and ``cdist`` of two dtypes ("expected scalar type Float but found Double"), which were
  promoted."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional
DEVICES = ["cpu", "strict", "strict-f32"]


def _x(device, shape=(3, 4)):
    dtype = "float32" if device == "strict-f32" else "float64"
    return mg.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 10, dtype=dtype, device=device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int32", "int16", "int8"])
def test_class_targets_of_another_integer_dtype_are_refused(device, dtype):
    x, t = _x(device), mg.tensor([0, 1, 2], dtype=dtype, device=device)
    for loss in (F.nll_loss, F.cross_entropy):
        with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
            loss(x, t)
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.multi_margin_loss(x, t)
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.multilabel_margin_loss(x, mg.tensor([[0, 1, -1, 0]] * 3, dtype=dtype, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_the_target_dtypes_pytorch_takes_still_work(device):
    x = _x(device)
    want = F.cross_entropy(x, mg.tensor([0, 1, 2], device=device)).item()
    assert F.cross_entropy(x, mg.tensor([0, 1, 2], dtype="uint8", device=device)).item() == want
    assert F.nll_loss(x, mg.tensor([0, 1, 2], dtype="uint8", device=device)).shape == ()
    assert F.multi_margin_loss(x, mg.tensor([0, 1, 2], device=device)).shape == ()
    rows = F.embedding(mg.tensor([2, 0], dtype="int32", device=device), x)
    np.testing.assert_array_equal(rows.cpu().numpy(), x.cpu().numpy()[[2, 0]])


@pytest.mark.parametrize("device", DEVICES)
def test_index_dtypes_of_embedding_and_max_unpool(device):
    x = _x(device)
    with pytest.raises(RuntimeError, match=r"Expected tensor for argument #1 'indices' to have one of the following "
                                           r"scalar types: Long, Int \(int64 or int32\), got"):
        F.embedding(mg.tensor([2, 0], dtype="uint8", device=device), x)
    y, idx = F.max_pool1d(x[None], 2, return_indices=True)
    assert idx.dtype == "int64"
    np.testing.assert_allclose(F.max_unpool1d(y, idx, 2).cpu().numpy(),
                               [[[0, 0.1, 0, 0.3], [0, 0.5, 0, 0.7], [0, 0.9, 0, 1.1]]], rtol=1e-6)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
        F.max_unpool1d(y, idx.to(mg.int32), 2)


@pytest.mark.parametrize("device", DEVICES)
def test_kl_div_of_integers_is_refused(device):
    x = _x(device)
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported"):
        F.kl_div(x, mg.ones(3, 4, dtype="int64", device=device), reduction="sum")
    with pytest.raises(RuntimeError, match="Integral inputs"):
        F.kl_div(mg.ones(3, 4, dtype="int64", device=device), x, reduction="sum")


def test_a_bias_of_another_dtype_and_cdist_of_two_dtypes_are_refused():
    x32, w32 = mg.ones(1, 2, 5, 5), mg.ones(3, 2, 2, 2)
    b64 = mg.ones(3, dtype="float64")
    with pytest.raises(RuntimeError, match="float64"):
        F.conv2d(x32, w32, b64)
    with pytest.raises(TypeError):  # (the layers' dtype error: RuntimeError, TypeError and ValueError)
        F.conv1d(x32[:, :, 0], w32[:, :, 0], b64)
    with pytest.raises(RuntimeError):
        F.conv_transpose2d(x32, mg.ones(2, 3, 2, 2), b64)
    with pytest.raises(RuntimeError):
        F.conv3d(x32[:, :, None], w32[:, :, None], b64)
    assert F.conv2d(x32, w32, mg.ones(3)).dtype == "float32"  # one dtype: as before
    with pytest.raises(RuntimeError, match="one dtype"):
        F.cdist(mg.ones(3, 4), mg.ones(2, 4, dtype="float64"))
    assert F.cdist(mg.ones(3, 4), mg.zeros(2, 4)).tolist() == [[2.0, 2.0]] * 3
