"""An index with no elements reads and writes nothing in ``gather`` and the ``scatter`` family, and
PyTorch's kernels check nothing else of it: not its dtype, its rank or its shape against the
tensor's or the source's (``torch.zeros(2, 2).scatter_(0, torch.tensor([], dtype=torch.long), src)``,
the empty-index case of PyTorch's own ``test_scatter_gather.py``).  The engine refused it with
"Index tensor must have the same number of dimensions".  What PyTorch still checks is checked:
the dim, the source's dtype, the reduction's name.  Values as torch 2.13 gave them."""

from __future__ import annotations

import numpy as np
import pytest
from operator_checks import check_everywhere

import minigrad_ckpt as mg

EMPTY_INDICES = [np.zeros(0, np.int64), np.zeros((0, 5), np.int64), np.zeros((3, 0, 1), np.int64)]


@pytest.mark.parametrize("index", EMPTY_INDICES, ids=lambda i: str(i.shape))
def test_gather_of_an_empty_index_has_the_index_shape(index):
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = mg.gather(x, 0, mg.tensor(index))
    assert y.shape == index.shape and y.dtype == mg.float32
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.zeros((2, 2)))
    assert mg.gather(x, 1, mg.zeros(0)).shape == (0,)  # no dtype asked of an empty index either


def _writes(x, index, src):
    return [
        x.scatter(0, index, src),
        x.scatter(0, index, 3.0),
        x.scatter(0, index, src, reduce="add"),
        x.scatter_add(0, index, src),
        *(x.scatter_reduce(0, index, src, r, include_self=s)
          for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)),
    ]


@pytest.mark.parametrize("index", [*EMPTY_INDICES, np.zeros(0, np.float32), np.zeros(0, np.int16)],
                         ids=lambda i: f"{i.shape}-{i.dtype}")
def test_scatters_of_an_empty_index_change_nothing(index):
    base = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    for src_shape in [(2, 2), (3,), (1, 1, 1)]:  # a source of any shape: nothing of it is read
        x = mg.tensor(base, requires_grad=True)
        src = mg.ones(src_shape, requires_grad=True)
        outs = _writes(x, mg.tensor(index), src)
        for out in outs:
            assert out.dtype == mg.float32 and np.array_equal(out.detach().numpy(), base)
        x_grad, src_grad = mg.autograd.grad(sum(o.sum() for o in outs), [x, src])
        assert np.array_equal(x_grad.numpy(), np.full((2, 2), len(outs)))
        assert np.array_equal(src_grad.numpy(), np.zeros(src_shape))
        x_ = mg.tensor(base)
        assert x_.scatter_(0, mg.tensor(index), mg.ones(src_shape)) is x_


def test_empty_index_in_every_mode_and_on_the_strict_device():
    x, e = np.array([[1.0, -2.0], [3.0, 4.0]]), np.zeros(0, np.int64)
    check_everywhere(lambda t, i, s: mg.scatter_add(t, 0, i, s), x, e, np.ones(3))
    check_everywhere(lambda t, i, s: mg.scatter_reduce(t, 0, i, s, "amax", include_self=False), x, e, np.ones(3))
    check_everywhere(lambda t, i: mg.gather(t, 1, i), x, np.zeros((0, 4), np.int64))


def test_what_pytorch_still_checks_of_an_empty_scatter():
    x, e = mg.zeros(2, 2), mg.tensor([], dtype=mg.long)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.scatter(5, e, mg.ones(2, 2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        mg.gather(x, -3, e)
    with pytest.raises(RuntimeError, match="same dtype"):
        x.scatter(0, e, mg.ones(2, 2, dtype=mg.float64))
    with pytest.raises(RuntimeError, match="reduce"):
        x.scatter_reduce(0, e, mg.ones(2, 2), "foo")
    with pytest.raises(RuntimeError, match="add.*multiply"):
        x.scatter(0, e, mg.ones(2, 2), reduce="sum")
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        x.scatter(0, mg.tensor([0]), mg.ones(2, 2))  # a nonempty one is checked, as before
