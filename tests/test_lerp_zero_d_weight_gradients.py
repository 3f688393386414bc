"""A 0-d ``lerp`` weight of another dtype than the tensors' is taken as PyTorch takes it: the value
reads it rounded to the tensors' dtype, while the backward takes ``1 - weight`` in the weight's
own dtype and reads it, and the weight, unrounded in the gradient's compute dtype (a CPU scalar in
PyTorch's products).  Rounding the weight first put a third of such gradients a unit off, and a
real weight beside complex tensors lost its gradient (``w.grad`` None)."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]


def _lerp_grads(dtype, weight, g, device):
    start = mg.ones(len(g), dtype=dtype, device=device, requires_grad=True)
    end = mg.zeros(len(g), dtype=dtype, device=device, requires_grad=True)
    out = mg.lerp(start, end, weight)
    out.backward(mg.tensor(np.asarray(g, dtype), device=device))
    return start.grad.numpy(), end.grad.numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_one_minus_a_float64_weight_is_taken_in_float64(device):
    # torch 2.13: float32 lerp with tensor(0.9, float64): start.grad float32(1 - 0.9) = 0.1, where
    # 1 - float32(0.9) = 0.100000024
    w = mg.tensor(0.9, dtype=mg.float64, device=device, requires_grad=True)
    gs, ge = _lerp_grads(np.float32, w, [1.0, 2.0], device)
    np.testing.assert_array_equal(gs, np.float32(1 - 0.9) * np.float32([1, 2]))
    np.testing.assert_array_equal(ge, np.float32(0.9) * np.float32([1, 2]))
    assert w.grad.dtype == mg.float64 and w.grad.item() == -3.0


@pytest.mark.parametrize("device", DEVICES)
def test_one_minus_a_float16_weight_is_rounded_to_float16(device):
    # torch 2.13: float32 lerp with tensor(0.3, float16): start.grad 0.7001953125 (1 - w in float16)
    gs, _ = _lerp_grads(np.float32, mg.tensor(0.3, dtype=mg.float16, device=device), [1.0], device)
    assert gs.tolist() == [0.7001953125]


@pytest.mark.parametrize("device", DEVICES)
def test_a_float32_weight_beside_float16_tensors_is_read_unrounded(device):
    # torch 2.13, g = [0.1, -3.7, 1000.3] in float16, weight tensor(0.3) float32:
    # end.grad float16(float32(g) * 0.3), start.grad float16(float32(g) * float32(1 - 0.3))
    g = np.array([0.1, -3.7, 1000.3], np.float16)
    gs, ge = _lerp_grads(np.float16, mg.tensor(0.3, dtype=mg.float32, device=device), g, device)
    np.testing.assert_array_equal(ge, (g.astype(np.float32) * np.float32(0.3)).astype(np.float16))
    np.testing.assert_array_equal(gs, (g.astype(np.float32) * (np.float32(1) - np.float32(0.3))).astype(np.float16))
    assert ge.tolist() != (g * np.float16(0.3)).tolist()  # (the rounded weight's answer)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("real", [mg.float32, mg.float64])
def test_a_real_weight_beside_complex_tensors_keeps_its_gradient(device, real):
    z = mg.tensor([1 + 1j, 2 - 0.5j], dtype=mg.complex64, device=device)
    end = mg.tensor([3j, 4 + 0j], dtype=mg.complex64, device=device)
    w = mg.tensor(0.3, dtype=real, device=device, requires_grad=True)
    as_complex = mg.tensor(0.3, dtype=mg.complex128, device=device, requires_grad=True)
    mg.lerp(z, end, w).abs().sum().backward()
    mg.lerp(z, end, as_complex).abs().sum().backward()
    assert w.grad is not None and w.grad.dtype == real
    np.testing.assert_allclose(w.grad.item(), as_complex.grad.item().real, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_forward_mode_and_checkpoint_take_the_weight_of_another_dtype(device):
    a = mg.tensor([1.0, -2.0], dtype=mg.float32, device=device)
    b = mg.tensor([3.0, 5.0], dtype=mg.float32, device=device)
    w = mg.tensor(0.9, dtype=mg.float64, device=device)
    out, t = mg.func.jvp(lambda v: mg.lerp(a, b, v), (w,), (mg.ones((), dtype=mg.float64, device=device),))
    assert out.dtype == mg.float32
    np.testing.assert_allclose(t.numpy(), [2.0, 7.0], rtol=1e-6)
    x = a.detach().requires_grad_()
    plain = mg.autograd.grad((mg.lerp(x, b, w) ** 2).sum(), x)[0]
    replayed = mg.autograd.grad(mg.checkpoint.checkpoint(lambda y: (mg.lerp(y, b, w) ** 2).sum(), x), x)[0]
    np.testing.assert_array_equal(plain.numpy(), replayed.numpy())
