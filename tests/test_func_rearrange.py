"""``mg.func.rearrange`` against torch 2.13's ``torch.func.rearrange`` (``tests/data/make_torch_rearrange.py``):
53 patterns give torch's shapes, dtypes and element orders, 37 bad patterns and lengths torch's exception
classes and words; gradients flow back through the rearrangement; a list of tensors is stacked first.
A set in a message (the names on one side only) is compared as a set: its order is the hash's.

Where torch 2.13 fails by a bug of its own the answer is einops' (each case says why), and a left ``1``
over a dimension of another size is refused where torch sums it."""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.func import rearrange
from minigrad_ckpt.func.einops_rearrange import DimensionBindError

DATA = json.loads((Path(__file__).parent / "data" / "torch_rearrange.json").read_text())
ERRORS = {"ValueError": ValueError, "TypeError": TypeError, "DimensionBindError": DimensionBindError}


def arange(shape, dtype=mg.int32):
    return mg.arange(int(np.prod(shape))).reshape(shape).to(dtype)


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["pattern"] + str(c["lengths"] or "") for c in DATA["cases"]])
def test_each_pattern_moves_the_elements_as_torch(case):
    y = rearrange(arange(case["shape"]), case["pattern"], **case["lengths"])
    assert list(y.shape) == case["out_shape"]
    assert str(y.dtype).removeprefix("minigrad_ckpt.") == case["dtype"]  # a left 1 is summed: int32 -> int64
    assert y.flatten().tolist() == case["values"]


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["pattern"] + str(c["lengths"] or "") for c in DATA["cases"]])
def test_the_gradient_goes_back_to_where_each_element_came_from(case):
    x = mg.randn(*case["shape"], dtype=mg.float64, requires_grad=True)
    y = rearrange(x, case["pattern"], **case["lengths"])
    w = np.random.default_rng(0).standard_normal(tuple(y.shape))
    (y * mg.tensor(w)).sum().backward()
    want = np.zeros(max(x.numel(), 1))
    want[np.asarray(case["values"], dtype=np.int64)] = w.ravel()
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want[:x.numel()])
    np.testing.assert_array_equal(y.detach().numpy().ravel(), x.detach().numpy().ravel()[case["values"]])


def _same_words(got: str, want: str) -> bool:
    sets = re.compile(r"\{.*\}")
    if sets.search(want):
        return sets.sub("", got) == sets.sub("", want) and \
            ast.literal_eval(sets.search(got).group()) == ast.literal_eval(sets.search(want).group())
    return got == want


@pytest.mark.parametrize("case", DATA["refusals"],
                         ids=[c["pattern"] + str(c["lengths"] or "") for c in DATA["refusals"]])
def test_bad_patterns_are_refused_in_torchs_words(case):
    with pytest.raises(ERRORS[case["error"]]) as e:
        rearrange(mg.zeros(*case["shape"]), case["pattern"], **case["lengths"])
    assert type(e.value).__name__ == case["error"]
    assert _same_words(str(e.value), case["message"]), (str(e.value), case["message"])


def test_a_list_or_tuple_of_tensors_is_stacked_first():
    xs = [arange((2, 3)) + 10 * i for i in range(4)]
    want = mg.stack(xs).permute(1, 0, 2).reshape(2, 12)
    assert (rearrange(xs, "n a b -> a (n b)") == want).all()
    assert (rearrange(tuple(xs), "n a b -> a (n b)") == want).all()
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        rearrange([], "n -> n")


def test_a_zero_dim_tensor_comes_back_itself():
    x = mg.tensor(5.0)
    assert rearrange(x, "-> 1") is x  # torch 2.13: the identity, whatever the right side


def test_a_left_one_over_a_larger_dimension_is_refused():
    # torch 2.13 sums that dimension (rearrange(arange(24.).reshape(2, 3, 4), "1 b c -> b c")[0, 0] is 12.0):
    # the pattern says it has size one, as einops reads it, and einops refuses it
    with pytest.raises(DimensionBindError, match=r"^Dimension sizes to do not match \(2 != 1\) when matching "
                                                 r"dimension pack \(d0,\)$"):
        rearrange(mg.zeros(2, 3, 4), "1 b c -> b c")


@pytest.mark.parametrize("shape, pattern, lengths, out_shape", DATA["known_torch_bugs"],
                         ids=[c[1] for c in DATA["known_torch_bugs"]])
def test_patterns_torch_fails_on_are_answered_as_einops(shape, pattern, lengths, out_shape):
    # a left side of one group: torch indexes with the group's tuple, which Python reads as several indices;
    # a 1 on both sides: an empty group beside a summed axis, and torch miscounts its levels
    x = arange(shape)
    y = rearrange(x, pattern, **lengths)
    assert list(y.shape) == out_shape
    sizes = dict(lengths)
    if pattern.startswith("("):  # "(a b) -> b a", "(x y z) -> z y x": a split, then the axes reversed
        names = pattern[1:pattern.index(")")].split()
        missing = [n for n in names if n not in sizes]
        sizes[missing[0]] = int(np.prod(shape)) // int(np.prod([sizes[n] for n in names if n in sizes]))
        want = x.reshape([sizes[n] for n in names]).permute(*reversed(range(len(names))))
    else:  # "a 1 -> 1 a", "a 1 c -> c 1 a": the unit axis kept, the others reversed
        want = x.squeeze(1).permute(*reversed(range(x.ndim - 1))).unsqueeze(1 if x.ndim == 3 else 0)
    assert (y == want.to(y.dtype)).all()


def test_keyword_names_warn_once_per_pattern_as_torch():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rearrange(mg.zeros(2, 3), "a class -> class a")
        rearrange(mg.zeros(2, 3), "a class -> class a")  # torch caches a pattern's plan: no second warning
    assert [str(w.message) for w in seen] == ["It is discouraged to use axes names that are keywords: class"] * 2
    assert all(w.category is RuntimeWarning and w.filename == __file__ for w in seen)
    with pytest.warns(FutureWarning, match="^It is discouraged to use 'axis' as an axis name"):
        rearrange(mg.zeros(2, 3), "a axis -> axis a")


def test_it_is_differentiable_twice_and_keeps_float32():
    x = mg.randn(4, 6, requires_grad=True)
    y = rearrange(x, "a (b c) -> (c a) b", c=2)
    assert y.dtype == mg.float32 and y.shape == (8, 3)
    (g,) = mg.autograd.grad((y ** 3).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.detach().numpy(), rtol=1e-6)
