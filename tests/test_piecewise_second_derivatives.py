"""Second derivatives through ``relu``, ``leaky_relu``, ``hardtanh``, ``relu6``, ``rrelu`` (evaluation),
``threshold``, ``hardshrink`` and ``softshrink``: zeros, as PyTorch's, where the engine left the input
unconnected (None, and ``autograd.grad``'s "not used" error).

PyTorch differentiates these by one op of the gradient and the input (``threshold_backward``,
``leaky_relu_backward``, ``hardtanh_backward``, ``hardshrink_backward``, ...) whose derivative in the input
is 0, so a gradient made with ``create_graph=True`` stays on the input's graph.  torch 2.13, on the same
programs: ``x = [0.5, -0.3, 2.0, -1.5]``, ``g = grad(f(x).sum(), x, create_graph=True)``, ``grad(g.sum(), x)``
is ``[0, 0, 0, 0]`` for each; ``clamp`` and ``where`` stay unconnected there too (``g.requires_grad`` False);
``jvp(relu, (x,), (t,))`` with ``x`` requiring grad gives a tangent that requires grad; the Hessian of a ReLU
network with respect to its input requires grad, and a penalty on it can backward.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

X = [0.5, -0.3, 2.0, -1.5]
CONNECTED = {"relu": mg.relu, "leaky_relu": lambda a: F.leaky_relu(a, 0.1), "hardtanh": F.hardtanh,
             "relu6": F.relu6, "rrelu_eval": lambda a: F.rrelu(a, 0.1, 0.3),
             "threshold": lambda a: F.threshold(a, 0.1, 20.0), "hardshrink": lambda a: F.hardshrink(a, 0.4),
             "softshrink": lambda a: F.softshrink(a, 0.4)}


@pytest.mark.parametrize("name", sorted(CONNECTED))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_the_second_derivative_is_zeros_not_unused(name, device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    (g,) = mg.autograd.grad(CONNECTED[name](x).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = mg.autograd.grad(g.sum(), x)
    assert h.tolist() == [0.0] * 4 and h.dtype == dtype
    with mg.no_grad():  # the first derivative is as before
        want = {"relu": [1, 0, 1, 0], "leaky_relu": [1, 0.1, 1, 0.1], "hardtanh": [1, 1, 0, 0],
                "relu6": [1, 0, 1, 0], "rrelu_eval": [1, 0.2, 1, 0.2], "threshold": [1, 0, 1, 0],
                "hardshrink": [1, 0, 1, 1], "softshrink": [1, 0, 1, 1]}[name]
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


def test_a_nan_still_passes_relus_gradient_and_clamp_stays_unconnected():
    x = mg.tensor([float("nan"), -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.relu(x).sum(), x, create_graph=True)
    assert g.tolist() == [1.0, 0.0, 1.0]  # (relu passes the gradient at NaN, as threshold_backward)
    (g,) = mg.autograd.grad(x.clamp(-1, 1).sum(), x, create_graph=True)
    assert not g.requires_grad  # PyTorch's clamp backward is a where: no connection there either


def test_a_gradient_penalty_of_a_relu_network_with_respect_to_its_input():
    mg.manual_seed(0)
    net = mg.nn.Sequential(mg.nn.Linear(3, 8), mg.nn.ReLU(), mg.nn.Linear(8, 8), mg.nn.LeakyReLU(0.2),
                           mg.nn.Linear(8, 1))
    x = mg.randn(5, 3, dtype=mg.float64, requires_grad=True)
    net = net.double()
    (g,) = mg.autograd.grad(net(x).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad((g ** 2).sum(), x)  # the engine raised "input 0 was not used" here
    assert h.shape == (5, 3) and not np.any(h.numpy())  # piecewise linear: no curvature in x


def test_under_the_transforms_and_in_a_checkpoint():
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    out, t = mg.func.jvp(mg.relu, (x,), (mg.ones(4, dtype=mg.float64),))
    assert out.requires_grad and t.requires_grad and t.tolist() == [1.0, 0.0, 1.0, 0.0]  # PyTorch's: on x's graph
    mg.manual_seed(0)
    net = mg.nn.Sequential(mg.nn.Linear(2, 4), mg.nn.ReLU(), mg.nn.Linear(4, 1)).double()
    H = mg.func.hessian(lambda a: net(a).sum())(mg.tensor([0.3, -0.2], dtype=mg.float64))
    assert H.tolist() == [[0.0, 0.0], [0.0, 0.0]] and H.requires_grad
    (H ** 2).sum().backward()  # PyTorch's: a Laplacian penalty on a ReLU network backpropagates (zeros)
    assert net[0].weight.grad is not None and not np.any(net[0].weight.grad.numpy())
    y = mg.checkpoint.checkpoint(lambda a: F.leaky_relu(a * 2, 0.1), x)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert mg.autograd.grad(g.sum(), x)[0].tolist() == [0.0] * 4


def test_a_tape_holding_such_a_gradient_is_stored_by_a_snapshot():
    # KeepConnected is a registered op (with its spec in property_tests/op_db.py): the tape of a gradient
    # made with create_graph through relu encodes and decodes as any other
    from minigrad_ckpt.snapshot.tape_codec import decode_tape, encode_tape

    x = mg.tensor([0.5, -0.3], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.relu(x).sum(), x, create_graph=True)
    tape, arrays = encode_tape((g * x).sum(), {id(x): "x"})
    assert "KeepConnected" in str(tape)
    x2 = mg.tensor([0.5, -0.3], dtype=mg.float64, requires_grad=True)
    decode_tape(tape, arrays, {"x": x2}, x2.device).backward()  # d(relu'(x) x)/dx: relu'(x), its own 0 beside
    assert x2.grad.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, ceil_mode=True)], ids=["plain", "padded", "ceil_mode"])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_max_pooling_keeps_its_input_on_the_gradients_graph(kw, device, dtype):
    # torch 2.13: max_pool2d_with_indices_backward(grad, self, ...) -- a gradient penalty through max pooling
    # differentiates to zeros (the engine's routing was a detached copy: "input 0 was not used")
    x = mg.tensor(np.linspace(-2.0, 2.0, 50).reshape(2, 1, 5, 5)[:, :, ::-1].copy(), dtype=dtype, device=device,
                  requires_grad=True)
    y = F.max_pool2d(x, **kw)
    w = mg.tensor(np.linspace(0.5, 1.5, y.numel()), dtype=dtype, device=device)
    (g,) = mg.autograd.grad((y.flatten() * w).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = mg.autograd.grad((g ** 2).sum(), x)
    assert not np.any(h.numpy())
    assert np.isclose(g.detach().sum().item(), w.sum().item(), rtol=1e-5)  # each window's weight, once


_GATHER_POOLS = {
    "max_pool3d": (lambda a: F.max_pool3d(a, 2), (1, 2, 4, 4, 4)),
    "max_pool3d_padded": (lambda a: F.max_pool3d(a, 3, stride=2, padding=1), (1, 2, 4, 4, 4)),
    "adaptive_max_pool1d": (lambda a: F.adaptive_max_pool1d(a, 3), (2, 3, 8)),
    "adaptive_max_pool2d": (lambda a: F.adaptive_max_pool2d(a, 4), (2, 3, 6, 6)),
    "adaptive_max_pool3d": (lambda a: F.adaptive_max_pool3d(a, 3), (1, 2, 4, 4, 4)),
    "fractional_max_pool2d": (lambda a: F.fractional_max_pool2d(
        a, 2, output_size=3, _random_samples=mg.tensor([[[0.3, 0.6], [0.2, 0.9]]], dtype=a.dtype, device=a.device)),
        (1, 2, 6, 6)),
    "fractional_max_pool3d": (lambda a: F.fractional_max_pool3d(
        a, 2, output_size=3,
        _random_samples=mg.tensor([[[0.3, 0.6, 0.5], [0.2, 0.9, 0.1]]], dtype=a.dtype, device=a.device)),
        (1, 2, 6, 6, 6)),
}


@pytest.mark.parametrize("name", sorted(_GATHER_POOLS))
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_gathering_max_poolings_keep_their_input_on_the_gradients_graph(name, device, dtype):
    # torch 2.13: max_pool3d_with_indices_backward, adaptive_max_pool{2,3}d_backward and
    # fractional_max_pool{2,3}d_backward take the input: g requires grad and the second derivative is zeros
    # (the engine's gather at each window's maximum left x unconnected: g.requires_grad False)
    pool, shape = _GATHER_POOLS[name]
    data = np.random.default_rng(3).permutation(int(np.prod(shape))).reshape(shape) / 10.0  # no ties
    x = mg.tensor(data, dtype=dtype, device=device, requires_grad=True)
    y = pool(x)
    w = mg.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(y.shape), dtype=dtype, device=device)
    (g,) = mg.autograd.grad((y * w).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = mg.autograd.grad((g ** 2).sum(), x)
    assert h.dtype == dtype and h.shape == x.shape and not np.any(h.numpy())
    x2 = mg.tensor(data, dtype=dtype, device=device, requires_grad=True)
    (pool(x2) * w).sum().backward()  # the first derivative is the one without create_graph
    np.testing.assert_array_equal(g.detach().numpy(), x2.grad.numpy())


def test_gathering_max_poolings_under_hessian_and_jacfwd_of_jacrev():
    # torch 2.13: both are zeros (and on x's graph) for a sum of pooled values
    x = mg.tensor(np.random.default_rng(4).permutation(24).reshape(1, 1, 4, 6) / 10.0, dtype=mg.float64,
                  requires_grad=True)
    f = lambda a: (F.adaptive_max_pool2d(a, 2) * 3.0).sum()  # noqa: E731
    H = mg.func.hessian(f)(x)
    assert H.shape == (1, 1, 4, 6) * 2 and not np.any(H.detach().numpy())
    J = mg.func.jacfwd(mg.func.jacrev(lambda a: F.max_pool3d(a, 2).sum()))(x.reshape(1, 1, 2, 2, 6))
    assert J.shape == (1, 1, 2, 2, 6) * 2 and not np.any(J.detach().numpy())
    y = mg.checkpoint.checkpoint(lambda a: F.adaptive_max_pool2d(a * 2, 2), x)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert not np.any(mg.autograd.grad((g ** 2).sum(), x)[0].numpy())


@pytest.mark.parametrize("weight", [[0.25], [0.25, 0.1, 0.3]], ids=["one_slope", "per_channel"])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_prelu_keeps_its_input_on_the_gradients_graph(weight, device, dtype):
    # torch 2.13 (_prelu_kernel_backward takes the input), on these values: gx = [[1, -0.006, 4], [-0.1875, 0, 2]],
    # gw = [1.125, 0.018, 0], and grad((gx ** 2).sum() + gw.sum(), (x, w)) = ([[4, -0.12024, 16], [-1.546875, 0,
    # 8]], [5.0625, 0.18144, 0]) per channel; with a constant weight the second derivative in x is zeros, where
    # the engine's where(x > 0, x, w * x) left x unconnected ("input 0 was not used")
    x = mg.tensor([[0.5, -0.3, 2.0], [-1.5, 0.0, 1.0]], dtype=dtype, device=device, requires_grad=True)
    (g,) = mg.autograd.grad(F.prelu(x, mg.tensor(weight, dtype=dtype, device=device)).sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = mg.autograd.grad((g ** 2).sum(), x)
    assert h.dtype == dtype and not np.any(h.numpy())
    w = mg.tensor([0.25, 0.1, 0.3], dtype=dtype, device=device, requires_grad=True)
    y = F.prelu(x, w)
    gx, gw = mg.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), [[1, -0.006, 4], [-0.1875, 0, 2]], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw.detach().numpy(), [1.125, 0.018, 0], rtol=1e-6, atol=1e-7)
    hx, hw = mg.autograd.grad((gx ** 2).sum() + gw.sum(), (x, w))
    np.testing.assert_allclose(hx.numpy(), [[4, -0.12024, 16], [-1.546875, 0, 8]], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(hw.numpy(), [5.0625, 0.18144, 0], rtol=1e-4, atol=1e-6)


def test_prelu_under_the_transforms():
    # torch 2.13: the Hessian of a PReLU network's sum in its input is zeros, on the graph; jvp's tangent is
    # [1, 0.25] and requires grad
    x = mg.tensor([0.5, -0.3], dtype=mg.float64, requires_grad=True)
    out, t = mg.func.jvp(lambda a: F.prelu(a, mg.tensor(0.25, dtype=mg.float64)), (x,), (mg.ones(2, dtype=mg.float64),))
    assert t.requires_grad and t.tolist() == [1.0, 0.25]
    mg.manual_seed(0)
    net = mg.nn.Sequential(mg.nn.Linear(2, 4), mg.nn.PReLU(), mg.nn.Linear(4, 1)).double()
    H = mg.func.hessian(lambda a: net(a).sum())(mg.tensor([0.3, -0.2], dtype=mg.float64))
    assert H.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    y = mg.checkpoint.checkpoint(lambda a: F.prelu(a * 2, mg.tensor([0.1], dtype=mg.float64)), x)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert mg.autograd.grad(g.sum(), x)[0].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_rrelu_in_training_keeps_its_input_on_the_gradients_graph(device, dtype):
    # torch 2.13: rrelu_with_noise_backward(grad, self, noise, ...) takes the input: g requires grad and
    # grad((g ** 2).sum(), x) is zeros (the engine's where(x > 0, x, x * slopes) left x unconnected)
    x = mg.tensor([0.5, -0.3, 2.0, -1.5, 0.0], dtype=dtype, device=device, requires_grad=True)
    mg.manual_seed(7)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.requires_grad
    (h,) = mg.autograd.grad((g ** 2).sum(), x)
    assert h.dtype == dtype and h.tolist() == [0.0] * 5
    slopes = g.detach().numpy()  # 1 where x > 0, else the drawn slope, in [0.1, 0.3], and y = slope * x
    assert slopes[0] == slopes[2] == 1.0 and np.all((slopes[[1, 3, 4]] >= 0.1) & (slopes[[1, 3, 4]] <= 0.3))
    np.testing.assert_allclose(y.detach().numpy(), slopes * x.detach().numpy(), rtol=1e-6)
    mg.manual_seed(7)
    x2 = mg.tensor([0.5, -0.3, 2.0, -1.5, 0.0], dtype=dtype, device=device, requires_grad=True)
    F.rrelu(x2, 0.1, 0.3, training=True).sum().backward()  # the same draw, the same first derivative
    np.testing.assert_array_equal(x2.grad.numpy(), slopes)
