"""The refusals of ``multinomial`` and of a mask that is not bool raise PyTorch's ``RuntimeError``
(with its words), as torch 2.13 does; they were a ``ValueError`` and a ``TypeError`` here, which a
ported ``except RuntimeError`` did not catch.  The classes derive from the old ones too
(``InvalidMultinomial`` is a ``ValueError``, ``BoolMaskRequired`` a ``TypeError``), so code written
for either library catches them.

torch 2.13: ``torch.multinomial(torch.zeros(2, 3), 1)`` -> RuntimeError('invalid multinomial
distribution (sum of probabilities <= 0)'), ``torch.zeros(3).masked_fill(torch.ones(3, dtype=torch.uint8),
1.)`` -> RuntimeError('masked_fill_ only supports boolean masks, but got mask with dtype unsigned char').
"""
from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg

P = [[0.2, 0.3, 0.5], [0.0, 0.0, 1.0]]


@pytest.mark.parametrize("call, message", [
    (lambda: mg.multinomial(mg.zeros(2, 3), 1), r"invalid multinomial distribution \(sum of probabilities"),
    (lambda: mg.multinomial(mg.tensor([0.5, -0.1]), 1), "probability tensor contains either .* or element < 0"),
    (lambda: mg.multinomial(mg.tensor([1.0, float("inf")]), 1), "probability tensor contains either `inf`, `nan`"),
    (lambda: mg.multinomial(mg.tensor([0, 5, 0]), 1), "multinomial only supports floating-point dtypes for input"),
    (lambda: mg.multinomial(mg.ones(2, 2, 3), 1), "prob_dist must be 1 or 2 dim"),
    (lambda: mg.multinomial(mg.tensor(P), 4), r"cannot sample n_sample > prob_dist.size\(-1\) samples without"),
    (lambda: mg.multinomial(mg.tensor(P), 0), "cannot sample n_sample <= 0 samples"),
    (lambda: mg.tensor(P).multinomial(4), "cannot sample n_sample > prob_dist.size"),
])
def test_multinomial_refuses_with_pytorchs_runtime_error(call, message):
    with pytest.raises(RuntimeError, match=message) as caught:
        call()
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("call, message", [
    (lambda m: mg.zeros(3).masked_fill(m, 1.0), "masked_fill_ only supports boolean masks"),
    (lambda m: mg.zeros(3).masked_fill_(m, 1.0), "masked_fill_ only supports boolean masks"),
    (lambda m: mg.zeros(3).masked_scatter(m, mg.ones(3)), "masked_scatter_ only supports boolean masks"),
    # torch 2.13: 'masked_select: expected BoolTensor for mask' (there is no masked_select_ to name)
    (lambda m: mg.zeros(3).masked_select(m), "^masked_select: expected BoolTensor for mask"),
    (lambda m: mg.masked_select(mg.zeros(3), m), "^masked_select: expected BoolTensor for mask"),
])
@pytest.mark.parametrize("dtype", [mg.uint8, mg.int64, mg.float32])
def test_a_mask_that_is_not_bool_is_pytorchs_runtime_error(call, message, dtype):
    with pytest.raises(RuntimeError, match=message) as caught:
        call(mg.ones(3, dtype=dtype))
    assert isinstance(caught.value, TypeError)


def test_a_uint8_where_condition_warns_pytorchs_deprecation_and_answers_as_bool():
    # torch 2.13: torch.where(torch.tensor([1, 0, 1], dtype=torch.uint8), x, y) warns 'where received a uint8
    # condition tensor. This behavior is deprecated ...' and answers as the bool condition; the engine was silent
    # (found porting graykode/nlp-tutorial's Transformer, whose subsequent mask is np.triu(...).byte()).
    x, y = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([-1.0, -2.0, -3.0])
    m = mg.tensor([1, 0, 2], dtype=mg.uint8)
    for call in (lambda: mg.where(m, x, y), lambda: x.where(m, y)):
        with pytest.warns(UserWarning, match="where received a uint8 condition tensor") as caught:
            assert call().tolist() == [1.0, -2.0, 3.0]
        assert caught[0].filename == __file__  # the user's line, not the engine's
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mg.where(m.bool(), x, y).tolist() == [1.0, -2.0, 3.0]
        assert [i.tolist() for i in mg.where(m)] == [[0, 2]]  # where(condition) is nonzero: no warning in PyTorch
        assert mg.where(m.numpy(), x, y).tolist() == [1.0, -2.0, 3.0]  # a NumPy array is NumPy's spelling
