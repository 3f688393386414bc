"""Reductions, scans, selections, gathers/scatters and shape ops at extremal inputs -- empty and 0-d
tensors, duplicate and negative dims, ties, NaNs, integer and bool dtypes, duplicate indices -- each
written once as an expression of ``L`` (``torch`` or ``minigrad_ckpt``) and the inputs below:
make_torch_operator_extremes.py records what torch 2.13 answers (each result's dtype, shape and
values, or the builtin type of its error); tests/test_operator_extremes_vs_torch.py replays them.

``grad(f, *inputs)`` is the gradient of ``(f(*inputs) * weights).sum()`` in each float input (fixed
pseudo-random weights, so every output element's gradient shows), ``None`` for one not reached.
"""

import numpy as np

INPUTS = {
    "X": np.array([[1.0, 5.0, 3.0, -0.0], [4.0, 5.0, 0.5, 2.0], [9.0, -1.0, 2.0, 7.0]]),
    "N": np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 2.0]]),
    "I": np.array([[3, 1, 3], [2, 2, 0]], dtype=np.int64),
    "B": np.array([[True, False, True], [False, False, True]]),
    "E": np.zeros((0,)),
    "E23": np.zeros((2, 0, 3)),
    "Z": np.array(2.5),
    "S": np.array([10.0, 20.0, 30.0, 40.0]),
    "Q": np.array([1.0, 2.0, np.nan]),  # sorted as torch.sort sorts: NaN last
}

