"""A negative order ``n`` of ``polygamma`` is PyTorch's RuntimeError, in its words ("polygamma(n, x) does
not support negative n.", the check of PyTorch's test_unary_ufuncs ``test_polygamma_neg``); it was a
TypeError.  A float or bool ``n`` stays a TypeError, as PyTorch's argument parser answers."""
import pytest

import minigrad_ckpt as mg

x = mg.tensor([1.0, 2.0])
SPELLINGS = [lambda n: mg.polygamma(n, x), lambda n: x.polygamma(n), lambda n: mg.special.polygamma(n, x),
             lambda n: x.clone().polygamma_(n)]


@pytest.mark.parametrize("call", SPELLINGS)
def test_negative_order_is_pytorchs_runtime_error(call):
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        call(-1)


@pytest.mark.parametrize("call", SPELLINGS)
@pytest.mark.parametrize("n", [1.5, True])
def test_an_order_that_is_not_an_int_stays_a_type_error(call, n):
    with pytest.raises(TypeError):
        call(n)
