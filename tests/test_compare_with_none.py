"""``tensor == None`` is False and ``tensor != None`` True, as PyTorch's: ``if mask == None:`` (a common
"unset" test) raised TypeError "cannot make a tensor from NoneType data of mixed types".  torch 2.13's
comparison operators turn an operand that can be no tensor into ``NotImplemented``, so Python's
identity test answers: ``t == None`` False, ``t != None`` True, ``t == "a"`` False, ``None == t``
False; a number or a tensor still compares elementwise."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.int64), ("strict", mg.float64)])
def test_a_tensor_is_not_none(device, dtype):
    t = mg.tensor([1, 2], dtype=dtype, device=device)
    assert (t == None) is False and (t != None) is True  # noqa: E711 (the program's spelling)
    assert (None == t) is False and (None != t) is True  # noqa: E711
    assert (t == "a") is False and (t != "a") is True
    assert (mg.tensor(0.0, device=device) == None) is False  # noqa: E711
    assert (t == 1).tolist() == [True, False] and (t != t).tolist() == [False, False]


def test_mask_defaults_read_as_in_pytorch():
    def masked_mean(x, mask=None):
        if mask == None:  # noqa: E711 (as the programs write it)
            return x.mean()
        return x[mask].mean()

    x = mg.tensor([1.0, 2.0, 6.0])
    assert masked_mean(x).item() == 3.0 and masked_mean(x, x > 1).item() == 4.0
