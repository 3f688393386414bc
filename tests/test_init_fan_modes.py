"""``nn.init``'s fan modes and PyTorch's private helpers that initialisation code calls.

Before: ``kaiming_uniform_(w, mode="fan_avg")`` (a mode PyTorch refuses) and ``mode="FAN_IN"`` (one it
reads in any case) both silently drew with ``fan_out``; ``init._calculate_correct_fan`` and the
``_no_grad_*`` fills were AttributeErrors; a tensor of no elements drew nothing without PyTorch's
warning.  torch 2.13's answers, written out below: ``ValueError("Mode fan_avg not supported, please
use one of ['fan_in', 'fan_out']")``; ``_calculate_correct_fan(torch.empty(4, 3, 5), "FAN_OUT") == 20``;
"Initializing zero-element tensors is a no-op" (a UserWarning pointing at the caller)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import init


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_])
def test_a_mode_pytorch_refuses_is_refused_not_read_as_fan_out(fill):
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        fill(mg.empty(4, 3), mode="fan_avg")


@pytest.mark.parametrize("mode, fan", [("fan_in", 15), ("FAN_IN", 15), ("fan_out", 20), ("Fan_Out", 20)])
def test_the_mode_is_read_in_any_case(mode, fan):
    w = mg.empty(4, 3, 5)
    assert init._calculate_correct_fan(w, mode) == fan
    a = mg.empty(4, 3, 5)
    b = mg.empty(4, 3, 5)
    init.kaiming_uniform_(a, mode=mode, generator=mg.Generator().manual_seed(3))
    init.kaiming_uniform_(b, mode=mode.lower(), generator=mg.Generator().manual_seed(3))
    assert np.array_equal(a.numpy(), b.numpy())
    assert np.abs(a.numpy()).max() <= np.sqrt(2.0 / (1 + 0.01 ** 2)) * np.sqrt(3.0 / fan)


@pytest.mark.parametrize("fill", [init.kaiming_uniform_, init.kaiming_normal_])
def test_a_tensor_of_no_elements_is_left_with_pytorchs_warning(fill):
    w = mg.empty(0, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fill(w) is w
    assert [str(c.message) for c in caught] == ["Initializing zero-element tensors is a no-op"]
    assert caught[0].filename == __file__


def test_the_private_fills_are_the_public_ones():
    def drawn(fill, *args):
        t = mg.empty(3, 4, dtype="float64")
        fill(t, *args, generator=mg.Generator().manual_seed(7))
        return t.numpy()

    assert np.array_equal(drawn(init._no_grad_uniform_, -0.5, 2.0), drawn(init.uniform_, -0.5, 2.0))
    assert np.array_equal(drawn(init._no_grad_normal_, 1.0, 0.3), drawn(init.normal_, 1.0, 0.3))
    assert np.array_equal(drawn(init._no_grad_trunc_normal_, 0.0, 1.0, -0.5, 0.5),
                          drawn(init.trunc_normal_, 0.0, 1.0, -0.5, 0.5))
    w = mg.randn(2, 2, requires_grad=True)
    assert init._no_grad_fill_(w, 2.5) is w and np.all(w.numpy() == 2.5) and w.grad_fn is None
    assert np.all(init._no_grad_zero_(w).numpy() == 0)
