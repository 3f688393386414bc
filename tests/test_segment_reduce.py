"""``mg.segment_reduce``: PyTorch's reduction over consecutive segments of an axis, which PyTorch
Geometric's pure-PyTorch ``utils.segment`` (``torch._segment_reduce(src, reduce, offsets=ptr)``)
and so its ``softmax(src, ptr=...)`` and CSR aggregations call. The expected numbers are torch
2.13's, pasted."""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = [1.0, 3.0, 3.0, 2.0, 0.0, -1.0]
LENGTHS = [3, 0, 2, 1]
UPSTREAM = [1.0, 10.0, 100.0, 1000.0]
NAN, INF = math.nan, math.inf

# (reduce, initial) -> torch.segment_reduce's result and the gradient of (result * UPSTREAM).sum()
TORCH = {
    ("sum", None): ([7.0, 0.0, 2.0, -1.0], [1.0, 1.0, 1.0, 100.0, 100.0, 1000.0]),
    ("sum", 5.0): ([12.0, 5.0, 7.0, 4.0], [1.0, 1.0, 1.0, 100.0, 100.0, 1000.0]),
    ("mean", None): ([7.0 / 3, NAN, 1.0, -1.0], [1 / 3, 1 / 3, 1 / 3, 50.0, 50.0, 1000.0]),
    ("mean", 0.0): ([7.0 / 3, 0.0, 1.0, -1.0], [1 / 3, 1 / 3, 1 / 3, 50.0, 50.0, 1000.0]),
    ("mean", 5.0): ([4.0, 5.0, 3.5, 4.0], [1 / 3, 1 / 3, 1 / 3, 50.0, 50.0, 1000.0]),
    ("max", None): ([3.0, -INF, 2.0, -1.0], [0.0, 0.5, 0.5, 100.0, 0.0, 1000.0]),
    ("max", 0.0): ([3.0, 0.0, 2.0, 0.0], [0.0, 0.5, 0.5, 100.0, 0.0, 0.0]),
    ("max", 5.0): ([5.0, 5.0, 5.0, 5.0], [0.0] * 6),
    ("min", None): ([1.0, INF, 0.0, -1.0], [1.0, 0.0, 0.0, 0.0, 100.0, 1000.0]),
    ("min", 0.0): ([0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0, 100.0, 1000.0]),
    ("min", 5.0): ([1.0, 5.0, 0.0, -1.0], [1.0, 0.0, 0.0, 0.0, 100.0, 1000.0]),
    ("prod", None): ([9.0, 1.0, 0.0, -1.0], [9.0, 3.0, 3.0, 0.0, 200.0, 1000.0]),
    ("prod", 5.0): ([45.0, 5.0, 0.0, -5.0], [45.0, 15.0, 15.0, 0.0, 1000.0, 5000.0]),
}


@pytest.mark.parametrize("case", sorted(TORCH, key=str))
def test_values_and_gradients_are_torchs(case):
    reduce, initial = case
    want, want_grad = TORCH[case]
    x = mg.tensor(DATA, dtype=mg.float64, requires_grad=True)
    out = mg.segment_reduce(x, reduce, lengths=mg.tensor(LENGTHS), initial=initial)
    (out * mg.tensor(UPSTREAM, dtype=mg.float64)).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-12)


def test_amax_amin_spellings_and_offsets_that_skip_a_prefix():
    x = mg.tensor(DATA, dtype=mg.float64)
    # torch: offsets [1, 2, 2, 6] -> segments [1, 2), [2, 2), [2, 6); element 0 is read by none
    assert mg.segment_reduce(x, "amax", offsets=mg.tensor([1, 2, 2, 6])).tolist() == [3.0, -INF, 3.0]
    assert mg.segment_reduce(x, "amin", offsets=mg.tensor([0, 3, 3, 5, 6])).tolist() == [1.0, INF, 0.0, -1.0]


def test_batched_lengths_along_a_later_axis():
    x = mg.arange(12.0).view(2, 6)
    want = [[1.0, 14.0], [21.0, 30.0]]
    # torch.segment_reduce(x, 'sum', lengths=tensor([[2, 4], [3, 3]]), axis=1)
    assert mg.segment_reduce(x, "sum", lengths=mg.tensor([[2, 4], [3, 3]]), axis=1).tolist() == want
    assert mg.segment_reduce(x, "sum", offsets=mg.tensor([[0, 2, 6], [0, 3, 6]]), axis=-1).tolist() == want
    assert mg.segment_reduce(x, "sum", lengths=mg.tensor([[2, 4], [3, 3]]), dim=1).tolist() == want
    with pytest.raises(TypeError, match="either axis= or dim="):
        mg.segment_reduce(x, "sum", lengths=mg.tensor([[2, 4], [3, 3]]), axis=1, dim=1)
    # trailing dims reduced element by element: torch's [[1, 7], [5, 11]]
    lengths = mg.tensor([2, 4], dtype=mg.int32)
    assert mg.segment_reduce(x.t(), "max", lengths=lengths).tolist() == [[1.0, 7.0], [5.0, 11.0]]


