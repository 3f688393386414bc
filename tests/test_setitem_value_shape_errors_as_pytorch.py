"""A value that does not fit the indexed region is refused in PyTorch's words, which depend on the index:
an index of ints, slices, ``None`` and ``...`` copies into a view, and ``expand`` refuses ("The expanded
size of the tensor ..."); an index tensor or a mask is ``index_put_``, "shape mismatch: value tensor of
shape ... cannot be broadcast to indexing result of shape ...". The engine had them the other way round
for ``x[0:2] = v`` and ``x.index_put_(...)``. ``x[i] = v`` drops ``v``'s leading 1s first, ``index_put_``
does not (a ``(1, 1, 3)`` value fills two rows of 3 through the first, and is refused by the second).
Messages pasted from torch 2.13."""

import pytest

import minigrad_ckpt as mg

EXPAND = "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}."
MISMATCH = "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}"


def _recorded():
    return mg.zeros(4, 3, requires_grad=True) * 1


@pytest.mark.parametrize("write, words", [
    (lambda: mg.zeros(4, 3).__setitem__(slice(0, 2), mg.ones(3, 3)), EXPAND.format(2, 3, 0)),
    (lambda: mg.zeros(4, 3).__setitem__(0, mg.ones(4)), EXPAND.format(3, 4, 0)),
    (lambda: mg.zeros(4, 3).__setitem__((slice(0, 2),), mg.ones(1, 2, 4)), EXPAND.format(3, 4, 1)),
    (lambda: mg.zeros(4, 3).__setitem__((Ellipsis, 0), mg.ones(3)), EXPAND.format(4, 3, 0)),
    (lambda: mg.zeros(4, 3).__setitem__((None, 1), mg.ones(2, 3)), EXPAND.format(1, 2, 0)),
    (lambda: _recorded().__setitem__(slice(0, 2), mg.ones(3, 3)), EXPAND.format(2, 3, 0)),
    (lambda: _recorded().__setitem__(0, mg.ones(4)), EXPAND.format(3, 4, 0)),
    (lambda: mg.zeros(4, 3).index_put_((mg.tensor([0, 1]),), mg.ones(3, 3)), MISMATCH.format([3, 3], [2, 3])),
    (lambda: mg.zeros(4, 3).index_put_((mg.tensor([0, 1]),), mg.ones(1, 1, 3)), MISMATCH.format([1, 1, 3], [2, 3])),
    (lambda: mg.index_put(mg.zeros(4, 3), (mg.tensor([0, 1]),), mg.ones(3, 3)), MISMATCH.format([3, 3], [2, 3])),
    (lambda: _recorded().index_put_((mg.tensor([0, 1]),), mg.ones(2, 4)), MISMATCH.format([2, 4], [2, 3])),
    (lambda: mg.zeros(4, 3).__setitem__(mg.tensor([0, 1]), mg.ones(2, 2, 3)), MISMATCH.format([2, 2, 3], [2, 3])),
    (lambda: _recorded().__setitem__(mg.tensor([0, 1]), mg.ones(3, 3)), MISMATCH.format([3, 3], [2, 3])),
])
def test_the_refusal_says_what_pytorch_says_for_that_index(write, words):
    with pytest.raises(RuntimeError) as caught:
        write()
    assert str(caught.value).startswith(words)


def test_what_pytorch_accepts_is_accepted():
    x = mg.zeros(4, 3)
    x[0:2] = mg.ones(1, 1, 3)                       # leading 1s dropped: the rows filled
    x[mg.tensor([2, 3])] = mg.full((1, 1, 3), 2.0)  # through an index tensor too
    x.index_put_((mg.tensor([0]),), mg.full((1, 3), 3.0))  # index_put_ broadcasts as it is
    assert x.tolist() == [[3.0] * 3, [1.0] * 3, [2.0] * 3, [2.0] * 3]


@pytest.mark.parametrize("index, words", [
    (slice(0, 0), EXPAND.format(0, 2, 0)),
    (lambda: mg.tensor([], dtype=mg.long), MISMATCH.format([2], [0])),
    (lambda: mg.tensor([False] * 4), MISMATCH.format([2], [0])),
])
def test_an_empty_region_refuses_a_value_that_does_not_fit_it_on_the_tape_too(index, words):
    # (torch 2.13: y = torch.zeros(4, requires_grad=True).clone(); y[0:0] = torch.ones(2) is expand's error;
    # the recorded write returned early for an empty region and took any value)
    index = index() if callable(index) else index
    for x in (mg.zeros(4), mg.zeros(4, requires_grad=True) * 1):
        with pytest.raises(RuntimeError) as caught:
            x[index] = mg.ones(2)
        assert str(caught.value).startswith(words)
    y = mg.zeros(4, requires_grad=True) * 1
    y[index] = mg.ones(1)  # what fits (a value broadcast to no elements) is taken, and writes nothing
    assert y.tolist() == [0.0] * 4


@pytest.mark.parametrize("value", [[1.0, 2.0], (1.0, 2.0), [[1.0, 2.0]] * 3])
def test_an_empty_region_refuses_a_list_that_does_not_fit_it_on_the_tape_too(value):
    # a list or tuple value was still taken silently by the recorded write into an empty region (the
    # check read only a value's .shape), where a region of one row refused it and so did the untaped write
    y = mg.zeros(4, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="expand"):
        y[0:0] = value
    with pytest.raises(RuntimeError, match="expand"):
        y[0:1] = value
    y[0:0] = [5.0]  # what fits is taken, and writes nothing
    assert y.tolist() == [0.0] * 4
