"""``sign`` is recorded with gradient 0, as PyTorch's: ``torch.sign(x)`` requires grad where ``x``
does, and ``torch.sign(x).sum().backward()`` gives ``x.grad`` zeros (torch 2.13; ``x.sgn()``
alike).  The engine did not record it, so that ``backward`` (and ``mg.func.grad``) raised "does not
require grad" where PyTorch answers 0.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

X = [1.0, -2.0, 0.0, math.nan]
SPELLINGS = [mg.sign, lambda x: x.sign(), lambda x: x.sgn(), mg.sgn, lambda x: x.clone().sign_()]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("sign", SPELLINGS, ids=["mg.sign", "x.sign", "x.sgn", "mg.sgn", "sign_"])
def test_sign_has_gradient_zero(sign, dtype, device):
    assert sign(mg.tensor(X, dtype=dtype, device=device, requires_grad=True)).requires_grad
    assert_torch_gradients(sign, [X], [[0.0] * 4], dtype, device)


def test_an_integer_sign_is_still_not_differentiable_and_keeps_its_dtype():
    s = mg.sign(mg.tensor([3, -2, 0]))
    assert s.dtype == mg.int64 and s.tolist() == [1, -1, 0] and not s.requires_grad
