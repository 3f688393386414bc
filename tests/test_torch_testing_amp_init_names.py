"""PyTorch names a test suite or a training script reaches for, which were AttributeErrors:
``mg.testing.make_tensor`` (torch.testing's random test tensors: ranges, checks, ``exclude_zero``,
``noncontiguous``), ``mg.amp.custom_fwd``/``custom_bwd``/``is_autocast_available`` (torch 2.13's
refusals), ``nn.init.sparse_`` and the deprecated ``nn.init.xavier_uniform`` and friends (their
FutureWarning)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import make_tensor, strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_make_tensor_ranges_and_options(device):
    mg.manual_seed(0)
    f = make_tensor(2000, dtype=mg.float32, device=device)
    assert f.dtype == mg.float32 and f.device == mg.device(device) and -9 <= f.numpy().min() and f.numpy().max() < 9
    i = make_tensor((40, 50), dtype=mg.int8, device=device).numpy()
    assert i.shape == (40, 50) and i.min() == -9 and i.max() == 9
    assert make_tensor(2000, dtype=mg.uint8, device=device).numpy().min() == 0
    b = make_tensor(200, dtype=mg.bool, device=device).numpy()
    assert b.dtype == np.bool_ and 0 < b.sum() < 200
    c = make_tensor(3, dtype=mg.complex64, device=device, low=0, high=1)
    assert c.dtype == mg.complex64 and (c.real.numpy() >= 0).all() and (c.imag.numpy() < 1).all()
    z = make_tensor(500, dtype=mg.int64, device=device, low=0, high=2, exclude_zero=True)
    assert (z.numpy() == 1).all()
    nc = make_tensor(3, 4, dtype=mg.float64, device=device, noncontiguous=True, requires_grad=True)
    assert nc.shape == (3, 4) and not nc.is_contiguous() and nc.requires_grad


def test_make_tensor_refusals_are_pytorchs():
    with pytest.raises(ValueError, match=r"`low` must be less than `high`, but got 2 >= 1"):
        make_tensor(3, dtype=mg.float32, device="cpu", low=2, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(3, dtype=mg.float32, device="cpu", low=math.nan)
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean and integral dtypes"):
        make_tensor(3, dtype=mg.int32, device="cpu", requires_grad=True)
    with pytest.raises(TypeError, match="device"):
        make_tensor(3, dtype=mg.float32)


def test_amp_custom_fwd_and_bwd_decorate_a_function_and_refuse_as_pytorch():
    class Double(mg.autograd.Function):
        @staticmethod
        @mg.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @mg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            return g * 2

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="device_type"):
        mg.amp.custom_fwd(lambda x: x)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mg.amp.custom_fwd(device_type=3)(lambda x: x)
    assert mg.amp.is_autocast_available("cpu") and mg.amp.is_autocast_available("cuda")
    assert not mg.amp.is_autocast_available("mps")
    with pytest.raises(RuntimeError, match="device type at start of device string: xyz"):
        mg.amp.is_autocast_available("xyz")



def test_amp_custom_fwd_and_bwd_carry_the_autocast_state_as_pytorch():
    """PyTorch's ``custom_bwd`` runs backward under the autocast state the forward ran in, and
    ``custom_fwd(cast_inputs=...)`` runs the forward with autocast off inside an enabled region.
    Both decorators returned the function unchanged, so ``is_autocast_enabled`` answered False in
    a backward whose forward ran under autocast, and True inside a ``cast_inputs`` forward
    (found porting the mixed-precision tutorial's custom-Function case against torch 2.13)."""
    seen = []

    class Twice(mg.autograd.Function):
        @staticmethod
        @mg.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            seen.append(("forward", mg.is_autocast_enabled("cpu")))
            return x * 2

        @staticmethod
        @mg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen.append(("backward", mg.is_autocast_enabled("cpu"), mg.get_autocast_dtype("cpu")))
            return g * 2

    class Cast(mg.autograd.Function):
        @staticmethod
        @mg.amp.custom_fwd(device_type="cpu", cast_inputs=mg.float32)
        def forward(ctx, x):
            seen.append(("cast forward", mg.is_autocast_enabled("cpu")))
            return x * 3

        @staticmethod
        @mg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen.append(("cast backward", mg.is_autocast_enabled("cpu")))
            return g * 3

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autocast("cpu"):
        y = Twice.apply(x)
        z = Cast.apply(x)
    (y.sum() + z.sum()).backward()                   # outside autocast: each backward gets its forward's
    assert x.grad.tolist() == [5.0, 5.0]
    assert sorted(seen) == [("backward", True, mg.bfloat16), ("cast backward", False),
                            ("cast forward", False), ("forward", True)]
    seen.clear()
    y = Twice.apply(x)                                # forward outside autocast, backward inside
    with mg.autocast("cpu"):
        y.sum().backward()
    assert seen == [("forward", False), ("backward", False, mg.bfloat16)]

def test_nn_init_sparse_and_the_deprecated_names():
    mg.manual_seed(1)
    w = mg.nn.init.sparse_(mg.empty(10, 300), sparsity=0.3, std=0.5)
    a = w.numpy()
    assert ((a == 0).sum(0) == 3).all() and abs(a[a != 0].std() - 0.5) < 0.05
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        mg.nn.init.sparse_(mg.empty(2, 3, 4), 0.1)
    for old in ("uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
                "orthogonal", "eye"):
        with pytest.warns(FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`"):
            assert getattr(mg.nn.init, old)(mg.empty(3, 4)).shape == (3, 4)
    with pytest.warns(FutureWarning):
        assert (mg.nn.init.constant(mg.empty(2), 0.5).numpy() == 0.5).all()
    with pytest.warns(FutureWarning):
        mg.nn.init.dirac(mg.empty(2, 2, 3))
    with pytest.warns(FutureWarning):
        mg.nn.init.sparse(mg.empty(4, 4), 0.5)
