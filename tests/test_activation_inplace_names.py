"""PyTorch's in-place activation spellings: ``F.relu_``, ``F.elu_``, ``F.celu_``, ``F.selu_``,
``F.leaky_relu_``, ``F.hardtanh_``, ``F.rrelu_``, ``F.threshold_`` and the top-level ``mg.relu_``,
``mg.celu_``, ``mg.selu_``, ``mg.rrelu_``, ``mg.threshold_`` (each an AttributeError before).

Expected values: torch 2.13 on the same calls (``torch.relu_(torch.tensor([-1., 3.]))``, ...).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

CASES = [
    (F.relu_, (), [-1.0, 3.0], [0.0, 3.0]),
    (mg.relu_, (), [-1.0, 3.0], [0.0, 3.0]),
    (F.leaky_relu_, (0.1,), [-1.0, 3.0], [-0.1, 3.0]),
    (F.hardtanh_, (), [-5.0, 0.5], [-1.0, 0.5]),
    (F.threshold_, (1.0, -7.0), [0.1, 2.0], [-7.0, 2.0]),
    (mg.threshold_, (1.0, -7.0), [0.1, 2.0], [-7.0, 2.0]),
    (F.elu_, (), [-1.0, 2.0], [-0.6321205588285577, 2.0]),
    (F.selu_, (), [-1.0], [-1.1113307378125625]),
    (mg.selu_, (), [-1.0], [-1.1113307378125625]),
    (F.celu_, (2.0,), [-1.0], [-0.7869386805747332]),
    (mg.celu_, (2.0,), [-1.0], [-0.7869386805747332]),
    (F.rrelu_, (), [-1.0], [-0.22916666666666666]),  # eval: the mean slope (1/8 + 1/3) / 2
    (mg.rrelu_, (), [-1.0], [-0.22916666666666666]),
]


@pytest.mark.parametrize("fn, args, x, want", CASES, ids=lambda c: getattr(c, "__name__", None))
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
def test_each_writes_its_activation_into_its_input(fn, args, x, want, dtype):
    t = mg.tensor(x, dtype=dtype)
    out = fn(t, *args)
    assert out is t
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-6 if dtype == mg.float32 else 1e-15)


def test_the_in_place_rules_hold():
    w = mg.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        F.relu_(w)
    h = w * 3
    F.leaky_relu_(h, 0.5)  # recorded: the gradient is the activation's
    h.sum().backward()
    assert w.grad.tolist() == [1.5, 3.0]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_hardtanh_and_relu6_keep_a_negative_zero_as_pytorch(device, dtype):
    # torch 2.13: F.hardtanh(tensor([-0., 0., nan, 7., -1.]), 0., 6.) -> [-0., 0., nan, 6., 0.], relu6 the same;
    # NumPy's maximum(-0.0, 0.0) answers +0.0, which the op answered before
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = [-0.0, 0.0, float("nan"), 7.0, -1.0, 3.0]
    want = np.array([-0.0, 0.0, np.nan, 6.0, 0.0, 3.0])
    for out in (F.hardtanh(mg.tensor(x, dtype=dtype, device=device), 0.0, 6.0),
                F.relu6(mg.tensor(x, dtype=dtype, device=device)),
                F.hardtanh_(mg.tensor(x, dtype=dtype, device=device), 0.0, 6.0)):
        got = out.numpy()
        assert got.dtype == (np.float64 if dtype == mg.float64 else np.float32)
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got[0]) and not np.signbit(got[1]) and not np.signbit(got[4])
    # the forward-mode value is the same op's
    a = mg.tensor(x, dtype=dtype, device=device)
    y, t = mg.func.jvp(lambda v: F.hardtanh(v, 0.0, 6.0), (a,), (mg.ones_like(a),))
    assert np.signbit(y.numpy()[0])
    # torch 2.13's tangent: [0, 0, 1, 0, 0, 1] (hardtanh_backward passes the gradient at NaN)
    np.testing.assert_array_equal(t.numpy(), [0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
