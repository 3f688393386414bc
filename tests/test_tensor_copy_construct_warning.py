"""``mg.tensor(a_tensor)`` warns as ``torch.tensor(a_tensor)`` does, and copies as it does.

torch 2.13: ``torch.tensor(torch.ones(2))`` warns ``UserWarning: To copy construct from a tensor, it
is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True),
rather than torch.tensor(sourceTensor).`` (at the caller's line); lists of tensors, arrays and
``torch.as_tensor`` do not warn.  The engine warned nothing (the style transfer tutorial's
``Normalization`` writes ``torch.tensor(mean)`` of a tensor, and its port was silent).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

ADVICE = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
          "sourceTensor.detach().clone().requires_grad_(True), rather than")


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_tensor_argument_warns_and_is_copied_without_history(device):
    source = mg.ones(3, dtype=mg.float64, device=device, requires_grad=True) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copy = mg.tensor(source)
        from_parameter = mg.tensor(mg.nn.Parameter(mg.ones(2)))
    assert [str(w.message)[:len(ADVICE)] for w in caught] == [ADVICE, ADVICE]
    assert all(w.category is UserWarning and w.filename == __file__ for w in caught)
    assert not copy.requires_grad and copy.grad_fn is None and not from_parameter.requires_grad
    copy.add_(1)
    assert source.tolist() == [2.0, 2.0, 2.0] and copy.tolist() == [3.0, 3.0, 3.0]


def test_other_data_does_not_warn():
    t = mg.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.tensor([1.0, 2.0])
        mg.tensor(np.ones(2))
        mg.tensor([t[0], t[1]])
        mg.as_tensor(t)
        t.detach().clone()
