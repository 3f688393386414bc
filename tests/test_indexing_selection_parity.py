"""Indexing, scatter/gather and selection against PyTorch 2.13's answers.

The expected values were made offline with torch (the expression is in a comment
beside each); no torch import here.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def arange(*shape, dtype="float64", device="cpu", requires_grad=False):
    n = int(np.prod(shape))
    return mg.tensor(np.arange(n, dtype=dtype).reshape(shape), device=device, requires_grad=requires_grad)


# ------------------------------------------- an integer apart from the index arrays
# torch: x = torch.arange(24.).reshape(2, 3, 4); x[1, :, [0, 3]].tolist()
INT_SLICE_ARRAY = [[12.0, 15.0], [16.0, 19.0], [20.0, 23.0]]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_integer_across_a_slice_from_an_array_selects_first(dtype, device):
    if device == "strict":
        import minigrad_ckpt.testing.strict  # noqa: F401
    x = arange(2, 3, 4, dtype=dtype, device=device)
    # NumPy counts the 1 among the index arrays and puts their dim first: (2, 3)
    np.testing.assert_array_equal(x[1, :, [0, 3]].numpy(), INT_SLICE_ARRAY)
    one = mg.tensor(1, device=device)  # a 0-d tensor reads as the integer, as in PyTorch
    np.testing.assert_array_equal(x[one, :, mg.tensor([0, 3], device=device)].numpy(), INT_SLICE_ARRAY)
    # torch: x[0, ..., [2, 1]].tolist()
    np.testing.assert_array_equal(x[0, ..., [2, 1]].numpy(), [[2.0, 1.0], [6.0, 5.0], [10.0, 9.0]])


def test_shapes_with_none_bool_and_broadcast_arrays():
    x, x4 = arange(2, 3, 4), arange(2, 3, 4, 5)
    # torch: x[None, 0, :, torch.tensor([True, False, True, False])].shape
    assert x[None, 0, :, mg.tensor([True, False, True, False])].shape == (1, 3, 2)
    # torch: x4[1, :, [0, 2], 3].shape; x4[[1], :, 2, [[0], [4]]].shape; x4[:, [0, 2], 1, [[0], [4]]].shape
    assert x4[1, :, [0, 2], 3].shape == (3, 2)
    assert x4[[1], :, 2, [[0], [4]]].shape == (2, 1, 3)
    assert x4[:, [0, 2], 1, [[0], [4]]].shape == (2, 2, 2)


def test_writes_and_gradients_take_the_same_places():
    y = mg.zeros(2, 3, 4, dtype=mg.float64)
    y[1, :, [0, 3]] = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=mg.float64)
    # torch: y = torch.zeros(2, 3, 4); y[1, :, [0, 3]] = torch.tensor([[1., 2.], [3., 4.], [5., 6.]]); y[1]
    want_written = [[1.0, 0.0, 0.0, 2.0], [3.0, 0.0, 0.0, 4.0], [5.0, 0.0, 0.0, 6.0]]
    np.testing.assert_array_equal(y[1].numpy(), want_written)
    # torch: a = torch.arange(24.).reshape(2, 3, 4).requires_grad_(); w = torch.arange(6.).reshape(3, 2)
    #        (a[1, :, [0, 3]] * w).sum().backward(); a.grad[1]
    want_grad = [[0.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 3.0], [4.0, 0.0, 0.0, 5.0]]
    w = arange(3, 2)
    a = arange(2, 3, 4, requires_grad=True)
    (a[1, :, [0, 3]] * w).sum().backward()
    np.testing.assert_array_equal(a.grad[1].numpy(), want_grad)
    g = mg.func.grad(lambda t: (t[1, :, [0, 3]] * w).sum())(arange(2, 3, 4))
    np.testing.assert_array_equal(g[1].numpy(), want_grad)
    _, tangent = mg.func.jvp(lambda t: t[1, :, [0, 3]], (arange(2, 3, 4),), (arange(2, 3, 4),))
    np.testing.assert_array_equal(tangent.numpy(), INT_SLICE_ARRAY)
    # a recorded write (the value requires grad): the value's gradient comes from the same places
    v = mg.tensor(np.ones((3, 2)), requires_grad=True)
    z = mg.zeros(2, 3, 4, dtype=mg.float64)
    z[1, :, [0, 3]] = v
    (z * arange(2, 3, 4)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), INT_SLICE_ARRAY)


# ------------------------------------------------------- index_* with negative indices
@pytest.mark.parametrize("call", [
    lambda x, i, s: x.index_select(1, i),
    lambda x, i, s: mg.index_select(x, 1, i),
    lambda x, i, s: x.index_add(1, i, s),
    lambda x, i, s: x.index_copy(1, i, s),
    lambda x, i, s: x.index_reduce(1, i, s, "prod"),
    lambda x, i, s: x.clone().index_add_(1, i, s),
], ids=["index_select", "mg.index_select", "index_add", "index_copy", "index_reduce", "index_add_"])
def test_negative_indices_are_out_of_range_where_pytorch_refuses_them(call):
    # torch: torch.zeros(2, 3).index_select(1, torch.tensor([-1])) raises (and so do index_add,
    # index_copy, index_reduce: "index -1 is out of bounds for dimension 1 with size 3", index_select
    # and index_reduce in their words, "index out of range in self"); mg read -1 as 2
    x, s = mg.zeros(2, 3), mg.ones(2, 1)
    with pytest.raises(IndexError, match="-1|index out of range in self"):
        call(x, mg.tensor([-1]), s)


def test_index_fill_counts_from_the_end_and_index_select_of_a_scalar_takes_one_index():
    # torch: torch.zeros(2, 3).index_fill(1, torch.tensor([-1]), 2.).tolist()
    np.testing.assert_array_equal(mg.zeros(2, 3).index_fill(1, mg.tensor([-1]), 2.0).numpy(),
                                  [[0.0, 0.0, 2.0], [0.0, 0.0, 2.0]])
    # torch: torch.tensor(2.).index_select(0, torch.tensor([0, 0])) raises RuntimeError "Index to scalar can
    # have only 1 value"; torch.tensor(2.).index_select(0, torch.tensor([0])) is tensor(2.), 0-d
    with pytest.raises(RuntimeError, match="one index"):
        mg.tensor(2.0).index_select(0, mg.tensor([0, 0]))
    assert mg.tensor(2.0).index_select(0, mg.tensor([0])).tolist() == 2.0


# torch: x = torch.tensor([[True, False, False], [False, True, True]])
#        s = torch.tensor([[True, False, True], [False, False, True]]); i = torch.tensor([[0, 0, 1], [2, 2, 0]])
#        x.scatter_reduce(1, i, s, reduce, include_self=include_self).tolist()
BOOL_SCATTER_REDUCE = {
    ("amax", True): [[True, True, False], [True, True, True]],
    ("amax", False): [[True, True, False], [True, True, False]],
    ("amin", True): [[False, False, False], [False, True, False]],
    ("amin", False): [[False, True, False], [True, True, False]],
}


@pytest.mark.parametrize("reduce,include_self", list(BOOL_SCATTER_REDUCE))
def test_scatter_reduce_amax_amin_of_bools(reduce, include_self):
    # mg raised TypeError 'amax: not defined for bool'
    x = mg.tensor([[True, False, False], [False, True, True]])
    s = mg.tensor([[True, False, True], [False, False, True]])
    i = mg.tensor([[0, 0, 1], [2, 2, 0]])
    out = x.scatter_reduce(1, i, s, reduce, include_self=include_self)
    assert out.dtype == mg.bool and out.tolist() == BOOL_SCATTER_REDUCE[reduce, include_self]


# ------------------------------------------------------------- unique, nonzero, bincount, chunk
NAN = float("nan")


def test_unique_with_pytorchs_keywords_keeps_each_nan():
    x = mg.tensor([2.0, NAN, 1.0, 2.0, NAN])
    # torch: torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    values, inverse, counts = mg.unique(x, sorted=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [1.0, 2.0, NAN, NAN])  # mg merged the NaNs: [1, 2, nan]
    assert inverse.tolist() == [1, 2, 0, 1, 3] and counts.tolist() == [1, 2, 1, 1]
    # torch: torch.unique(torch.tensor([[1., nan], [1., nan]]), dim=0) keeps both rows
    assert mg.unique(mg.tensor([[1.0, NAN], [1.0, NAN]]), dim=0).shape == (2, 2)
    assert mg.unique(x).shape == (3,)  # NumPy's call (no sorted=/dim=) still merges them


def test_unique_of_empty_slices():
    # torch: torch.unique_consecutive(torch.zeros(0, 2), return_inverse=True, return_counts=True)
    # gives (tensor([]), an int64 (0, 2) tensor, an int64 (0,) tensor); mg raised 'cannot reshape'
    values, inverse, counts = mg.unique_consecutive(mg.zeros(0, 2), return_inverse=True, return_counts=True)
    assert values.shape == (0,) and inverse.shape == (0, 2) and counts.shape == (0,)
    assert inverse.dtype == mg.int64 and counts.dtype == mg.int64
    values, inverse, counts = mg.unique_consecutive(mg.zeros(0, 2), return_inverse=True, return_counts=True, dim=0)
    assert values.shape == (0, 2) and inverse.shape == (0,) and counts.shape == (0,)
    # torch: torch.unique(torch.zeros(0, 2), dim=1) and unique_consecutive(..., dim=1) raise
    # "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
    for call in (lambda t: mg.unique(t, dim=1), lambda t: mg.unique_consecutive(t, dim=1)):
        with pytest.raises(RuntimeError, match="0 sized dimensions"):
            call(mg.zeros(0, 2))
    # torch: torch.unique(torch.zeros(0, 0, 3), dim=1) (and unique_consecutive) raise "Number of zero sized
    # dimensions is more than one"; mg answered
    for call in (lambda t: mg.unique(t, dim=1), lambda t: mg.unique_consecutive(t, dim=1)):
        with pytest.raises(RuntimeError, match="zero sized dimensions is more than one"):
            call(mg.zeros(0, 0, 3))


def test_where_and_nonzero_of_a_0d_tensor_read_it_as_1d():
    # torch: torch.where(torch.tensor(3.)) is (tensor([0]),); of torch.tensor(0.) (tensor([]),)
    # mg raised NumPy's 'Calling nonzero on 0d arrays is not allowed'
    (found,) = mg.where(mg.tensor(3.0))
    assert found.tolist() == [0] and found.dtype == mg.int64
    assert mg.where(mg.tensor(0.0))[0].shape == (0,)
    assert mg.nonzero(mg.tensor(2))[0].tolist() == [0]


def test_bincount_sums_weights_that_are_not_float32_in_float64():
    ids = mg.tensor([0, 3, 3])
    # torch: torch.bincount(ids, torch.tensor([1, 2, 3])) is float64 [1., 0., 0., 5.] (mg: int64)
    out = mg.bincount(ids, mg.tensor([1, 2, 3]))
    assert out.dtype == mg.float64 and out.tolist() == [1.0, 0.0, 0.0, 5.0]
    # torch: torch.bincount(ids, torch.tensor([True, False, True])) is float64 [1., 0., 0., 1.] (mg: bool)
    out = mg.bincount(ids, mg.tensor([True, False, True]))
    assert out.dtype == mg.float64 and out.tolist() == [1.0, 0.0, 0.0, 1.0]
    # torch: float32 weights stay float32
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = mg.bincount(ids, w)
    assert out.dtype == mg.float32
    (out * mg.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert w.grad.tolist() == [1.0, 4.0, 4.0]


def test_chunk_of_an_empty_dim_gives_chunks_empty_pieces():
    # torch: [c.shape for c in torch.zeros(0, 4).chunk(3, 0)] is three (0, 4); mg gave one
    assert [c.shape for c in mg.zeros(0, 4).chunk(3, 0)] == [(0, 4)] * 3
    # torch: torch.zeros(2, 0).chunk(2, 1) is two (2, 0)
    assert [c.shape for c in mg.chunk(mg.zeros(2, 0), 2, 1)] == [(2, 0)] * 2


# ------------------------------------------------------------- what PyTorch refuses
@pytest.mark.parametrize("call", [
    lambda: mg.tensor([True, False, True]).topk(1),
    lambda: mg.topk(mg.tensor([True, False]), 1, largest=False),
    lambda: mg.tensor([True, False, True]).kthvalue(1),
], ids=["topk", "topk_smallest", "kthvalue"])
def test_topk_and_kthvalue_refuse_bools(call):
    # torch: torch.tensor([True, False]).topk(1) raises 'topk does not support bool dtypes on CPU';
    # kthvalue: '"kthvalue_cpu" not implemented for 'Bool''.  mg answered.
    with pytest.raises(RuntimeError, match="bool"):
        call()


def test_histc_of_integers_and_searchsorted_into_a_0d_sequence_raise():
    # torch: torch.histc(torch.tensor([1, 2, 3]), bins=3) raises '"histogram_cpu" not implemented for 'Long''
    with pytest.raises(NotImplementedError, match="histc"):
        mg.histc(mg.tensor([1, 2, 3]), bins=3)
    # torch: torch.searchsorted(torch.tensor(1.), torch.tensor([0., 2.])) raises 'boundaries tensor should have
    # positive dimension'
    with pytest.raises(RuntimeError, match="0-d"):
        mg.searchsorted(mg.tensor(1.0), mg.tensor([0.0, 2.0]))


def test_a_uint8_tensor_index_is_a_mask_with_pytorchs_deprecation_warning():
    x = arange(3, 4)
    m = mg.tensor([1, 0, 2], dtype=mg.uint8)
    # torch: x[m].tolist() (mg read the uint8 values as row numbers: rows 1, 0, 2)
    with pytest.warns(UserWarning, match="uint8"):
        assert x[m].tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    # torch: x[:, torch.tensor([0, 1, 1, 0], dtype=torch.uint8)].tolist()
    with pytest.warns(UserWarning, match="uint8"):
        assert x[:, mg.tensor([0, 1, 1, 0], dtype=mg.uint8)].tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    # torch: y = x.clone(); y[m] = torch.zeros(2, 4); y.tolist()
    y = x.clone()
    with pytest.warns(UserWarning, match="uint8"):
        y[m] = mg.zeros(2, 4, dtype=mg.float64)
    assert y.tolist() == [[0.0] * 4, [4.0, 5.0, 6.0, 7.0], [0.0] * 4]


def test_index_put_dtype_rule_reads_0d_indices_as_pytorch():
    # torch: x = torch.zeros(3, 2, dtype=torch.int64); x[torch.tensor(1)] = torch.tensor([1.5, 2.5]) casts
    # (a 0-d integer tensor is a select): x[1] is [1, 2].  mg refused it as an index_put
    x = mg.zeros(3, 2, dtype=mg.int64)
    x[mg.tensor(1)] = mg.tensor([1.5, 2.5])
    assert x.tolist() == [[0, 0], [1, 2], [0, 0]]
    # torch: x[torch.tensor(True)] = torch.tensor(2.5) refuses ('Index put requires the source and
    # destination dtypes match'); a 1-D mask with one value casts (masked_fill).  mg cast both
    with pytest.raises(RuntimeError, match="dtypes match"):
        x[mg.tensor(True)] = mg.tensor(2.5)
    x[mg.tensor([True, False, True])] = mg.tensor(2.5)
    assert x.tolist() == [[2, 2], [1, 2], [2, 2]]


def test_a_recorded_index_put_refuses_another_dtype_as_the_plain_one():
    # torch: x = torch.zeros(3, 2, dtype=torch.float64, requires_grad=True) * 1
    #        x[torch.tensor([0, 1])] = torch.tensor([1.5, 2.5], requires_grad=True) raises 'dtypes match';
    # mg cast the float32 value when the write was recorded (and refused it when not)
    x = mg.zeros(3, 2, dtype=mg.float64, requires_grad=True) * 1
    v = mg.tensor([1.5, 2.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="dtypes match"):
        x[mg.tensor([0, 1])] = v
    x[1] = v  # basic indexing casts, as PyTorch's copy_
    x.sum().backward()
    assert v.grad.tolist() == [1.0, 1.0] and v.grad.dtype == mg.float32


def test_an_ellipsis_standing_for_no_dim_does_not_part_the_arrays():
    x = arange(2, 3, 2)
    # torch: x[1:2, [2, 0], ..., [1, 0]].tolist(); NumPy reads the empty ... as a gap: shape (2, 1)
    assert x[1:2, [2, 0], ..., [1, 0]].tolist() == [[11.0, 6.0]]
    # torch: torch.arange(24.).reshape(2, 3, 4)[[1, 0], ..., [1, 0]].tolist() (the ... is a dim: a gap)
    assert arange(2, 3, 4)[[1, 0], ..., [1, 0]].tolist() == [[13.0, 17.0, 21.0], [0.0, 4.0, 8.0]]


@pytest.mark.parametrize("call,error", [
    # torch: torch.arange(4.).tensor_split(torch.tensor([1.])) raises 'tensor_split expected
    # tensor_indices_or_sections to have dtype of long, but got Float' (mg split at 1)
    (lambda: mg.arange(4.0).tensor_split(mg.tensor([1.0])), TypeError),
    # torch: torch.searchsorted(torch.arange(4.), torch.arange(4.), sorter=torch.tensor([0, 1])) raises
    # 'boundary and sorter must have the same size' (mg searched the two elements the sorter picked)
    (lambda: mg.searchsorted(mg.arange(4.0), mg.arange(4.0), sorter=mg.tensor([0, 1])), RuntimeError),
    # torch: torch.bincount(torch.tensor([1]), minlength=-1) raises 'minlength should be >= 0'
    (lambda: mg.bincount(mg.tensor([1]), minlength=-1), ValueError),
    # torch: torch.triu_indices(-1, 3) raises 'row must be non-negative' (mg gave an empty (2, 0))
    (lambda: mg.triu_indices(-1, col=3), RuntimeError),
], ids=["tensor_split_float_points", "searchsorted_sorter_shape", "bincount_negative_minlength",
        "triu_indices_negative_row"])
def test_arguments_pytorch_refuses(call, error):
    with pytest.raises(error):
        call()


def test_pytorchs_keyword_names_of_the_selection_functions():
    x = arange(3, 4)
    # torch: torch.topk(input=x, k=2, dim=0, largest=False).indices.tolist() with x = torch.arange(12.).reshape(3, 4)
    assert mg.topk(input=x, k=2, dim=0, largest=False).indices.tolist() == [[0, 0, 0, 0], [1, 1, 1, 1]]
    # torch: torch.chunk(input=x, chunks=2, dim=1) two (3, 2); torch.unbind(input=x, dim=1)[1];
    #        torch.select(input=x, dim=0, index=1)
    assert [c.shape for c in mg.chunk(input=x, chunks=2, dim=1)] == [(3, 2), (3, 2)]
    assert mg.unbind(input=x, dim=1)[1].tolist() == [1.0, 5.0, 9.0]
    assert mg.select(input=x, dim=0, index=1).tolist() == [4.0, 5.0, 6.0, 7.0]
    # torch: torch.tensor_split(x, sections=3, dim=1) widths [2, 1, 1]; indices=[1, 2]: [1, 1, 2]
    assert [c.shape[1] for c in mg.tensor_split(x, sections=3, dim=1)] == [2, 1, 1]
    assert [c.shape[1] for c in x.tensor_split(indices=[1, 2], dim=1)] == [1, 1, 2]
    with pytest.raises(TypeError, match="one of"):
        x.tensor_split(2, sections=3)


def test_the_tensor_argument_by_pytorchs_keyword_name():
    # torch, with x = torch.arange(12.).reshape(3, 4); each was mg's "unexpected keyword argument 'input'"
    x = arange(3, 4)
    assert mg.sort(input=x, dim=0, descending=True).values[0].tolist() == [8.0, 9.0, 10.0, 11.0]
    assert mg.argsort(input=x, dim=1, descending=True)[0].tolist() == [3, 2, 1, 0]
    assert mg.take(input=x, index=mg.tensor([1, 5])).tolist() == [1.0, 5.0]
    assert mg.max(input=x, dim=1, keepdim=True).indices.tolist() == [[3], [3], [3]]
    assert mg.argmax(input=x, dim=0).tolist() == [2, 2, 2, 2]
    assert mg.where(condition=x > 5, input=x, other=-x)[1].tolist() == [-4.0, -5.0, 6.0, 7.0]
    assert mg.searchsorted(sorted_sequence=x[0], input=mg.tensor([1.5, 3.0]), right=True).tolist() == [2, 4]
    assert mg.split(tensor=x, split_size_or_sections=1, dim=1)[0].shape == (3, 1)
    assert mg.tril(input=x, diagonal=-1)[2].tolist() == [8.0, 9.0, 0.0, 0.0]
    assert mg.diag(input=x, diagonal=1).tolist() == [1.0, 6.0, 11.0]
    assert mg.diagonal(input=x, offset=1).tolist() == [1.0, 6.0, 11.0]
    assert mg.roll(input=x, shifts=1, dims=0)[0].tolist() == [8.0, 9.0, 10.0, 11.0]
    assert mg.flip(input=x, dims=(1,))[0].tolist() == [3.0, 2.0, 1.0, 0.0]
    assert mg.count_nonzero(input=x, dim=0).tolist() == [2, 3, 3, 3]
    assert mg.unique(input=mg.tensor([2.0, 1.0, 2.0])).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="multiple values"):
        mg.sort(x, input=x)


# torch 2.13: index_copy_ of a 0-d source into a one-element row takes it; index_add_ refuses it.
# Found by running PyTorch's test_indexing.py (test_index_copy_scalars) against the engine, which
# refused every index_copy_ with a 0-d source and a 1-D input.
@pytest.mark.parametrize("target, index, source", [((1,), (), ()), ((1,), (1,), ()), ((), (), (1,)),
                                                   ((), (1,), (1,)), ((1,), (1,), (1,)), ((), (), ())])
def test_index_copy_takes_every_mix_of_0d_and_one_element_shapes(target, index, source):
    x = mg.full(target, 2.0)
    x.index_copy_(0, mg.zeros(index, dtype=mg.int64), mg.full(source, 5.0))
    assert x.shape == target and x.item() == 5.0


def test_index_add_still_refuses_a_0d_source_for_a_1d_input():
    with pytest.raises(RuntimeError):
        mg.ones(1).index_add_(0, mg.zeros((), dtype=mg.int64), mg.full((), 5.0))
