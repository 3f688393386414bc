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


@pytest.mark.parametrize("call", [
    lambda m: mg.zeros(3).masked_fill(m, 1.0),
    lambda m: mg.zeros(3).masked_fill_(m, 1.0),
    lambda m: mg.zeros(3).masked_select(m),
    lambda m: mg.zeros(3).masked_scatter(m, mg.ones(3)),
])
@pytest.mark.parametrize("dtype", [mg.uint8, mg.int64, mg.float32])
def test_a_mask_that_is_not_bool_is_pytorchs_runtime_error(call, dtype):
    with pytest.raises(RuntimeError, match="only supports boolean masks") as caught:
        call(mg.ones(3, dtype=dtype))
    assert isinstance(caught.value, TypeError)
