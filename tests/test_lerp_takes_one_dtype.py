"""PyTorch's ``lerp`` kernel takes one dtype: an ``end`` tensor (0-d too) and a ``weight`` tensor of
one or more dims must have the input's dtype, else a RuntimeError ("expected dtype float for `end`
but got dtype double"); a 0-d weight of another dtype and a number are taken.  The engine
promoted, answering in float64 where PyTorch refuses.

Fixtures made offline with torch 2.13 (the same lines with ``torch`` for ``mg``)."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

OTHER = {mg.float32: mg.float64, mg.float64: mg.float32}

REFUSED = {
    "end of another float dtype": lambda x, o: x.lerp(mg.ones(3, dtype=o, device=x.device), 0.3),
    "a 0-d end": lambda x, o: x.lerp(mg.tensor(1.0, dtype=o, device=x.device), 0.3),
    "an integer end": lambda x, o: x.lerp(mg.ones(3, dtype=mg.int64, device=x.device), 0.3),
    "a weight of one dim": lambda x, o: x.lerp(x * 2, mg.ones(3, dtype=o, device=x.device)),
    "mg.lerp": lambda x, o: mg.lerp(x, mg.ones(3, dtype=o, device=x.device), 0.3),
    "lerp_": lambda x, o: x.clone().lerp_(mg.ones(3, dtype=o, device=x.device), 0.3),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", list(REFUSED))
def test_another_dtype_is_refused(device, dtype, name):
    x = mg.ones(3, dtype=dtype, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="expected dtype .* for `(end|weight)`"):
        REFUSED[name](x * 1, OTHER[dtype])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_a_zero_d_weight_of_another_dtype_and_a_number_are_taken(device, dtype):
    # torch 2.13: a.lerp(a * 3, tensor(0.5, dtype=<other>)) -> [2, 2, 2] in a's dtype, gradient 0.5 + 1.5
    x = mg.ones(3, dtype=dtype, device=device, requires_grad=True)
    y = x.lerp(x * 3, mg.tensor(0.5, dtype=OTHER[dtype], device=device))
    assert y.dtype == dtype and y.tolist() == [2, 2, 2]
    y.sum().backward()
    assert x.grad.tolist() == [2, 2, 2]
    assert x.lerp(x * 3, 0.25).dtype == dtype


def test_forward_mode_refuses_too():
    with pytest.raises(RuntimeError, match="expected dtype float32 for `end`"):
        mg.func.jvp(lambda x: x.lerp(x.double(), 0.5), (mg.ones(2),), (mg.ones(2),))
