"""Optimizers on complex parameters: each update equals the update of ``view_as_real(p)``.

PyTorch's rule (its optimizers view complex parameters as real).  With the
gradient convention ``grad = dL/dRe + i dL/dIm`` (docs/complex.md), every
optimizer then treats a complex parameter as its two real parts -- the
comparison here is bit for bit, for every optimizer and its options, over
several steps, through a state-dict round trip, and on the strict device.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import optim

OPTIMIZERS = [
    (optim.SGD, {"lr": 0.1}), (optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    (optim.Adam, {"lr": 0.1, "weight_decay": 0.1}), (optim.AdamW, {"lr": 0.1, "amsgrad": True}),
    (optim.RMSprop, {"lr": 0.01, "centered": True, "momentum": 0.5}), (optim.Adagrad, {"lr": 0.1}),
    (optim.Adamax, {"lr": 0.1}), (optim.NAdam, {"lr": 0.1}), (optim.RAdam, {"lr": 0.1}),
]


def loss_complex(z, target):
    return ((z.real - target) ** 2).sum() + (z.imag ** 3).sum() + (z.real * z.imag).sum()


def loss_pairs(r, target):
    return ((r[..., 0] - target) ** 2).sum() + (r[..., 1] ** 3).sum() + (r[..., 0] * r[..., 1]).sum()


def pairs(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("cls,kw", OPTIMIZERS, ids=[f"{c.__name__}-{i}" for i, (c, _) in enumerate(OPTIMIZERS)])
def test_update_equals_the_update_of_the_real_view(cls, kw, device):
    rng = np.random.default_rng(3)
    z0 = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    target = mg.tensor(np.arange(6.0).reshape(3, 2), device=device)
    z = mg.tensor(z0, requires_grad=True, device=device)
    r = mg.tensor(pairs(z0), requires_grad=True, device=device)
    opt_z, opt_r = cls([z], **kw), cls([r], **kw)
    for step in range(6):
        if step == 3:  # a state-dict round trip in the middle
            opt_z2 = cls([z], **kw)
            opt_z2.load_state_dict(opt_z.state_dict())
            opt_z = opt_z2
        opt_z.zero_grad()
        opt_r.zero_grad()
        loss_complex(z, target).backward()
        loss_pairs(r, target).backward()
        version = z._version
        opt_z.step()
        opt_r.step()
        assert z._version > version  # the step is an in-place change of z
        np.testing.assert_array_equal(pairs(z.numpy()), r.numpy())
    assert z.dtype == np.complex128


def test_complex64_parameters_stay_complex64():
    z = mg.tensor(np.array([1 + 2j, 3 - 1j], dtype=np.complex64), requires_grad=True)
    opt = optim.Adam([z], lr=0.1)
    (mg.fft.fft(z).real.sum() + z.imag.sum()).backward()
    opt.step()
    assert z.dtype == np.complex64 and z.grad.dtype == np.complex64


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_gradient_clipping_of_complex_gradients(device):
    """clip_grad_norm_ returned the total norm of complex gradients as a complex number
    (5.916+0j); it is real, as PyTorch's (float64 5.9161 for these); on the CPU it held a NumPy
    scalar, so total.numpy() raised 'Cannot set flags on array scalars'. clip_grad_value_ clamped
    complex gradients in NumPy's lexicographic order (3+4j became 1+0j); PyTorch refuses
    ('clamp is not supported for complex types')."""
    ct = np.complex64 if device == "strict-f32" else np.complex128
    z = mg.tensor(np.zeros(2, dtype=ct), requires_grad=True, device=device)
    w = mg.tensor(np.zeros(2, dtype=np.float32 if device == "strict-f32" else np.float64), requires_grad=True,
                  device=device)
    z.grad = mg.tensor(np.array([3 + 4j, 1 - 2j], dtype=ct), device=device)
    w.grad = mg.tensor(np.array([2.0, -1.0], dtype=w.dtype), device=device)
    total = mg.nn.utils.clip_grad_norm_([z, w], 1.0)
    assert total.dtype == (np.float32 if device == "strict-f32" else np.float64)
    np.testing.assert_allclose(total.numpy(), np.sqrt(35), rtol=1e-6)
    np.testing.assert_allclose(z.grad.numpy(), np.array([3 + 4j, 1 - 2j]) / (np.sqrt(35) + 1e-6), rtol=1e-6)
    with pytest.raises(TypeError, match="no order to clamp in"):
        mg.nn.utils.clip_grad_value_([z], 1.0)