CASES = {
    # index_select keeps a 0-d input's rank, whatever the index's (torch: 0-d)
    "index_select_0d_input_1d_index": "L.tensor(1.5).index_select(0, L.tensor([0]))",
    "index_select_0d_input_0d_index": "L.tensor(1.5).index_select(0, L.tensor(0))",
    "index_select_1d_input_0d_index": "S.index_select(0, L.tensor(1))",
    "index_select_0d_input_two_indices": "L.tensor(1.5).index_select(0, L.tensor([0, 0]))",
    "index_select_from_an_empty_dim": "E23.index_select(1, L.tensor([0]))",
    "index_select_nothing_from_an_empty_dim": "E23.index_select(1, L.tensor([], dtype=L.int64))",
    "index_select_past_the_end": "X.index_select(1, L.tensor([4]))",
    # indices that are not integers: torch's RuntimeError (IndexError for index_fill and x[i])
    "index_select_float_index": "X.index_select(0, L.tensor([1.0]))",
    "index_select_bool_index": "X.index_select(0, L.tensor([True, False, True]))",
    "gather_float_index": "X.gather(0, L.tensor([[1.0]]))",
    "scatter_float_index": "X.scatter(0, L.tensor([[1.0]]), 2.0)",
    "index_add_float_index": "X.index_add(0, L.tensor([1.0]), X[:1])",
    "index_copy_float_index": "X.index_copy(0, L.tensor([1.0]), X[:1])",
    "index_fill_float_index": "X.index_fill(0, L.tensor([1.0]), 2.0)",
    "take_float_index": "X.take(L.tensor([1.0]))",
    "put_float_index": "X.put(L.tensor([1.0]), L.tensor([2.0], dtype=X.dtype))",
    "take_along_dim_float_index": "L.take_along_dim(X, L.tensor([[1.0]]), 0)",
    # a dim listed twice (0 and -1 of a 0-d tensor too): torch's RuntimeError, NumPy's ValueError
    "sum_repeated_dim": "X.sum((0, -2))",
    "mean_repeated_dim": "X.mean((1, 1), keepdim=True)",
    "nansum_repeated_dim": "N.nansum((1, -1))",
    "std_repeated_dim": "X.std((0, 0))",
    "var_mean_repeated_dim": "L.var_mean(X, (0, 0))",
    "logsumexp_repeated_dim": "X.logsumexp((0, -2))",
    "amax_repeated_dim": "X.amax((1, -1))",
    "amin_repeated_dim": "I.amin((0, 0))",
    "count_nonzero_repeated_dim": "X.count_nonzero((0, 0))",
    "all_repeated_dim": "B.all((0, -2))",
    "any_repeated_dim": "B.any((1, 1), keepdim=True)",
    "vector_norm_repeated_dim": "L.linalg.vector_norm(X, dim=(0, 0))",
    "flip_repeated_dim": "X.flip(0, -2)",
    "squeeze_repeated_dim": "X[None].squeeze((0, 0))",
    "permute_repeated_dim": "X.permute(0, 0)",
    "movedim_repeated_dim": "X.movedim((0, 0), (0, 1))",
    "sum_0d_dims_0_and_minus_1": "Z.sum((0, -1))",
    "amax_0d_dims_0_and_minus_1": "Z.amax((0, -1))",
    "std_0d_dims_0_twice": "Z.std((0, 0))",
    "all_0d_dims_0_and_minus_1": "Z.all((0, -1))",
    "sum_0d_dim_minus_1": "Z.sum((-1,), keepdim=True)",
    "amax_0d_dim_0": "Z.amax(0)",
    # an empty argmax/argmin over every dim: torch's IndexError (amax's is a RuntimeError)
    "argmax_empty_every_dim": "E.argmax()",
    "argmin_empty_every_dim": "E23.argmin()",
    "amax_empty_every_dim": "E.amax()",
    "argmax_empty_dim": "E23.argmax(1)",
    # selection: k out of range is torch's RuntimeError; bools and integers where torch has no kernel
    "topk_k_past_the_dim": "E.topk(1)",
    "topk_k_negative": "X.topk(-1)",
    "topk_k_past_0d": "Z.topk(2)",
    "topk_k_whole_0d": "Z.topk(1)",
    "topk_k_zero": "X.topk(0, 0)",
    "kthvalue_k_zero": "X.kthvalue(0)",
    "kthvalue_k_past_0d": "Z.kthvalue(2)",
    "kthvalue_0d": "Z.kthvalue(1)",
    "kthvalue_bool": "B.kthvalue(1)",
    "topk_bool": "B.topk(1)",
    "var_mean_of_integers": "L.var_mean(I, dim=1)",
    "std_mean_of_bools": "L.std_mean(B)",
    "var_mean_0d_dim": "L.var_mean(Z, 0, correction=0)",
    "std_mean_empty_dim": "L.std_mean(E23, dim=(0, 2))",
    "quantile_of_integers": "I.quantile(0.5, dim=1)",
    "nanquantile_of_bools": "B.nanquantile(0.5)",
    "quantile_of_float16": "X.half().quantile(0.5, dim=1)",
    "nanquantile_of_float16": "N.half().nanquantile(L.tensor([0.5], dtype=L.float16))",
    "quantile_of_float16_dim_keyword": "L.quantile(X.half(), 0.25, dim=0)",
    "quantile_of_float32": "X.float().quantile(0.3, dim=0, interpolation='nearest')",
    "quantile_of_empty": "E.quantile(0.5)",
    "quantile_nan_row": "N.quantile(L.tensor([0.0, 0.5, 1.0], dtype=N.dtype), dim=1, keepdim=True)",
    "nanquantile_nan_row": "N.nanquantile(0.25, dim=1, interpolation='midpoint')",
    # histc: an empty range given is the data's own (any equal min and max, not only 0 and 0)
    "histc_equal_min_max": "L.histc(L.tensor([3.0, 3.0]), bins=3, min=2, max=2)",
    "histc_equal_min_max_spread_data": "L.histc(X, bins=3, min=2, max=2)",
    "histc_equal_min_max_0d": "L.histc(L.tensor(4.0), bins=3, min=1, max=1)",
    "histc_equal_min_max_float32": "L.histc(L.tensor([1.0, 2.0]), bins=3, min=5, max=5)",
    "histc_both_zero": "L.histc(X, bins=4)",
    "histc_data_one_value": "L.histc(L.tensor([3.0, 3.0]), bins=2)",
    "histc_empty": "L.histc(E, bins=2)",
    "histc_nan_data_default_range": "L.histc(N, bins=2)",
    "histc_infinite_bound": "L.histc(X, bins=3, min=-inf, max=1)",
    "histc_min_above_max": "L.histc(X, bins=2, min=5, max=1)",
    "histc_no_bins": "L.histc(X, bins=0)",
    "histc_integers": "L.histc(I, bins=2)",
    # x.histogram: a range not finite or reversed, or no bins: torch's RuntimeError; integers: its
    # NotImplementedError; one value's range widened by a half each way
    "histogram_infinite_data": "L.tensor([1.0, inf]).histogram(3)",
    "histogram_nan_data": "N.histogram(2)",
    "histogram_infinite_range": "S.histogram(3, range=(0.0, inf))",
    "histogram_reversed_range": "S.histogram(2, range=(3.0, 1.0))",
    "histogram_no_bins": "S.histogram(0)",
    "histogram_integers": "I.histogram(2)",
    "histogram_bools": "B.histogram(2)",
    "histogram_one_value": "L.tensor([2.0, 2.0]).histogram(2)",
    "histogram_empty": "E.histogram(2)",
    "histogram_weighted_density": "X.histogram(3, weight=X.abs(), density=True)",
    # bincount
    "bincount_floats": "L.bincount(L.tensor([0.0, 1.0]))",
    "bincount_bools": "L.bincount(L.tensor([True, False]))",
    "bincount_2d": "L.bincount(I)",
    "bincount_negative": "L.bincount(L.tensor([0, -1]))",
    "bincount_negative_minlength": "L.bincount(L.tensor([1, 2]), minlength=-1)",
    "bincount_empty_minlength": "L.bincount(L.tensor([], dtype=L.int64), minlength=3)",
    "bincount_int_weights": "L.bincount(L.tensor([0, 2, 2]), weights=L.tensor([1, 2, 3]))",
    "bincount_float32_weights": "L.bincount(L.tensor([0, 2, 2]), weights=L.tensor([1.0, 2.0, 3.0], dtype=L.float32))",
    # searchsorted: side and right saying opposite things is torch's RuntimeError
    "searchsorted_side_left_right_true": "L.searchsorted(S, L.tensor([20.0]), side='left', right=True)",
    "searchsorted_side_right_right_true": "L.searchsorted(S, L.tensor([20.0]), side='right', right=True)",
    "searchsorted_side_right": "L.searchsorted(S, L.tensor([20.0, 5.0, 45.0]), side='right')",
    "searchsorted_right": "L.searchsorted(S, L.tensor([20.0, 5.0, 45.0]), right=True, out_int32=True)",
    "searchsorted_bad_side": "L.searchsorted(S, L.tensor([20.0]), side='middle')",
    # a NaN compares false both ways in torch's binary search: a NaN value goes past everything, and a
    # NaN in the sequence (where torch.sort puts it, last) is passed over or not as the search meets it
    "searchsorted_nan_last_left": "L.searchsorted(Q, L.tensor([2.0, 0.0, 4.0, nan]))",
    "searchsorted_nan_last_right": "L.searchsorted(Q, L.tensor([2.0, 0.0, 4.0, nan]), right=True)",
    "searchsorted_nans_last_rows": "L.searchsorted(L.tensor([[1.0, nan, nan, nan], [0.0, 1.0, 2.0, nan]]), "
                                   "L.tensor([[0.5, 2.0, nan], [1.0, 1.5, 5.0]]), side='right')",
    "searchsorted_nan_first": "L.searchsorted(L.tensor([nan, 1.0, 3.0, 5.0, 7.0]), L.tensor([0.0, 2.0, 4.0, 8.0]))",
    "searchsorted_nan_values_no_nan_sequence": "L.searchsorted(S, L.tensor([[nan, 10.0], [40.0, -inf]]))",
    "searchsorted_infinities": "L.searchsorted(L.tensor([-inf, 0.0, inf]), L.tensor([-inf, inf]), right=True)",
    "searchsorted_int_sequence_floats": "L.searchsorted(L.tensor([1, 2, 2, 3]), L.tensor([2.0, 2.5]), right=True)",
    "searchsorted_empty_sequence": "L.searchsorted(E, L.tensor([1.0, nan]))",
    "searchsorted_empty_values": "L.searchsorted(S, E23)",
    "searchsorted_0d_value": "L.searchsorted(S, L.tensor(25.0))",
    "searchsorted_sorter_with_nan":
        "L.searchsorted(L.tensor([3.0, nan, 1.0]), L.tensor([2.0, 5.0]), sorter=L.tensor([2, 0, 1]))",
    "bucketize_nan_boundary": "L.bucketize(L.tensor([[2.0], [9.0]]), Q, right=True)",
    "bucketize_right": "L.bucketize(L.tensor([[20.0], [40.0]]), S, right=True)",
    # rot90 of fewer than two dims, or the same dim twice: torch's RuntimeError
    "rot90_1d": "S.rot90(1, (0, 0))",
    "rot90_0d": "Z.rot90(2)",
    "rot90_same_dims": "X.rot90(1, (0, -2))",
    "rot90_three_dims": "X.rot90(1, (0, 1, 1))",
    "rot90_dim_out_of_range": "X.rot90(1, (0, 2))",
    "rot90_minus_3": "grad(lambda x: x.rot90(-3, (1, 0)), X)",
    # shape ops at edge sizes: an empty tensor's -1 in unflatten is its dim's share; a 0-d tensor's
    # window (unfold) has no window-count dim; its dim 0 moved (movedim) is itself
    "unflatten_empty_minus_one": "E23.unflatten(-1, (-1,))",
    "unflatten_empty_minus_one_with_one": "E23.unflatten(2, (1, -1))",
    "unflatten_empty_dim_minus_one": "E23.unflatten(1, (2, -1))",
    "unflatten_empty_dim_ambiguous": "E23.unflatten(1, (-1, 0))",
    "unflatten_no_sizes": "S.unflatten(0, ())",
    "unflatten_sizes_do_not_divide": "X.unflatten(0, (2, 2))",
    "unflatten_minus_one_gradient": "grad(lambda x: x.unflatten(1, (2, -1)), X)",
    "unfold_0d_one": "grad(lambda z: z.unfold(0, 1, 1), Z)",
    "unfold_0d_zero": "Z.unfold(-1, 0, 3)",
    "unfold_0d_two": "Z.unfold(0, 2, 1)",
    "unfold_zero_step": "S.unfold(0, 1, 0)",
    "unfold_too_long": "X.unfold(0, 4, 1)",
    "unfold_empty": "E23.unfold(1, 0, 2)",
    "movedim_0d": "grad(lambda z: z.movedim(0, -1), Z)",
    "movedim_0d_lists": "Z.movedim([-1], [0])",
    "movedim_0d_twice": "Z.movedim((0, -1), (0, -1))",
    "movedim_0d_out_of_range": "Z.movedim(1, 0)",
    # too few dims, or sizes that do not fit: torch's RuntimeError (IndexError where it reads a dim first)
    "split_0d": "Z.split(1)",
    "chunk_0d": "Z.chunk(2)",
    "narrow_0d": "Z.narrow(0, 0, 1)",
    "tensor_split_0d": "Z.tensor_split(2)",
    "diff_0d": "L.diff(Z)",
    "tril_1d": "S.tril()",
    "triu_0d": "Z.triu(1)",
    "diagonal_1d": "S.diagonal()",
    "diag_0d": "Z.diag()",
    "diag_embed_0d": "Z.diag_embed()",
    "split_zero_size": "X.split(0, 1)",
    "split_zero_size_empty": "E23.split(0, 1)",
    "split_sizes_short": "X.split([1, 2], -1)",
    "split_sizes_negative": "X.split([4, -1], 0)",
    "chunk_zero": "X.chunk(0)",
    "chunk_negative": "E23.chunk(-1, 1)",
    "chunk_empty_dim": "E23.chunk(3, 1)",
    "tensor_split_zero_sections": "X.tensor_split(0, 1)",
    "narrow_past_the_end": "X.narrow(0, 3, 1)",
    "narrow_negative_start": "grad(lambda x: x.narrow(-1, -2, 2), X)",
    "narrow_empty_at_the_end": "X.narrow(1, 4, 0)",
    "repeat_interleave_counts_too_many": "X.repeat_interleave(L.tensor([1, 2, 3, 4]), 0)",
    "repeat_interleave_counts_too_few_flat": "X.repeat_interleave(L.tensor([1, 0, 2]))",
    "repeat_interleave_negative_counts": "X.repeat_interleave(L.tensor([-1, 1, 1]), 0)",
    "repeat_interleave_negative_count": "X.repeat_interleave(-1)",
    "repeat_interleave_one_count": "grad(lambda x: x.repeat_interleave(L.tensor([2]), -1), X)",
    "repeat_interleave_counts_gradient": "grad(lambda x: x.repeat_interleave(L.tensor([0, 3, 1]), 0), X)",
    "repeat_interleave_0d_counts": "S.repeat_interleave(L.tensor(2))",
    "repeat_interleave_empty": "E23.repeat_interleave(2, 1)",
    "repeat_interleave_counts_only": "L.repeat_interleave(L.tensor([2, 0, 1]))",
    "repeat_interleave_wrong_output_size": "X.repeat_interleave(L.tensor([1, 2, 0]), 0, output_size=4)",
    "repeat_interleave_output_size": "X.repeat_interleave(L.tensor([1, 2, 0]), 0, output_size=3)",
    "repeat_interleave_flat_output_size": "X.repeat_interleave(2, output_size=24)",
    "repeat_interleave_counts_wrong_output_size": "L.repeat_interleave(L.tensor([2, 0, 1]), output_size=2)",
    "repeat_interleave_2d_counts": "X.repeat_interleave(L.tensor([[1, 2, 0]]), 0)",
    "repeat_interleave_float_counts": "X.repeat_interleave(L.tensor([1.0, 2.0, 0.0]), 0)",
    "repeat_interleave_2d_counts_alone": "L.repeat_interleave(L.tensor([[1, 2]]))",
    "tensor_split_float_points": "X.tensor_split(L.tensor([1.0]), 1)",
    "tensor_split_2d_points": "X.tensor_split(L.tensor([[1]]), 1)",
    "diagonal_same_dims": "X.diagonal(0, 1, 1)",
    "diag_embed_same_dims": "X.diag_embed(0, 1, -2)",
    "movedim_lengths_differ": "X.movedim((0, 1), (0,))",
    "unflatten_negative_sizes": "X.unflatten(1, (-2, -2))",
    "tril_offsets_gradient": "grad(lambda x: x.tril(-5) + x.triu(10) + x.tril(1), X)",
    "diagonal_far_offset": "X.diagonal(7)",
    "diagonal_negative_dims": "grad(lambda x: x.diagonal(-1, -1, 0), X)",
    "diag_embed_offset_dims": "grad(lambda s: s.diag_embed(-2, 0, -1), S)",
    "rot90_empty": "E23.rot90(1, (1, 2))",
    "roll_empty": "E23.roll(3, 2)",
    "roll_0d": "Z.roll(5)",
    "flip_0d": "Z.flip(0)",
    # unknown reductions and sources of the wrong length are torch's RuntimeError (IndexError for
    # index_copy's count of indices)
    "scatter_reduce_unknown": "X.scatter_reduce(1, L.tensor([[0, 0]]), X[:1, :2], 'add')",
    "scatter_value_reduce_unknown": "X.scatter(0, L.tensor([[0]]), 1.0, reduce='sum')",
    "index_reduce_sum_refused": "X.index_reduce(1, L.tensor([0, 0]), X[:, :2], 'sum')",
    "index_reduce_max_refused": "X.index_reduce(1, L.tensor([0, 0]), X[:, :2], 'max')",
    "index_add_source_too_short": "X.index_add(0, L.tensor([0, 1]), X[:1])",
    "index_copy_source_too_short": "X.index_copy(0, L.tensor([0, 1]), X[:1])",
    "index_reduce_source_too_short": "X.index_reduce(0, L.tensor([0, 1]), X[:1], 'prod')",
    "index_add_source_other_dim": "X.index_add(0, L.tensor([0]), X[:1, :2])",
    "index_copy_source_other_dim": "X.index_copy(0, L.tensor([0]), X[:1, :2])",
    # index_add's alpha is converted to the tensor's dtype first (2.5 is 2 for integers, -1 wraps in uint8)
    "index_add_integer_float_alpha": "I.index_add(1, L.tensor([0, 0]), I[:, :2] + 4, alpha=2.5)",
    "index_add_integer_negative_float_alpha": "I.index_add(0, L.tensor([1]), I[:1], alpha=-2.9)",
    "index_add_uint8_negative_alpha":
        "L.zeros(2, dtype=L.uint8).index_add(0, L.tensor([0]), L.tensor([3], dtype=L.uint8), alpha=-1)",
    "index_add_bool_half_alpha": "(B[0] & False).index_add(0, L.tensor([0, 1]), B[0, :2] | True, alpha=0.5)",
    "index_add_bool_zero_alpha": "(B[0] & False).index_add(0, L.tensor([0, 1]), B[0, :2] | True, alpha=0)",
    "index_add_integer_alpha_overflow": "I.index_add(1, L.tensor([0]), I[:, :1], alpha=1e20)",
    "index_add_float_alpha_gradient": "grad(lambda x, s: x.index_add(0, L.tensor([2, 2]), s, alpha=-1.5), X, X[:2])",
    # a mean of small integers sums in their dtype, wrapping, before it divides; a mean of bools has no kernel
    "scatter_reduce_uint8_mean_wraps":
        "L.tensor([3, 250], dtype=L.uint8).scatter_reduce(0, L.tensor([0, 0]), L.tensor([250, 250]).byte(), 'mean')",
    "scatter_reduce_int8_mean_wraps_without_self":
        "I.char()[0].scatter_reduce(0, L.tensor([0, 0]), (I[0, :2] * 0 + 100).char(), 'mean', include_self=False)",
    "index_reduce_uint8_mean_wraps": "(I * 100).byte().index_reduce(0, L.tensor([0, 0]), (I * 90).byte(), 'mean')",
    "index_reduce_int16_mean": "(I - 9).short().index_reduce(1, L.tensor([0, 0]), (I - 7).short()[:, :2], 'mean')",
    "scatter_reduce_bool_mean": "B.scatter_reduce(1, L.tensor([[0, 0]]), B[:1, :2], 'mean')",
    "index_reduce_bool_mean": "B.index_reduce(0, L.tensor([0]), B[:1], 'mean', include_self=False)",
    "scatter_reduce_bool_sum": "B.scatter_reduce(1, L.tensor([[0, 0]]), B[:1, :2], 'sum', include_self=False)",
    "scatter_reduce_bool_prod": "B.scatter_reduce(1, L.tensor([[1, 1]]), B[:1, :2], 'prod')",
    # an empty index writes nothing, and the empty source's gradient is an empty tensor, not None
    "scatter_reduce_empty_index_gradient":
        "grad(lambda x, s: x.scatter_reduce(0, L.zeros(0, 4, dtype=L.int64), s, 'amax'), X, X[:0])",
    "scatter_reduce_empty_index_mean_gradient":
        "grad(lambda x, s: x.scatter_reduce(0, L.zeros(0, 4, dtype=L.int64), s, 'mean', include_self=False), X, X[:0])",
    "index_reduce_empty_index_gradient":
        "grad(lambda x, s: x.index_reduce(0, L.zeros(0, dtype=L.int64), s, 'prod'), X, X[:0])",
    "scatter_reduce_empty_index_keeps_negative_zero":
        "(lambda s: X.scatter_reduce(0, L.zeros(0, 4, dtype=L.int64), s, 'sum'))(X[:0].clone().requires_grad_())",
    "scatter_multiply_empty_index": "X.scatter(0, L.zeros(0, 4, dtype=L.int64), X[:0], reduce='multiply')",
    "index_add_empty_index_gradient": "grad(lambda x, s: x.index_add(0, L.zeros(0, dtype=L.int64), s), X, X[:0])",
    "scatter_empty_index_gradient": "grad(lambda x, s: x.scatter(0, L.zeros(0, 4, dtype=L.int64), s), X, X[:0])",
    # a step function's gradient is zeros (PyTorch's zeros_like(grad)), not the gradient times 0: an
    # infinite or NaN gradient gives 0 (not NaN), a negative one +0.0 (not -0.0); x ** 0 likewise
    "floor_gradient_of_an_infinite_gradient": "grad(lambda x: x.floor() * inf, X)",
    "sign_gradient_of_a_nan_gradient": "grad(lambda x: x.sign() * nan, X)",
    "ceil_and_trunc_gradient_of_minus_inf": "grad(lambda x: (x.ceil() + x.trunc()) * -inf, X)",
    "round_decimals_gradient_of_an_infinite_gradient": "grad(lambda x: x.round(decimals=1) * inf, X)",
    "trunc_gradient_is_positive_zero": "grad(lambda x: x.trunc(), X)",
    "pow_zero_gradient_of_an_infinite_gradient": "grad(lambda x: x.pow(0) * inf, X)",
    "pow_zero_float_exponent_gradient_of_nan": "grad(lambda x: x.pow(0.0) * nan, X)",
    "pow_tensor_exponent_zero_gradient_of_inf":
        "grad(lambda x: x.pow(L.tensor([0.0, 2.0, 0.0, 1.0], dtype=x.dtype)) * inf, X)",
    # ldexp with an integer exponent is rounded once, as C's (PyTorch's kernel): no 0 * inf, no overflow
    # of 2 ** n where x * 2 ** n is finite; a float exponent stays x * 2 ** n, as PyTorch's
    "ldexp_integer_exponent_past_the_range":
        "L.ldexp(L.tensor([0.0, 1e-310, 1.0, -3.0, 1e308, -0.0], dtype=L.float64), "
        "L.tensor([5000, 2000, -1074, 3, -1100, 7]))",
    "ldexp_float32_integer_exponent":
        "L.ldexp(L.tensor([0.0, 1e-40, 1.0, 3e38, -1.5]), L.tensor([500, 200, -149, -300, 1], dtype=L.int32))",
    "ldexp_float16_integer_exponent": "L.ldexp(L.tensor([1.0, 0.0, 2.0], dtype=L.float16), L.tensor([3, 100, -20]))",
    "ldexp_uint8_exponent": "X.ldexp(L.tensor([0, 200, 1, 3], dtype=L.uint8))",
    "ldexp_float_exponent_is_a_product":
        "L.ldexp(L.tensor([0.0, 1e-310], dtype=L.float64), L.tensor([5000.0, 2000.0], dtype=L.float64))",
    "ldexp_gradient": "grad(lambda x: x.ldexp(L.tensor([3, 0, 5, 62])), X)",
    "ldexp_bool_exponent": "X.ldexp(L.tensor([True, False, True, True]))",
    # a value clamped below at eps for the forward only stays inf at inf (not inf - inf): the loss inf, the
    # gradients 0; a norm that overflows divides to 0 (cosine_similarity)
    "gaussian_nll_loss_infinite_variance":
        "grad(lambda x, v: L.nn.functional.gaussian_nll_loss(x, L.zeros(6, dtype=L.float64), v, reduction='none'), "
        "L.tensor([0.0, 1.0, -1.0, 0.5, 2.0, 1e308], dtype=L.float64), "
        "L.tensor([0.0, 1e-7, 1e-5, 1.0, inf, 1e-310], dtype=L.float64))",
    "gaussian_nll_loss_infinite_variance_value":
        "L.nn.functional.gaussian_nll_loss(X[0], X[1], L.tensor([inf, 1.0, 0.0, inf], dtype=L.float64), "
        "reduction='none')",
    "gaussian_nll_loss_infinite_variance_mean":
        "grad(lambda x, v: L.nn.functional.gaussian_nll_loss(x, x * 0, v, full=True), X[0], "
        "L.tensor([inf, 1.0, 2.0, 0.0], dtype=L.float64))",
    "cosine_similarity_of_overflowing_norms":
        "grad(lambda a: L.nn.functional.cosine_similarity(a, a.flip(0), dim=-1), "
        "L.tensor([[1e308, 1e308, 1.0], [1e-310, 1e-320, 0.0], [3e-200, 4e-200, 0.0]], dtype=L.float64))",
    "cosine_similarity_float32_past_the_range":
        "L.nn.functional.cosine_similarity(L.tensor([[3e38, 3e38]]), L.tensor([[3e38, 3e38]]))",
    # refusals in PyTorch's error types (RuntimeError where the engine raised ValueError or TypeError)
    "diff_negative_order": "X.diff(-1)",
    "quantile_q_past_one": "S.quantile(1.5)",
    "quantile_q_nan": "S.quantile(nan)",
    "nanquantile_q_tensor_with_nan": "S.nanquantile(L.tensor([0.5, nan], dtype=S.dtype))",
    "linalg_norm_ord_of_a_3d_tensor": "L.linalg.norm(E23, ord=inf)",
    "linalg_norm_ord_of_a_0d_tensor": "L.linalg.norm(Z, 2)",
    "frexp_of_integers": "I.frexp()",
    "frexp_of_bools": "B.frexp()",
    "renorm_1d": "S.renorm(2, 0, 1.0)",
    "renorm_0d": "Z.renorm(1, -1, 0.5)",
    "renorm_p_zero": "X.renorm(0, 0, 1.0)",
    "renorm_negative_maxnorm": "X.renorm(2, 0, -1.0)",
    "renorm_gradient": "grad(lambda x: x.renorm(1, 1, 5.0), X)",
    "floor_divide_bool_by_int_zero": "B.floor_divide(0)",
    "floor_divide_bool_by_bool": "B.floor_divide(B)",
    "floor_divide_bool_by_true": "B.floor_divide(True)",
    "floor_divide_bool_by_int": "B.floor_divide(2)",
    # hardtanh and relu6 pass the gradient at NaN (PyTorch's hardtanh_backward: 0 only at and beyond a bound);
    # clamp's is 0 there
    "hardtanh_gradient_at_nan":
        "grad(lambda x: L.nn.functional.hardtanh(x, -2.0, 2.0), L.tensor([nan, -2.0, 2.0, 1.0, -5.0]))",
    "relu6_gradient_at_nan":
        "grad(lambda x: L.nn.functional.relu6(x), L.tensor([nan, 0.0, 6.0, 3.0, -1.0], dtype=L.float64))",
    "clamp_gradient_at_nan": "grad(lambda x: x.clamp(-1.0, 1.0), L.tensor([nan, -1.0, 1.0, 0.0], dtype=L.float64))",
    # renorm with p = inf scales by the largest |x| (sum(|x| ** inf) ** 0 was 1: nothing was scaled)
    "renorm_inf": "X.renorm(inf, 0, 5.0)",
    "renorm_inf_gradient": "grad(lambda x: x.renorm(inf, 1, 2.0), X)",
    # binary_cross_entropy's target must lie in [0, 1], as its input (PyTorch's kernel checks both)
    "binary_cross_entropy_target_past_one":
        "L.nn.functional.binary_cross_entropy(L.tensor([0.5, 0.5]), L.tensor([1.5, 0.5]))",
    "binary_cross_entropy_target_nan": "L.nn.functional.binary_cross_entropy(L.tensor([0.5]), L.tensor([nan]))",
    "binary_cross_entropy_target_negative":
        "L.nn.functional.binary_cross_entropy(L.tensor([0.5]), L.tensor([-0.5]), reduction='none')",
    # a matrix holding a NaN: NaN answers, as PyTorch's (OpenBLAS's LU, under NumPy, stops at a NaN pivot:
    # det 0, slogdet -inf, inv and solve "Singular matrix")
    "det_of_a_nan_matrix": "L.linalg.det(L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64))",
    "det_of_a_batch_with_one_nan_matrix":
        "L.linalg.det(L.stack([L.tensor([[nan, 1.0], [1.0, 1.0]]), L.tensor([[2.0, 1.0], [1.0, 1.0]])]))",
    "slogdet_of_a_nan_matrix": "L.linalg.slogdet(L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64))",
    "logdet_of_a_nan_matrix": "L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64).logdet()",
    "inv_of_a_nan_matrix": "L.linalg.inv(L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64))",
    "solve_with_a_nan_matrix":
        "L.linalg.solve(L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64), L.ones(2, dtype=L.float64))",
    "matrix_power_minus_one_of_a_nan_matrix":
        "L.linalg.matrix_power(L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64), -1)",
    "det_gradient_of_a_nan_matrix":
        "grad(lambda a: L.linalg.det(a), L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64))",
    "inv_gradient_of_a_nan_matrix":
        "grad(lambda a: L.linalg.inv(a), L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64))",
    "solve_gradient_of_a_nan_matrix":
        "grad(lambda a, b: L.linalg.solve(a, b), L.tensor([[nan, 1.0], [1.0, 1.0]], dtype=L.float64), "
        "L.ones(2, 1, dtype=L.float64))",
    # two bools in an arithmetic kernel PyTorch has no bool instance of: its NotImplementedError (NumPy's
    # answers were int8 values or a division by zero); a bool to a Python bool stays bool
    "pow_of_two_bool_tensors": "B ** B",
    "pow_true_to_a_bool_tensor": "L.pow(True, B)",
    "pow_bool_by_true": "B.pow(True)",
    "pow_bool_by_false": "B.pow(False)",
    "pow_bool_by_two": "B.pow(2)",
    "remainder_of_two_bools": "B.remainder(B)",
    "remainder_bool_by_true": "B.remainder(True)",
    "mod_operator_of_bools": "B % B[:1]",
    "fmod_of_two_bools": "B.fmod(B)",
    "remainder_bool_by_int": "B.remainder(2)",
    "div_floor_of_two_bools": "B.div(B, rounding_mode='floor')",
    "div_trunc_bool_by_true": "B.div(True, rounding_mode='trunc')",
    "div_trunc_bool_by_int": "B.div(2, rounding_mode='trunc')",
    "div_unknown_rounding_mode": "X.div(2, rounding_mode='bad')",
    "trapezoid_of_bools": "L.trapezoid(B)",
    "cumulative_trapezoid_of_bools": "L.cumulative_trapezoid(B)",
    # float16 into a LAPACK-backed linalg function: PyTorch's NotImplementedError ("lu_cpu" not implemented
    # for 'Half') or RuntimeError ("Low precision dtypes not supported"); NumPy raised its TypeError, and the
    # engine's own LU and LDL answered in float16; a matrix power (products only) takes float16
    "det_of_float16": "L.linalg.det(X[:, :3].half())",
    "slogdet_of_float16": "L.linalg.slogdet(X[:, :3].half())",
    "inv_of_float16": "L.linalg.inv(X[:, :3].half())",
    "solve_of_float16": "L.linalg.solve(X[:, :3].half(), X[:, :1].half())",
    "lu_factor_of_float16": "L.linalg.lu_factor(X[:, :3].half())",
    "ldl_factor_of_float16": "L.linalg.ldl_factor(X[:, :3].half())",
    "householder_product_of_float16": "L.linalg.householder_product(X.T.half(), X[0, :2].half())",
    "cholesky_of_float16": "L.linalg.cholesky(L.eye(2, dtype=L.float16))",
    "eigvalsh_of_float16": "L.linalg.eigvalsh(L.eye(2, dtype=L.float16))",
    "svdvals_of_float16": "L.linalg.svdvals(X.half())",
    "matrix_rank_of_float16": "L.linalg.matrix_rank(X.half())",
    "lstsq_of_float16": "L.linalg.lstsq(X[:, :3].half(), X[:, :1].half())",
    "matrix_power_of_float16": "L.linalg.matrix_power(X[:, :3].half(), 2)",
    # x.trace() is PyTorch's, of a matrix only (mg.trace keeps NumPy's ranks and axes); integer kernels of
    # floats or bools, a tensorinv of mismatched halves: PyTorch's error types
    "trace_method_of_3d": "E23.trace()",
    "trace_method_of_1d": "S.trace()",
    "trace_method_of_a_matrix": "grad(lambda x: x.trace(), X)",
    "gcd_of_floats": "X[:2].gcd(I[:, :1])",
    "gcd_of_bools": "B.gcd(B)",
    "left_shift_of_bools": "B << B",
    "tensorinv_mismatched": "L.linalg.tensorinv(X, 1)",
    # logsigmoid is +0.0 where the softplus underflows to 0 (PyTorch's min(x, 0) - log1p(exp(-|x|)))
    "logsigmoid_of_large_values": "L.nn.functional.logsigmoid(L.tensor([800.0, 40.0, -0.0, 1e308], dtype=L.float64))",
    # embedding's max_norm measures each row by its vector norm (inf: the largest |x|, 0: the count of
    # non-zeros): sum(|x| ** p) ** (1 / p) was 1 for p = inf, a ZeroDivisionError for p = 0; the scale in double
    "embedding_max_norm_inf": "L.nn.functional.embedding(L.tensor([0, 1, 2, 0]), X[:, :2].float(), max_norm=1.0, "
                              "norm_type=inf)",
    "embedding_max_norm_zero": "L.nn.functional.embedding(L.tensor([0, 1, 2, 0]), X[:, :2].float(), max_norm=1.0, "
                               "norm_type=0.0)",
    "embedding_max_norm_minus_inf": "L.nn.functional.embedding(L.tensor([2, 1]), X.float(), max_norm=0.5, "
                                    "norm_type=-inf)",
    "embedding_max_norm_three": "L.nn.functional.embedding(L.tensor([1]), X.float(), max_norm=2.0, norm_type=3.0)",
    # batch_norm's eps: positive in training, non-negative otherwise (PyTorch's ValueError); loss and pad
    # parameters PyTorch's kernels refuse are its RuntimeError
    "batch_norm_zero_eps_in_training":
        "L.nn.functional.batch_norm(L.tensor([[1.0], [1.0]]), None, None, training=True, eps=0.0)",
    "batch_norm_negative_eps_in_evaluation":
        "L.nn.functional.batch_norm(L.tensor([[1.0], [2.0]]), L.tensor([0.0]), L.tensor([1.0]), eps=-1e-5)",
    "batch_norm_zero_eps_in_evaluation":
        "L.nn.functional.batch_norm(L.tensor([[1.0], [2.0]]), L.tensor([0.0]), L.tensor([4.0]), eps=0.0)",
    "smooth_l1_loss_negative_beta": "L.nn.functional.smooth_l1_loss(S, S * 0, beta=-1.0)",
    "huber_loss_zero_delta": "L.nn.functional.huber_loss(S, S * 0, delta=0.0)",
    "pad_replicate_empty_dim": "L.nn.functional.pad(L.zeros(1, 0), (1, 1), mode='replicate')",
    # multi_margin_loss skips the target's own term and the terms that do not count, as PyTorch's kernel: an
    # infinite weight or x[y] made them inf * 0 or inf - inf, NaN
    "multi_margin_loss_infinite_weight":
        "grad(lambda x: L.nn.functional.multi_margin_loss(x, L.tensor([0, 0, 2]), weight=L.tensor([inf, 1.0, 2.0], "
        "dtype=x.dtype)), L.tensor([[1.0, 2.0, -1.0], [inf, 0.5, 0.2], [0.3, 0.1, 0.9]], dtype=L.float64))",
    "multi_margin_loss_infinite_target_score":
        "grad(lambda x: L.nn.functional.multi_margin_loss(x, L.tensor([0, 2]), p=2, reduction='none'), "
        "L.tensor([[inf, 0.5, 0.2], [0.3, 0.1, -inf]], dtype=L.float64))",
    "multi_margin_loss_value_with_infinite_weight":
        "L.nn.functional.multi_margin_loss(X[:, :3], L.tensor([0, 1, 2]), "
        "weight=L.tensor([inf, 1.0, 2.0], dtype=L.float64))",
    # float16 average pools sum their windows in float32, as PyTorch's half kernels (two 65504s overflowed)
    "avg_pool1d_float16_window_sum":
        "L.nn.functional.avg_pool1d(L.tensor([[[65504.0, 65504.0, 1.0, 3.0]]]).half(), 2)",
    "avg_pool2d_float16_window_sum":
        "L.nn.functional.avg_pool2d(L.tensor([[[[65504.0, 65504.0], [1.0, 1.0]]]]).half(), 2)",
    "adaptive_avg_pool2d_float16":
        "L.nn.functional.adaptive_avg_pool2d(L.tensor([[[[65504.0, 65504.0], [1.0, 1.0]]]]).half(), 1)",
    "avg_pool2d_float16_gradient":
        "grad(lambda x: L.nn.functional.avg_pool2d(x.half(), 2).double(), L.tensor([[[[300.0, 300.0], [1.0, 2.0]]]], "
        "dtype=L.float64))",
    # rows of no entries are 0 apart in every norm
    "cdist_no_features_inf": "L.cdist(E23[0].T, E23[1].T[:2], p=inf)",
    "cdist_no_features_inf_gradient": "grad(lambda a: L.cdist(a, a[:2], p=inf), E23[0].T)",
    "cdist_no_features_zero": "L.cdist(E23[0].T, E23[1].T[:2], p=0)",
}


def weights(shape) -> np.ndarray:
    """The fixed weights a gradient case sums its output with."""
    return np.random.RandomState(0).standard_normal(shape) if shape else np.array(1.5)


def run(lib, expression: str):
    """Evaluate ``expression`` with ``L`` as ``lib`` and the INPUTS as float64/int/bool tensors of it."""

    def grad(f, *inputs):
        leaves = [t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
        out = f(*leaves)
        out = out[0] if isinstance(out, tuple) else out
        total = (out * lib.tensor(weights(tuple(out.shape)), dtype=out.dtype)).sum()
        wanted = [t for t in leaves if t.requires_grad]
        return tuple(lib.autograd.grad(total, wanted, allow_unused=True))

    scope = {"L": lib, "grad": grad, "np": np, "nan": float("nan"), "inf": float("inf")}
    scope.update({name: lib.tensor(value) for name, value in INPUTS.items()})
    return eval(expression, scope)  # noqa: S307 -- the table's own expressions
