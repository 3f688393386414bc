"""A 0-d complex tensor has no order either: ``z.max(0)``, ``z.min(0)``, ``z.sort()``, ``z.argsort()``
and ``z.msort()`` are refused as they are for more dims (torch 2.13: "max(): does not support complex
input", "Sort does not support complex dtypes on CPU") -- the 0-d shortcut answered the element and
index 0.  Found by the dtype-semantics red team (every ordering method on 0-d tensors of eleven dtypes)."""
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("call", [
    lambda z: z.max(0), lambda z: z.min(-1, True), lambda z: mg.max(z, dim=0), lambda z: z.sort(),
    lambda z: z.argsort(), lambda z: z.msort(), lambda z: mg.sort(z, dim=0)])
@pytest.mark.parametrize("dtype", [mg.complex64, mg.complex128])
def test_a_zero_d_complex_tensor_has_no_order(call, dtype):
    with pytest.raises(RuntimeError, match="complex numbers have no order"):
        call(mg.tensor(1 - 1j, dtype=dtype))


def test_a_zero_d_real_tensor_is_still_its_own_extremum_and_sort():
    x = mg.tensor(2.5)
    values, indices = x.max(0)
    assert values.item() == 2.5 and indices.item() == 0 and values.ndim == 0
    values, indices = x.sort()
    assert values.item() == 2.5 and indices.item() == 0
    assert x.argsort().item() == 0 and x.msort().item() == 2.5