def test_pyg_softmax_over_a_csr_pointer():
    # PyG's softmax(src, ptr=ptr): max and sum per segment, repeated back with repeat_interleave
    src = mg.tensor([[0.5, 1.0], [2.0, -1.0], [0.0, 0.0], [1.0, 3.0]], dtype=mg.float64, requires_grad=True)
    ptr = mg.tensor([0, 2, 2, 4])
    count = ptr[1:] - ptr[:-1]
    src_max = mg.segment_reduce(src.detach(), "max", offsets=ptr).repeat_interleave(count, dim=0)
    out = (src - src_max).exp()
    out = out / (mg.segment_reduce(out, "sum", offsets=ptr) + 1e-16).repeat_interleave(count, dim=0)
    (out * mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], dtype=mg.float64)).sum().backward()
    # torch 2.13, the same lines
    np.testing.assert_allclose(out.detach().numpy(), [[0.18242552380635632, 0.8807970779778823],
                                                       [0.8175744761936437, 0.11920292202211755],
                                                       [0.2689414213699951, 0.04742587317756679],
                                                       [0.7310585786300049, 0.9525741268224334]], rtol=1e-12)
    np.testing.assert_allclose(src.grad.numpy(), [[-0.29829290414066556, -0.2099871708070129],
                                                  [0.29829290414066634, 0.20998717080701304],
                                                  [-0.39322386648296376, -0.09035331946182434],
                                                  [0.3932238664829635, 0.09035331946182357]], rtol=1e-10)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(lengths=[2, 3]), RuntimeError, "to sum to data.size(lengths.dim()-1) when !unsafe"),
    (dict(lengths=[2, -1, 5]), RuntimeError, "lengths contains negative value!"),
    (dict(indices=[0, 0, 1, 1, 1, 1]), RuntimeError, "indices based reduction is not supported yet"),
    ({}, RuntimeError, "Either lengths or offsets must be defined"),
    (dict(lengths=[2, 4], axis=1), RuntimeError, "Expected axis to be the last dimension of lengths but got 1"),
])
def test_refusals_are_torchs(kwargs, error, words):
    kwargs = {k: mg.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        mg.segment_reduce(mg.arange(12.0).view(6, 2), "sum", **kwargs)


def test_refused_reduction_and_dtypes():
    x = mg.arange(12.0).view(6, 2)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got foo"):
        mg.segment_reduce(x, "foo", lengths=mg.tensor([2, 4]))
    with pytest.raises(NotImplementedError):  # torch: "_segment_reduce_cpu" not implemented for 'Long'
        mg.segment_reduce(x.long(), "sum", lengths=mg.tensor([2, 4]))
    with pytest.raises(NotImplementedError):  # torch: not implemented for 'Float' lengths
        mg.segment_reduce(x, "sum", lengths=mg.tensor([2.0, 4.0]))


def test_a_mean_with_initial_divides_the_sum_with_initial_once():
    # torch 2.13's kernel rounds (initial + sum) / length: segment_reduce(tensor([1., 5., 5.]), "mean",
    # lengths=tensor([3]), initial=-1.0) is 3.3333332538604736 in float32; sum / 3 + initial / 3 was
    # 3.3333334922790527, an ulp off
    out = mg.segment_reduce(mg.tensor([1.0, 5.0, 5.0, 2.0, 4.0, 4.0]), "mean", lengths=mg.tensor([3, 3]), initial=-1.0)
    assert out.tolist() == [3.3333332538604736, 3.0]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_a_number_initial_is_read_in_the_data_dtype_not_float32(reduce):
    # torch 2.13: segment_reduce(tensor([1., 5., 5., 2., 7.], dtype=float64), reduce, lengths=tensor([3, 0, 2]),
    # initial=0.3); the empty segment is 0.3 exactly, where the engine answered 0.30000001192092896
    data = np.array([1.0, 5.0, 5.0, 2.0, 7.0])
    lengths = np.array([3, 0, 2])
    expected = {"sum": [11.3, 0.3, 9.3], "mean": [(0.3 + 11.0) / 3, 0.3, (0.3 + 9.0) / 2], "max": [5.0, 0.3, 7.0],
                "min": [0.3, 0.3, 0.3], "prod": [25 * 0.3, 0.3, 14 * 0.3]}[reduce]
    out = mg.segment_reduce(mg.tensor(data), reduce, lengths=mg.tensor(lengths), initial=0.3)
    assert out.dtype == mg.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-15, atol=0)
