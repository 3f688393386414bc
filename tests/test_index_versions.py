"""Index tensors and index arrays cannot silently move a gradient, and
DLPack exports cannot write into saved values behind the tape's back (§4).

An op that indexes keeps the index in its static attributes, not as an input.
A Tensor index is therefore watched like a saved input (an in-place change
before backward is the usual error); an array or list index is copied when the
op is recorded (a later change of the caller's array cannot change anything).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint

MODIFIED = "modified by an in-place operation"


def test_the_embedding_reproducer_is_an_error_not_a_wrong_gradient():
    mg.manual_seed(0)
    emb = nn.Embedding(4, 1)
    ids = mg.tensor([0, 1])
    loss = (emb(ids).reshape(2) * mg.tensor([10.0, 20.0])).sum()
    ids.copy_(mg.tensor([2, 3]))
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss.backward()  # was: weight.grad [0, 0, 10, 20]


INDEXERS = {
    "getitem": lambda x, i: x[i],
    "take": lambda x, i: mg.take(x, i, axis=0),
    "embedding": lambda x, i: nn.functional.embedding(i, x),
}


@pytest.mark.parametrize("how", sorted(INDEXERS))
@pytest.mark.parametrize("checkpointed", [False, True])
def test_an_index_tensor_changed_before_backward_is_an_error(how, checkpointed):
    x = mg.randn(4, 2, dtype="float64", requires_grad=True)
    idx = mg.tensor([0, 1])
    f = INDEXERS[how]
    out = checkpoint(lambda t: f(t, idx) * 1.0, x) if checkpointed else f(x, idx)
    idx[0] = 3
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


@pytest.mark.parametrize("checkpointed", [False, True])
def test_take_along_axis_with_a_changed_index_errs_or_stays_right(checkpointed):
    # take_along_axis takes its indices as an op input (it may normalize them into a
    # fresh array): a changed index tensor is a version error, or cannot matter.
    x = mg.randn(4, 2, dtype="float64", requires_grad=True)
    idx = mg.tensor([[0, 1], [1, 1]])

    def f(t):
        return mg.take_along_axis(t, idx, axis=0) * 1.0

    expected = mg.grad((f(x) * mg.arange(4.0, dtype="float64").reshape(2, 2)).sum(), x)[0].numpy()
    out = checkpoint(f, x) if checkpointed else f(x)
    idx.fill_(3)
    try:
        (g,) = mg.grad((out * mg.arange(4.0, dtype="float64").reshape(2, 2)).sum(), x)
    except RuntimeError as e:  # the version error (or, replaying a segment, the checkpoint's own)
        assert MODIFIED in str(e) or "modified in place" in str(e)
    else:
        np.testing.assert_array_equal(g.numpy(), expected)


@pytest.mark.parametrize("checkpointed", [False, True])
def test_a_boolean_mask_changed_before_backward_is_an_error(checkpointed):
    x = mg.randn(4, dtype="float64", requires_grad=True)
    mask = mg.tensor([True, False, True, False])
    out = checkpoint(lambda t: t[mask] * 2.0, x) if checkpointed else x[mask]
    mask.fill_(True)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


def test_an_untouched_index_tensor_gives_the_gradient():
    x = mg.zeros(4, 2, dtype="float64", requires_grad=True)
    idx = mg.tensor([0, 0, 3])
    (x[idx] * mg.tensor([[1.0], [2.0], [3.0]], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 3], [0, 0], [0, 0], [3, 3]])


@pytest.mark.parametrize("make", [np.array, list])
@pytest.mark.parametrize("checkpointed", [False, True])
def test_an_array_or_list_index_is_copied_when_recorded(make, checkpointed):
    x = mg.zeros(4, dtype="float64", requires_grad=True)
    idx = make([0, 1])
    out = checkpoint(lambda t: t[idx] * 1.0, x) if checkpointed else x[idx]
    idx[0], idx[1] = 2, 3  # the caller reuses their buffer
    (out * mg.tensor([10.0, 20.0], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10, 20, 0, 0])  # PyTorch gives [0, 0, 10, 20]


def test_index_add_watches_its_index_tensor():
    v = mg.ones(2, dtype="float64", requires_grad=True)
    idx = mg.tensor([0, 2])
    out = mg.functional.index_add((4,), (idx,), v)
    idx.zero_()
    with pytest.raises(RuntimeError, match=MODIFIED):
        (out * mg.arange(4.0, dtype="float64")).sum().backward()


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.1}, {"weight": [1.0, 2.0, 3.0]},
                                    {"ignore_index": 1}])
def test_cross_entropy_targets_refilled_before_backward_do_not_move_the_gradient(kwargs):
    logits = mg.randn(3, 3, dtype="float64", requires_grad=True)
    kw = {k: (mg.tensor(v, dtype="float64") if k == "weight" else v) for k, v in kwargs.items()}
    target = mg.tensor([0, 1, 2])
    expected = mg.grad(nn.functional.cross_entropy(logits, target, **kw), logits)[0].numpy()
    loss = nn.functional.cross_entropy(logits, target, **kw)
    target.copy_(mg.tensor([2, 2, 0]))  # the next batch's targets, loaded into the same tensor
    try:
        (g,) = mg.grad(loss, logits)
    except RuntimeError as e:  # a version error is as good as a right answer; a wrong one is not
        assert MODIFIED in str(e)
    else:
        np.testing.assert_allclose(g.numpy(), expected)


# ---------------------------------------------------------------------------
# §4: DLPack exports
# ---------------------------------------------------------------------------
def test_a_numpy_dlpack_export_is_read_only():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x  # saves x for backward
    alias = np.from_dlpack(x)
    with pytest.raises(ValueError, match="read-only"):
        alias[0] = 100.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(alias, [1.0, 2.0])  # still a view: it sees the values


def test_a_dlpack_copy_is_writable_and_separate():
    x = mg.tensor([1.0, 2.0])
    c = np.from_dlpack(x, copy=True)
    c[0] = 9.0
    assert x.tolist() == [1.0, 2.0]


def test_a_where_mask_changed_before_backward_is_an_error():
    x = mg.randn(3, dtype="float64", requires_grad=True)
    mask = mg.tensor([True, False, True])
    out = mg.where(mask, x, 0.0)
    mask.fill_(False)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()


def test_scatter_along_axis_watches_its_indices():
    v = mg.ones(2, 1, dtype="float64", requires_grad=True)
    idx = mg.tensor([[0], [2]])
    out = mg.functional.namespace.scatter_along_axis(v, idx, 0, (3, 1))
    idx.zero_()
    with pytest.raises(RuntimeError, match=MODIFIED):
        (out * mg.arange(3.0, dtype="float64").reshape(3, 1)).sum().backward()
