"""``igamma``/``igammac`` (``mg.special.gammainc``/``gammaincc``) of two integral operands are
PyTorch's ``NotImplementedError``: its kernels are floating only ('"igamma_cpu" not implemented for
'Long''), and the engine answered in float32.  One float operand decides a float kernel, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict")

FORMS = {
    "igamma": (lambda a, x: mg.igamma(a, x), "igamma_cpu"),
    "igammac": (lambda a, x: mg.igammac(a, x), "igammac_cpu"),
    "special.gammainc": (lambda a, x: mg.special.gammainc(a, x), "igamma_cpu"),
    "special.gammaincc": (lambda a, x: mg.special.gammaincc(a, x), "igammac_cpu"),
    "Tensor.igamma": (lambda a, x: a.igamma(x), "igamma_cpu"),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype, name", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_two_integral_operands_are_refused(form, dtype, name, device):
    f, kernel = FORMS[form]
    a = mg.tensor([1, 2], dtype=getattr(mg, dtype), device=device)
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'{name}\''):
        f(a, a)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("form", FORMS)
def test_a_float_operand_makes_a_float_kernel(form, device):
    f, _ = FORMS[form]
    ints = mg.tensor([1, 2], device=device)
    floats = mg.tensor([0.5, 3.0], device=device)
    for a, x in ((ints, floats), (floats, ints)):
        out = f(a, x)
        assert out.dtype == mg.float32
        want = f(a.float(), x.float())
        np.testing.assert_array_equal(out.cpu().numpy(), want.cpu().numpy())
