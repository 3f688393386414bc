"""The shape and selection functions refuse what PyTorch's refuse, with PyTorch's exception types.

Where PyTorch's kernel raises ``RuntimeError`` -- an empty list to ``stack``/``hstack``/..., an
unknown ``indexing``, ``combinations`` of a matrix, ``flatten``'s dims in the wrong order, negative
``tile`` counts, ``hsplit`` into sections that do not divide the dim, ``bucketize``'s boundaries of
two dims, ``fliplr`` of a vector -- the engine raised NumPy's ``ValueError`` (or its ``IndexError``
for a dim out of range), which PyTorch code's ``except RuntimeError`` misses; each is now both.
``isin`` of complex numbers is PyTorch's ``RuntimeError`` too (and still the ``TypeError``).
``searchsorted``'s ``sorter`` with an index out of range is refused, as PyTorch's: a -1 was read
by NumPy's ``take_along_axis`` as the last element, an answer for a sequence nobody gave.
"""

import pytest

import minigrad_ckpt as mg

REFUSALS = {  # name: (call, the class it is besides RuntimeError: the engine's before)
    "stack of nothing": (lambda: mg.stack([]), ValueError),
    "hstack of nothing": (lambda: mg.hstack([]), ValueError),
    "column_stack of nothing": (lambda: mg.column_stack([]), ValueError),
    "cartesian_prod of nothing": (lambda: mg.cartesian_prod(), ValueError),
    "meshgrid indexing": (lambda: mg.meshgrid(mg.tensor([1]), mg.tensor([2]), indexing="foo"), ValueError),
    "combinations of a matrix": (lambda: mg.combinations(mg.ones(2, 2)), ValueError),
    "combinations negative r": (lambda: mg.combinations(mg.tensor([1, 2]), -1), ValueError),
    "flatten dims reversed": (lambda: mg.zeros(2, 3, 4).flatten(2, 1), ValueError),
    "tile negative": (lambda: mg.zeros(3, 4).tile((-1, 1)), ValueError),
    "hsplit indivisible": (lambda: mg.hsplit(mg.zeros(3, 4), 3), ValueError),
    "bucketize 2-D boundaries": (lambda: mg.bucketize(mg.tensor([1.0]), mg.ones(2, 2)), ValueError),
    "fliplr of a vector": (lambda: mg.fliplr(mg.tensor([1.0, 2.0])), IndexError),
    "flipud of a 0-d tensor": (lambda: mg.flipud(mg.tensor(1.0)), IndexError),
    "isin of complex": (lambda: mg.isin(mg.tensor([1j]), mg.tensor([1j])), TypeError),
    "softmax of complex": (lambda: mg.softmax(mg.tensor([1j, 2.0]), 0), TypeError),
    "searchsorted sorter past the end": (
        lambda: mg.searchsorted(mg.tensor([1.0, 2.0]), mg.tensor([1.0]), sorter=mg.tensor([0, 5])), IndexError),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_are_runtime_errors_and_what_they_were(name):
    call, before = REFUSALS[name]
    with pytest.raises(RuntimeError) as caught:
        call()
    assert isinstance(caught.value, before)


def test_a_negative_sorter_index_is_refused_not_wrapped():
    s = mg.tensor([5.0, 1.0, 3.0])
    with pytest.raises(IndexError, match="sorter index out of range"):
        mg.searchsorted(s, mg.tensor([2.0]), sorter=mg.tensor([1, 2, -3]))
    assert mg.searchsorted(s, mg.tensor([2.0, 4.0]), sorter=mg.tensor([1, 2, 0])).tolist() == [1, 2]


def test_the_answers_beside_them_are_unchanged():
    assert mg.fliplr(mg.tensor([[1, 2], [3, 4]])).tolist() == [[2, 1], [4, 3]]
    assert mg.flipud(mg.tensor([1, 2])).tolist() == [2, 1]
    assert mg.zeros(3, 4).tile((0, 1)).shape == (0, 4)
    assert mg.combinations(mg.tensor([1, 2, 3]), 0).shape == (0,)
    assert mg.zeros(2, 3, 4).flatten(1, 1).shape == (2, 3, 4)


@pytest.mark.parametrize("call", [lambda x: x.clamp(), lambda x: x.clamp_(), lambda x: mg.clamp(x),
                                  lambda x: x.clip(), lambda x: x.clip_()])
def test_clamp_and_the_clip_method_without_a_bound_are_runtime_errors(call):
    # PyTorch's test_clamp_raises_arg_errors: RuntimeError; the engine raised a bare TypeError, and the
    # clip method (PyTorch's) took no bound at all and answered x unchanged
    with pytest.raises(RuntimeError, match="min or max") as caught:
        call(mg.tensor([-20.0, 0.0, 20.0]))
    assert isinstance(caught.value, TypeError)


def test_clip_takes_out_as_clamp_does():
    x = mg.tensor([-20.0, 0.0, 20.0])
    out = mg.empty(3)
    assert mg.clip(x, -10, 10, out=out) is out and out.tolist() == [-10.0, 0.0, 10.0]
    assert mg.clip(x).tolist() == [-20.0, 0.0, 20.0]  # NumPy 2's clip: no bound, no change


def test_t_of_three_dims_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="<= 2 dimensions") as caught:
        mg.t(mg.zeros(2, 2, 2))
    assert isinstance(caught.value, ValueError)


def test_no_tensors_at_all_answer_as_pytorchs_where_it_answers():
    # torch.block_diag() is a 1 x 0 matrix, torch.atleast_1d() and torch.broadcast_tensors() empty tuples;
    # the engine refused them with the error meant for stack([])
    empty = mg.block_diag()
    assert empty.shape == (1, 0) and empty.dtype == mg.float32
    assert mg.atleast_1d() == () and mg.atleast_2d([]) == () and mg.atleast_3d() == ()
    assert mg.broadcast_tensors() == ()
