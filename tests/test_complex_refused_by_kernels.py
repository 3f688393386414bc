"""Complex operands of the functions with no complex kernel in PyTorch -- floor and truncating
division, ``remainder``, ``fmod``, ``atan2``, by every spelling -- are its ``NotImplementedError``
(``"div_floor_cpu" not implemented for 'ComplexFloat'``), where NumPy's ``TypeError`` leaked ("ufunc
'fmod' not supported for the input types"), naming neither the function nor the reason.  The error
is a ``TypeError`` too (:class:`DtypeNotImplemented`), as it was."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SPELLINGS = {
    "x // 2": ("div_floor_cpu", lambda x: x // 2),
    "2 // x": ("div_floor_cpu", lambda x: 2 // x),
    "x //= 2": ("div_floor_cpu", lambda x: x.__ifloordiv__(2)),
    "floor_divide(x, x)": ("div_floor_cpu", lambda x: mg.floor_divide(x, x)),
    "div floor": ("div_floor_cpu", lambda x: mg.div(x, 2, rounding_mode="floor")),
    "div trunc": ("div_trunc_cpu", lambda x: mg.div(x, 2, rounding_mode="trunc")),
    "real // complex number": ("div_floor_cpu", lambda x: x.real // (1 + 1j)),
    "x % 2": ("remainder_cpu", lambda x: x % 2),
    "x %= 2": ("remainder_cpu", lambda x: x.__imod__(2)),
    "remainder(real, 1j)": ("remainder_cpu", lambda x: mg.remainder(x.real, 1j)),
    "fmod": ("fmod_cpu", lambda x: mg.fmod(x, 2)),
    "fmod_": ("fmod_cpu", lambda x: x.fmod_(2)),
    "atan2": ("atan2_cpu", lambda x: mg.atan2(x, x)),
    "atan2(real, complex)": ("atan2_cpu", lambda x: mg.atan2(x.real, x)),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype,name", [(mg.complex64, "ComplexFloat"), (mg.complex128, "ComplexDouble")])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_complex_operands_are_pytorchs_not_implemented(spelling, dtype, name, device):
    kernel, f = SPELLINGS[spelling]
    x = mg.tensor([1 + 2j, 3 - 1j], dtype=dtype, device=device)
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'{name}\'') as info:
        f(x)
    assert isinstance(info.value, TypeError)


def test_real_operands_still_answer():
    x = mg.tensor([7.0, -7.0])
    assert (x // 2).tolist() == [3.0, -4.0] and (x % 3).tolist() == [1.0, 2.0]
    assert mg.fmod(x, 3).tolist() == [1.0, -1.0] and mg.div(x, 2, rounding_mode="trunc").tolist() == [3.0, -3.0]
