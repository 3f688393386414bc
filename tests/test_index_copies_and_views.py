"""What an index result is, as in PyTorch: a view for basic indexing (ints, slices, None,
``...``), a copy with its own memory and version where the index holds an integer or
boolean array; a view made in no_grad mode of a tensor that requires grad is not changed in
place in grad mode; and a short list holding a sequence, slice or tensor reads as a tuple
of indices.  Checked in both modes, under checkpointing and in float32."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

INDICES = {
    "tensor": lambda h: mg.tensor([1, 3]),
    "list": lambda h: [1, 3],
    "mask": lambda h: h > 2.5,
}


def _bumped(x: mg.Tensor, kind: str) -> mg.Tensor:
    h = x * 1
    h[INDICES[kind](h)] += 1.0  # a copy changed in place, then written back: PyTorch's idiom
    return h * h


@pytest.mark.parametrize("kind", sorted(INDICES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_augmented_assignment_through_an_array_index(kind, dtype):
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=dtype, requires_grad=True)
    out = _bumped(x, kind)
    out.sum().backward()
    h = np.array([1.0, 2.0, 3.0, 4.0]) + (np.array([0, 1, 0, 1]) if kind != "mask" else np.array([0, 0, 1, 1]))
    np.testing.assert_allclose(out.numpy(), h * h)
    np.testing.assert_allclose(x.grad.numpy(), 2 * h)  # the +1 is a constant shift
    assert x.grad.dtype == x.dtype


@pytest.mark.parametrize("kind", sorted(INDICES))
def test_the_idiom_in_forward_mode_and_under_checkpointing(kind):
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64", requires_grad=True)
    t = mg.tensor([0.5, -1.0, 2.0, 0.25], dtype="float64")
    value, tangent = mg.func.jvp(lambda v: _bumped(v, kind), (x.detach(),), (t,))
    np.testing.assert_allclose(tangent.numpy(), 2 * value.numpy() ** 0.5 * t.numpy())
    plain = mg.autograd.grad(_bumped(x, kind).sum(), [x])[0]
    replayed = mg.autograd.grad(mg.checkpoint.checkpoint(lambda v: _bumped(v, kind), x).sum(), [x])[0]
    np.testing.assert_array_equal(replayed.numpy(), plain.numpy())


def test_an_array_index_result_owns_its_memory_and_version():
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64", requires_grad=True)
    h = x * 1
    y = h.sin()  # saves h
    picked = h[[1, 3]]
    with mg.no_grad():
        picked.zero_()  # the copy only: h and what sin saved are intact
    picked.mul_(2)  # nothing shares it, nothing requires grad: a plain write
    np.testing.assert_array_equal(h.numpy(), [1.0, 2.0, 3.0, 4.0])
    y.sum().backward()  # no "modified by an in-place operation"
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0, 3.0, 4.0]))


def test_basic_indexing_is_still_a_view():
    base = mg.tensor([1.0, 2.0, 3.0, 4.0])
    view = base[1:3]
    view.mul_(10)
    np.testing.assert_array_equal(base.numpy(), [1.0, 20.0, 30.0, 4.0])
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1
    v = h[1:]
    v.mul_(2)  # a recorded change of a view: into the memory, the base's history follows (PyTorch's)
    np.testing.assert_array_equal(h.numpy(), [1.0, 4.0, 6.0])
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 2.0])


WRITES = {
    "mul_": lambda v: v.mul_(2),
    "add_": lambda v: v.add_(1),
    "setitem": lambda v: v.__setitem__(0, 5.0),
    "copy_": lambda v: v.copy_(mg.ones_like(v)),
    "zero_": lambda v: v.zero_(),
    "relu_": lambda v: v.relu_(),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("leaf", [True, False])
def test_a_view_made_in_no_grad_is_not_changed_in_grad_mode(write, leaf):
    x = mg.tensor([1.0, -2.0, 3.0], dtype="float64", requires_grad=True)
    h = x if leaf else x * 1
    with mg.no_grad():
        v = h[1:]
        w = v[:1]  # a view of that view: the same
    for target in (v, w):
        with pytest.raises(RuntimeError, match="view was created in no_grad mode"):
            WRITES[write](target)
    np.testing.assert_array_equal(x.numpy(), [1.0, -2.0, 3.0])  # refused before writing
    with mg.no_grad():
        WRITES[write](v)  # both in no_grad: a plain write, allowed
    assert not np.array_equal(h.numpy(), [1.0, -2.0, 3.0])


def test_views_that_may_be_changed_in_grad_mode():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mg.no_grad():
        y = x * 2  # not a view
        free = mg.tensor([1.0, 2.0])[0:1]  # a view of a tensor that does not require grad
    y.mul_(2)
    free.mul_(2)
    d = x.detach()[1:]  # a detached alias's view, made in grad mode
    with mg.no_grad():
        d.mul_(1)


SEQUENCES = [
    ([[0, 2], [1, 1]], (2,)),
    ([0, slice(1, 3)], (2,)),
    ([0, None], (1, 4)),
    ([Ellipsis, 1], (3,)),
    ([[0, 2]], (2, 4)),
]


@pytest.mark.parametrize("seq, shape", SEQUENCES)
def test_a_list_of_sequences_reads_as_a_tuple(seq, shape):
    # shapes from PyTorch 2.13: torch.arange(12.).reshape(3, 4)[seq].shape (it warns the same way)
    x = mg.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        got = x[seq]
    assert tuple(got.shape) == shape
    np.testing.assert_array_equal(got.numpy(), x.numpy()[tuple(seq)])


def test_lists_that_stay_one_index():
    x = mg.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(x[[1, 2]].shape) == (2, 4)
        assert tuple(x[np.array([[0, 2], [1, 1]])].shape) == (2, 2, 4)  # an array is one index
        assert tuple(mg.arange(5.0)[[0] * 40].shape) == (40,)  # 32 or more: one index (PyTorch's cut)


def test_a_list_of_sequences_as_a_tuple_in_setitem_and_backward():
    x = mg.arange(12.0, dtype="float64").reshape(3, 4).requires_grad_()
    with pytest.warns(UserWarning):
        picked = x[[[0, 2], [1, 1]]]
    (picked * mg.tensor([1.0, 10.0], dtype="float64")).sum().backward()
    want = np.zeros((3, 4))
    want[0, 1], want[2, 1] = 1.0, 10.0
    np.testing.assert_array_equal(x.grad.numpy(), want)
    y = mg.zeros((3, 4))
    with pytest.warns(UserWarning):
        y[[[0, 2], [1, 1]]] = 7.0
    assert y.numpy()[0, 1] == y.numpy()[2, 1] == 7.0 and y.numpy().sum() == 14.0
