"""``x.histogram(bins)`` (PyTorch's spelling) counts as PyTorch's kernel does: the edges are PyTorch's
``linspace`` in the input's dtype, and a value counts in the bin of the last edge at or below it (the
last bin closed). NumPy's ``histogram`` compares with float64 edges of its own linspace, which put
values on or near an edge one bin off (float64 0.3 of ``histogram(10, range=(0, 1))``: PyTorch's edge
there is 0.30000000000000004 and 0.3 is below it). Numbers from torch 2.13; ``mg.histogram`` keeps
NumPy's meaning unless PyTorch's ``weight=`` is given."""
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

V = [0.3, 0.6, 0.7, -0.1, 1.0, 0.0, 0.2, 0.9, 0.45]
W = [0.5, 0.25, 1.5, 2.0, 0.125, 1.0, 0.75, 3.0, 0.5]
TORCH = {  # counts over (0, 1) in 10 bins, and the edges
    "float32": ([1, 0, 1, 1, 1, 0, 1, 1, 0, 2],
                [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5,
                 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.8999999761581421, 1.0]),
    "float64": ([1, 0, 2, 0, 1, 0, 1, 1, 0, 2],
                [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
}
DATA_RANGE_EDGES = {
    "float32": [-1.2999999523162842, -0.699999988079071, -0.10000002384185791, 0.4999999403953552,
                1.1000001430511475, 1.7000001668930054, 2.3000001907348633, 2.9000000953674316],
    "float64": [-1.3, -0.7000000000000001, -0.10000000000000009, 0.4999999999999999, 1.1, 1.7, 2.3, 2.9],
}
WEIGHTED_DENSITY = [0.9180327868852459, 0.5245901639344263, 0.9180327868852459, 1.639344262295082]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_on_edges_count_where_pytorch_counts_them(dtype):
    hist, edges = mg.tensor(V, dtype=dtype).histogram(10, range=(0.0, 1.0))
    assert hist.dtype == dtype and edges.dtype == dtype
    assert hist.tolist() == TORCH[dtype][0] and edges.tolist() == TORCH[dtype][1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_data_range_edges_are_pytorchs_linspace(dtype):
    x = mg.tensor(np.linspace(-1.3, 2.9, 7).tolist() + [0.1, 2.2], dtype=dtype)
    hist, edges = x.histogram(7)
    assert hist.tolist() == [1, 1, 2, 1, 1, 2, 1] and edges.tolist() == DATA_RANGE_EDGES[dtype]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_weights_and_density(dtype):
    x, w = mg.tensor(V, dtype=dtype), mg.tensor(W, dtype=dtype)
    hist, _ = x.histogram(4, range=(0.0, 1.0), weight=w, density=True)
    np.testing.assert_allclose(hist.numpy(), WEIGHTED_DENSITY, rtol=2e-7 if dtype == "float32" else 1e-15)
    assert mg.histogram(x, 4, range=(0.0, 1.0), weight=w, density=True)[0].tolist() == hist.tolist()


def test_one_value_empty_input_and_refusals_as_pytorchs():
    hist, edges = mg.tensor([5.0, 5.0]).histogram(2)
    assert hist.tolist() == [0.0, 2.0] and edges.tolist() == [4.5, 5.0, 5.5]
    hist, edges = mg.tensor([]).histogram(2)
    assert hist.tolist() == [0.0, 0.0] and edges.tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match=r"range \[nan, nan\] is not finite"):
        mg.tensor([1.0, float("nan")]).histogram(3)
    with pytest.raises(RuntimeError, match=r"range \[1, inf\] is not finite"):
        mg.tensor([1.0, float("inf")]).histogram(3)
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        mg.tensor([1.0, 2.0]).histogram(3, range=(2.0, 1.0))
    assert mg.tensor([1.0, float("nan"), 3.0]).histogram(2, range=(0.0, 4.0))[0].tolist() == [1.0, 1.0]


def test_the_numpy_spelling_keeps_numpys_edges():
    x = mg.tensor(V, dtype="float64")
    hist, edges = mg.histogram(x, 10, range=(0.0, 1.0))
    ref_hist, ref_edges = np.histogram(np.asarray(V), 10, range=(0.0, 1.0))
    assert hist.tolist() == ref_hist.tolist() and edges.tolist() == ref_edges.tolist()


def test_without_bins_pytorchs_weight_keyword_takes_pytorchs_100_bins():
    # torch.histogram(x, weight=w) is 100 bins; the call read PyTorch's keyword and NumPy's default of 10
    x, w = mg.tensor(V), mg.tensor(W)
    hist, edges = mg.histogram(x, weight=w)
    assert hist.shape == (100,) and edges.shape == (101,)
    assert hist.tolist() == x.histogram(weight=w)[0].tolist()
    assert mg.histogram(x, weights=w)[0].shape == (10,)  # NumPy's keyword: NumPy's default


def test_no_bins_with_pytorchs_weight_keyword_is_refused_in_words():
    # (mg.histogram(x, 0, weight=w) took PyTorch's path, which has no check of its own: an IndexError)
    x = mg.tensor(V)
    for call in (lambda: mg.histogram(x, 0, weight=mg.ones(len(V))), lambda: x.histogram(0, weight=mg.ones(len(V)))):
        with pytest.raises(RuntimeError, match="bins"):
            call()


def test_a_weight_of_another_length_is_refused_in_words():
    with pytest.raises(RuntimeError, match="weight"):  # torch 2.13: RuntimeError (was NumPy's IndexError)
        mg.histogram(mg.tensor(V), 3, weight=mg.ones(len(V) + 1))


@pytest.mark.parametrize("weighted", [False, True])
def test_a_density_of_no_value_in_range_is_nan_silently(weighted):
    # torch 2.13: tensor([nan, nan, nan]) without a warning; the division by a total of 0 warned here
    kw = {"weight": mg.ones(len(V))} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hist, _ = mg.tensor(V).histogram(3, range=(10.0, 11.0), density=True, **kw)
    assert np.isnan(hist.numpy()).all()


def test_on_the_strict_device_the_counts_are_the_cpus_and_stay_on_the_device():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

    for dtype in ("float32", "float64"):
        cpu = mg.tensor(V, dtype=dtype).histogram(10, range=(0.0, 1.0), weight=mg.tensor(W, dtype=dtype))
        x = mg.tensor(V, dtype=dtype, device="strict")
        hist, edges = x.histogram(10, range=(0.0, 1.0), weight=mg.tensor(W, dtype=dtype, device="strict"))
        assert hist.device == edges.device == x.device
        assert hist.tolist() == cpu[0].tolist() and edges.tolist() == cpu[1].tolist()
