"""An in-place method on a bool tensor whose result is an integer is refused, as PyTorch's.

``b.clamp_(min=0)``, ``b.square_()``, ``b.multiply_(2)``, ``b.floor_divide_(-3)`` of a bool ``b``
compute an int64 result (PyTorch: "result type Long can't be cast to the desired output type Bool");
the engine wrote it back into the bool tensor (``True`` for any nonzero integer), silently.  The
fill-value methods (``masked_fill_``, ``index_fill_``, ...) write their value in the tensor's dtype,
as PyTorch's, and stay allowed.  ``b.relu_()`` is refused by relu's own check first.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


def _mask(device: str = "cpu") -> mg.Tensor:
    return mg.tensor([[True, False], [False, True]], device=device)


# each raises in torch 2.13: RuntimeError: result type Long can't be cast to the desired output type Bool
INTEGER_RESULTS = {
    "clamp_": lambda b: b.clamp_(min=0, max=1),
    "clamp_min_": lambda b: b.clamp_min_(0),
    "clamp_max_": lambda b: b.clamp_max_(0),
    "square_": lambda b: b.square_(),
    "multiply_": lambda b: b.multiply_(2),
    "floor_divide_": lambda b: b.floor_divide_(-3),
    "div_ floor": lambda b: b.div_(2, rounding_mode="floor"),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(INTEGER_RESULTS))
def test_an_integer_result_is_not_written_into_a_bool_tensor(name, device):
    b = _mask(device)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type bool"):
        INTEGER_RESULTS[name](b)
    assert b.tolist() == [[True, False], [False, True]]   # untouched


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_relu_of_a_mask_is_refused_before_anything_is_written(device):
    b = _mask(device)  # torch 2.13: relu's own check comes first
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        b.relu_()
    assert b.tolist() == [[True, False], [False, True]]


def test_bool_results_and_fill_values_still_write_into_a_bool_tensor():
    b = _mask()
    b.logical_not_()
    assert b.tolist() == [[False, True], [True, False]]
    b.masked_fill_(mg.tensor([[True, False], [False, False]]), 2)   # torch 2.13: the value as a bool
    assert b.tolist() == [[True, True], [True, False]] and b.dtype == mg.bool_
    i = mg.tensor([1, -2])
    i.clamp_(min=0)                                                 # an integer tensor takes it
    assert i.tolist() == [1, 0]
