"""A reduction with no identity over an empty dim refuses it in PyTorch's words and classes.

PyTorch's own suite (test_reductions.py: test_tensor_compare_ops_empty, ..._argmax_argmix_kthvalue_dim_empty)
matches "Expected reduction dim"; the engine said "max: cannot reduce over an empty axis", named
``argmax`` for ``x.max(1)`` and ``max`` for ``amax``, and ``median``/``mode``/``kthvalue``/``aminmax`` had
words of their own.  The strings below are torch 2.13's.
"""

import pytest

import minigrad_ckpt as mg

X = mg.zeros(2, 0, 4)

DIM_CASES = [
    (lambda: X.amax(1), "amax(): Expected reduction dim 1 to have non-zero size."),
    (lambda: mg.amax(X, -2), "amax(): Expected reduction dim -2 to have non-zero size."),  # (as given)
    (lambda: X.amax((0, 1)), "amax(): Expected reduction dim 1 to have non-zero size."),
    (lambda: mg.amin(X, dim=1, keepdim=True), "amin(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.max(1), "max(): Expected reduction dim 1 to have non-zero size."),
    (lambda: mg.min(X, dim=-2), "min(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.argmax(1), "argmax(): Expected reduction dim 1 to have non-zero size."),
    (lambda: mg.argmin(X, dim=1, keepdim=True), "argmin(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.median(1), "median(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.nanmedian(1), "median(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.mode(1), "mode(): Expected reduction dim 1 to have non-zero size."),
    (lambda: X.kthvalue(1, 1), "kthvalue(): Expected reduction dim 1 to have non-zero size."),
    (lambda: mg.aminmax(X, dim=1), "aminmax: Expected reduction dim 1 to have non-zero size."),
]


@pytest.mark.parametrize("call, words", DIM_CASES)
def test_an_empty_dim_is_refused_in_pytorchs_words(call, words):
    with pytest.raises(IndexError) as info:
        call()
    assert str(info.value) == words


ALL_CASES = [
    (lambda: X.max(), RuntimeError, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                                    "Specify the reduction dim with the 'dim' argument."),
    (lambda: X.amin(), RuntimeError, "amin(): Expected reduction dim to be specified for input.numel() == 0. "
                                     "Specify the reduction dim with the 'dim' argument."),
    (lambda: X.argmax(), IndexError, "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: mg.argmin(X), IndexError, "argmin(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: mg.aminmax(X), RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as the "
                                          "operation has no identity."),
]


@pytest.mark.parametrize("call, kind, words", ALL_CASES)
def test_an_empty_tensor_without_a_dim_is_refused_in_pytorchs_words(call, kind, words):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == words


def test_the_other_dims_of_an_empty_tensor_still_reduce():
    assert X.amax(2).shape == (2, 0) and X.max(-1, keepdim=True).values.shape == (2, 0, 1)
    assert X.argmin(2).shape == (2, 0) and mg.aminmax(X, dim=2).max.shape == (2, 0)
    assert X.median(2).values.shape == (2, 0) and X.mode(-1).indices.shape == (2, 0)


def test_a_zero_d_tensor_is_its_own_extreme():
    z = mg.tensor(3.0)
    assert z.max(0).values.item() == 3.0 and z.max(0).indices.item() == 0
    assert mg.aminmax(z, dim=-1).min.item() == 3.0 and z.amax(0).item() == 3.0


def test_amax_and_amin_name_the_empty_dim_as_given_and_max_normalized():
    # torch 2.13: amax/amin print the dim as written (-1, and the first empty one of a tuple); max normalizes
    with pytest.raises(IndexError, match=r"^amax\(\): Expected reduction dim -1 to have non-zero size\.$"):
        mg.zeros(3, 0).amax(-1)
    with pytest.raises(IndexError, match=r"^amin\(\): Expected reduction dim -2 to have non-zero size\.$"):
        mg.zeros(2, 0, 3).amin((-1, -2))
    with pytest.raises(IndexError, match=r"^max\(\): Expected reduction dim 1 to have non-zero size\.$"):
        mg.zeros(3, 0).max(-1)
    assert mg.zeros(3, 0).amax(0).shape == (0,)  # (the reduced dim is not the empty one: an empty answer)
    with pytest.raises(RuntimeError, match=r"^amax\(\): Expected reduction dim to be specified"):
        mg.zeros(3, 0).amax(())


def test_unflatten_and_split_name_their_dim_as_pytorch_does():
    # unflatten prints the dim normalized, split_with_sizes as given (torch 2.13's words, pasted)
    with pytest.raises(RuntimeError, match=r"size of dim 1 \(6\) in the input tensor"):
        mg.zeros(2, 6).unflatten(-1, (4, 2))
    with pytest.raises(RuntimeError, match=r"\(input tensor's size at dimension -1\), but got split_sizes=\[2, 2\]"):
        mg.zeros(2, 5).split([2, 2], -1)
