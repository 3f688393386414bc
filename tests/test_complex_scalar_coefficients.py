"""A complex number scaling real tensors -- ``add``/``sub``'s ``alpha``, the fused forms' ``alpha`` and
``beta``, ``addcmul``/``addcdiv``'s ``value``, ``lerp``'s ``weight`` -- is converted to their dtype, as
PyTorch's: an error when its imaginary part would be lost, never a silently real (or silently complex)
answer.  Beside complex tensors it scales them as a complex number.

torch 2.13's answers are stated in each test; they are errors or small exact numbers (no fixture)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
COMPLEX_OF = {mg.float64: mg.complex128, mg.float32: mg.complex64}


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("alpha", [2j, 2 + 0j, np.complex64(1j)], ids=["2j", "2+0j", "np.complex64"])
def test_add_and_sub_refuse_a_complex_alpha_for_real_tensors(device, dtype, alpha):
    # torch 2.13: torch.add(ones(2), ones(2), alpha=2j) -> RuntimeError "For non-complex input tensors, argument
    # alpha must not be a complex number." (sub too); mg.add answered [1, 1] (x + 2j y cut to its real part),
    # mg.sub a complex tensor [1-2j, 1-2j]
    x, y = mg.zeros(2, dtype=dtype, device=device), mg.ones(2, dtype=dtype, device=device)
    for fn in (mg.add, mg.sub, mg.subtract):
        with pytest.raises(RuntimeError, match="For non-complex input tensors, argument alpha must not be a complex"):
            fn(x, y, alpha=alpha)
    with pytest.raises(RuntimeError, match="alpha must not be a complex"):
        mg.add(x, y, alpha=mg.tensor(2j, device=device))
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating"):
        mg.add(mg.ones(2, dtype=mg.int64), mg.ones(2, dtype=mg.int64), alpha=alpha)  # (it answered [1, 1])


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_complex_alpha_scales_complex_operands(device, dtype):
    # torch 2.13: add(ones(2), ones(2, cfloat), alpha=2j) -> [1+2j, 1+2j]; sub -> [1-2j, 1-2j]
    x, z = mg.ones(2, dtype=dtype, device=device), mg.ones(2, dtype=COMPLEX_OF[dtype], device=device)
    assert mg.add(x, z, alpha=2j).numpy().tolist() == [1 + 2j, 1 + 2j]
    assert mg.sub(z, x, alpha=2j).numpy().tolist() == [1 - 2j, 1 - 2j]
    assert mg.add(x, z, alpha=2j).dtype == COMPLEX_OF[dtype]


FUSED = {
    "addcmul": lambda x, v: mg.addcmul(x, x, x, value=v),
    "addcdiv": lambda x, v: mg.addcdiv(x, x, x, value=v),
    "addmm-alpha": lambda x, v: mg.addmm(x, x, x, alpha=v),
    "addmm-beta": lambda x, v: mg.addmm(x, x, x, beta=v),
    "addmv": lambda x, v: mg.addmv(x[0], x, x[0], alpha=v),
    "addr": lambda x, v: mg.addr(x, x[0], x[0], beta=v),
    "baddbmm": lambda x, v: mg.baddbmm(x[None], x[None], x[None], alpha=v),
    "addbmm": lambda x, v: mg.addbmm(x, x[None], x[None], beta=v),
    "lerp": lambda x, v: mg.lerp(x, 2 * x, v),
}


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", FUSED)
def test_a_complex_coefficient_of_real_tensors_is_converted_as_pytorch(name, device, dtype):
    # torch 2.13: torch.addcmul(ones(2), ones(2), ones(2), value=2j) -> RuntimeError "value cannot be converted
    # to type float without overflow" (addmm, addmv, addr, baddbmm, addbmm, lerp the same); with value=2+0j it
    # is 2: addcmul -> [3., 3.], float.  The engine answered complex tensors (lerp: Python's TypeError "'>='
    # not supported between instances of 'complex' and 'float'")
    x = mg.ones((2, 2), dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match=r"cannot be converted to type (float|double) without overflow"):
        FUSED[name](x, 0.5j)
    on_the_axis, real = FUSED[name](x, 0.5 + 0j), FUSED[name](x, 0.5)
    assert on_the_axis.dtype == dtype
    np.testing.assert_array_equal(on_the_axis.numpy(), real.numpy())


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_lerp_takes_a_python_complex_weight_for_complex_tensors(device, dtype):
    # torch 2.13: lerp(ones(2, cfloat), zeros(2, cfloat), 0.5j) -> [1-0.5j, 1-0.5j]; 0.7+0.1j -> [0.3-0.1j, ...];
    # the engine raised Python's TypeError ('>=' between complex and float) where a complex tensor weight worked
    start, end = mg.ones(2, dtype=COMPLEX_OF[dtype], device=device), mg.zeros(2, dtype=COMPLEX_OF[dtype], device=device)
    for w, want in ((0.5j, 1 - 0.5j), (0.7 + 0.1j, 0.3 - 0.1j)):
        got = mg.lerp(start, end, w)
        assert got.dtype == COMPLEX_OF[dtype]
        np.testing.assert_allclose(got.numpy(), [want, want], rtol=1e-6)
        np.testing.assert_allclose(start.clone().lerp_(end, w).numpy(), [want, want], rtol=1e-6)


def test_the_coefficient_rule_under_grad_and_vmap():
    z = mg.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    (g,) = mg.autograd.grad((mg.abs(mg.lerp(z, 2 * z, 0.5j)) ** 2).sum(), [z])
    np.testing.assert_allclose(g.numpy(), 2 * abs(1 + 0.5j) ** 2 * z.detach().numpy(), rtol=1e-6)
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match="alpha must not be a complex"):
        mg.func.vmap(lambda r: mg.add(r, r, alpha=1j))(x)
    assert mg.func.grad(lambda r: mg.addcmul(r, r, r, value=2 + 0j).sum())(x[0]).numpy().tolist() == [5.0, 9.0]
