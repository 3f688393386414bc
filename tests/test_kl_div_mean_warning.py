"""``F.kl_div`` and ``nn.KLDivLoss`` with ``reduction="mean"`` (their default) give PyTorch's UserWarning that
'mean' divides by the batch and the support sizes and will mean 'batchmean' (the engine gave none); not for
``"batchmean"``, ``"sum"``, ``"none"``, nor where the legacy ``size_average``/``reduce`` give the mean (their
own deprecation warning only), as torch 2.13.  The values are unchanged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

WORDS = "'mean' will be changed to behave the same as 'batchmean' in the next major release"


def _warned(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [w for w in caught if WORDS in str(w.message)]


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
def test_the_default_mean_warns_as_pytorch(dtype):
    x = mg.log(mg.full((2, 3), 1 / 3, dtype=dtype))
    t = mg.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], dtype=dtype)
    for call in (lambda: F.kl_div(x, t), lambda: mg.nn.KLDivLoss()(x, t), lambda: F.kl_div(x, t, reduction="mean")):
        value, warned = _warned(call)
        assert len(warned) == 1 and warned[0].category is UserWarning
        want = (t.numpy() * (np.log(t.numpy()) - x.numpy())).mean()
        np.testing.assert_allclose(value.item(), want, rtol=1e-6)


def test_the_other_reductions_do_not():
    x, t = mg.zeros(2, 3), mg.full((2, 3), 1 / 3)
    for reduction in ("batchmean", "sum", "none"):
        assert _warned(lambda r=reduction: F.kl_div(x, t, reduction=r))[1] == []
    assert _warned(lambda: F.kl_div(x, t, size_average=True))[1] == []
