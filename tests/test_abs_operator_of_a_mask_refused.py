"""Python's ``abs(mask)`` is ``mask.__abs__()``, PyTorch's ``abs`` method: of a bool tensor it is
PyTorch's ``NotImplementedError`` ('"abs_cpu" not implemented for 'Bool''), as ``mask.abs()`` already
was here -- the operator went to NumPy's function and answered the mask.  ``np.abs(mask)`` of a tensor
goes through the operator too, as ``np.negative(mask)`` does.  Found by the dtype-semantics red team
(the unary operators over eleven dtypes)."""
import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("mask", [mg.tensor([True, False]), mg.tensor(True)])
def test_abs_of_a_bool_tensor_is_pytorchs_refusal(mask):
    with pytest.raises(NotImplementedError, match="\"abs_cpu\" not implemented for 'Bool'"):
        abs(mask)
    with pytest.raises(NotImplementedError, match="\"abs_cpu\" not implemented for 'Bool'"):
        np.abs(mask)


def test_abs_of_numbers_and_its_gradient_are_kept():
    assert abs(mg.tensor([-3, 2], dtype=mg.int8)).tolist() == [3, 2]
    assert abs(mg.tensor([-1.5])).dtype == mg.float32
    assert abs(mg.tensor(3 + 4j)).item() == 5.0
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    abs(x).sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0]
