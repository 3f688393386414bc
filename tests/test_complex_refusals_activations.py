"""Functions implemented for real numbers only refuse complex input with a clear error (as
PyTorch's do) instead of returning a wrong value: relu and leaky_relu and the max pools (no
order: NumPy's lexicographic one is not offered), gelu (the real erf), and the special functions
built on real-line series (erfcx, i0, i0e, i1, i1e, zeta)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional
Z = mg.tensor([1 + 1j, -2 + 0.5j])


@pytest.mark.parametrize("fn", [F.relu, F.leaky_relu, lambda z: z.relu(), lambda z: mg.nn.ReLU()(z),
                                lambda z: mg.nn.LeakyReLU()(z)], ids=["relu", "leaky_relu", "method", "ReLU",
                                                                      "LeakyReLU"])
def test_ordering_activations_refuse_complex(fn):
    with pytest.raises(TypeError, match="complex numbers have no order"):
        fn(Z)


@pytest.mark.parametrize("name, shape", [("max_pool1d", (1, 2, 4)), ("max_pool2d", (1, 2, 4, 4)),
                                         ("max_pool3d", (1, 1, 2, 4, 4)), ("adaptive_max_pool1d", (1, 2, 4)),
                                         ("adaptive_max_pool2d", (1, 2, 4, 4)),
                                         ("adaptive_max_pool3d", (1, 1, 2, 4, 4))])
def test_max_pools_refuse_complex(name, shape):
    z = mg.ones(shape, dtype="complex128") * (1 + 2j)
    args = (2,) if name.startswith("max") else (1,)
    with pytest.raises(TypeError, match=f"{name}: complex numbers have no order"):
        getattr(F, name)(z, *args)


def test_gelu_refuses_complex():
    with pytest.raises(TypeError, match="\"GeluKernelImpl\" not implemented for 'ComplexFloat'"):
        F.gelu(Z)


@pytest.mark.parametrize("name", ["erfcx", "i0", "i0e", "i1", "i1e", "zeta"])
def test_real_line_special_functions_refuse_complex(name):
    with pytest.raises(TypeError, match=f"special.{name}: implemented for real arguments only"):
        getattr(mg.special, name)(Z)


def test_real_input_is_unchanged():
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    F.relu(x).sum().backward()
    assert F.relu(x).numpy().tolist() == [0.0, 2.0] and x.grad.numpy().tolist() == [0.0, 1.0]
    assert float(mg.special.zeta(2.0).numpy()) == pytest.approx(1.6449340668482264)


@pytest.mark.parametrize("name, fn", [("softmax", lambda z: F.softmax(z, dim=1)),
                                      ("log_softmax", lambda z: F.log_softmax(z, dim=1)),
                                      ("softmin", lambda z: F.softmin(z, dim=1)),
                                      ("softmax", lambda z: z.softmax(1)), ("log_softmax", lambda z: z.log_softmax(1)),
                                      ("softmax", lambda z: mg.nn.Softmax(1)(z)),
                                      ("log_softmax", lambda z: mg.nn.LogSoftmax(1)(z))],
                         ids=["F.softmax", "F.log_softmax", "F.softmin", "method", "log method", "Softmax",
                              "LogSoftmax"])
def test_softmax_and_its_kin_refuse_complex_everywhere(name, fn):
    # mg.softmax refused complex input as PyTorch's does; F.softmax, F.log_softmax, F.softmin, the
    # methods and the modules answered (torch: "softmax_lastdim_kernel_impl" not implemented for ComplexFloat)
    with pytest.raises(TypeError, match=f"{name}: complex input is not supported"):
        fn(mg.tensor([[1 + 1j, -2 + 0.5j]]))


@pytest.mark.parametrize("fn", [lambda z: F.cosine_similarity(z, z), lambda z: mg.nn.CosineSimilarity()(z, z),
                                lambda z: F.cosine_similarity(z.real, z)], ids=["F", "module", "mixed"])
def test_cosine_similarity_refuses_complex(fn):
    # torch: "expected common dtype to be floating point, yet common dtype is ComplexFloat"; it answered
    # sum(z * z) / |z|^2 (no conjugate): the similarity of [1+1j, 2j] with itself was -0.67+0.33j, not 1
    with pytest.raises(TypeError, match="cosine_similarity: expected real input"):
        fn(mg.tensor([[1 + 1j, 2j]]))


@pytest.mark.parametrize("name, fn", [("layer_norm", lambda z: F.layer_norm(z, (4,))),
                                      ("batch_norm", lambda z: F.batch_norm(z, None, None, training=True)),
                                      ("group_norm", lambda z: F.group_norm(z, 1)),
                                      ("instance_norm", lambda z: F.instance_norm(z)),
                                      ("local_response_norm", lambda z: F.local_response_norm(z, 2)),
                                      ("layer_norm", lambda z: mg.nn.LayerNorm(4, dtype="complex64")(z))])
def test_normalizations_refuse_complex(name, fn):
    # torch: "LayerNormKernelImpl" / "batch_norm" / "GroupNormKernelImpl" not implemented for ComplexFloat;
    # they answered with the variance mean((z - mean) ** 2) (no modulus): rows of layer_norm(z) had
    # mean |y|^2 of 1.2 to 2.2, not 1
    z = mg.tensor(np.ones((2, 3, 4), "complex64") * (1 + 1j))
    with pytest.raises(TypeError, match=f"{name}: complex input is not supported"):
        fn(z)


Q = np.array([[1 + 1j, -2 + 0.5j, 0.5j], [0.3 - 1j, 1.0, -1j]])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name, fn", [
    ("mse_loss", lambda z: F.mse_loss(z, z.flip(0))),
    ("mse_loss", lambda z: F.mse_loss(z, z.flip(0), weight=mg.ones(2, 3))),
    ("mse_loss", lambda z: mg.nn.MSELoss()(z, z.flip(0))),
    ("mse_loss", lambda z: F.mse_loss(z.real, z)),  # a complex target
    ("huber_loss", lambda z: F.huber_loss(z, z.flip(0))),
    ("huber_loss", lambda z: mg.nn.HuberLoss()(z, z.flip(0))),
    ("smooth_l1_loss", lambda z: F.smooth_l1_loss(z, z.flip(0))),
    ("kl_div", lambda z: F.kl_div(z, z.flip(0))),
    ("kl_div", lambda z: F.kl_div(z, z.flip(0), log_target=True)),
    ("nll_loss", lambda z: F.nll_loss(z, mg.tensor([0, 2]))),
    ("nll_loss", lambda z: mg.nn.NLLLoss()(z, mg.tensor([0, 2]))),
    ("attention", lambda z: F.scaled_dot_product_attention(z[None], z[None], z[None])),
    ("attention", lambda z: F.scaled_dot_product_attention(z[None], z[None], z[None], is_causal=True)),
    ("attention", lambda z: F.scaled_dot_product_attention(z[None], z[None], z[None],
                                                           attn_mask=mg.tensor([[True, False], [True, True]]))),
    # logaddexp takes complex numbers (as PyTorch's); the log-probabilities built on it do not
    ("logsigmoid", lambda z: F.logsigmoid(z)), ("logsigmoid", lambda z: mg.nn.LogSigmoid()(z)),
    ("logsigmoid", lambda z: F.multilabel_soft_margin_loss(z, z.real > 0)),
    ("binary_cross_entropy_with_logits", lambda z: F.binary_cross_entropy_with_logits(z, z.real > 0)),
    ("lp_pool1d", lambda z: F.lp_pool1d(z[None], 2, 2)),
    ("lp_pool2d", lambda z: F.lp_pool2d(z[None, None], 3, 2)),
])
def test_losses_and_attention_refuse_complex(name, fn, dtype):
    # torch: "mse_cpu" / "huber_cpu" / "smooth_l1_cpu" / "nll_loss_out_frame" / "softmax_lastdim_kernel_impl" /
    # "avg_pool2d" not implemented for ComplexFloat, "kl_div: Complex inputs not supported". They answered
    # with a complex "loss" (mse_loss: mean((x - y) ** 2), no modulus: the mse of [1+1j] and [0] was 2j), a
    # softmax over complex scores, and a complex lp-norm
    z = mg.tensor(Q, dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"{name}: complex") as caught:
        fn(z)
    assert isinstance(caught.value, TypeError)


def test_what_has_a_complex_meaning_still_takes_complex():
    z = mg.tensor(Q, requires_grad=True)
    np.testing.assert_allclose(F.l1_loss(z, z.flip(0) * 0).numpy(), np.abs(Q).mean())  # |d|, as PyTorch's
    np.testing.assert_allclose(F.lp_pool1d(z[None], float("inf"), 3).numpy(), np.abs(Q).max(1)[None, :, None])
    # the squared distance of complex numbers, as the message says
    loss = (mg.abs(z - z.flip(0)) ** 2).mean()
    loss.backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * 2 * (Q - Q[::-1]) / Q.size)
    x = mg.tensor(Q.real)
    np.testing.assert_allclose(F.mse_loss(x, x.flip(0)).numpy(), ((Q.real - Q.real[::-1]) ** 2).mean())


@pytest.mark.parametrize("device, dtype", [("cpu", "complex128"), ("cpu", "complex64"), ("strict", "complex128"),
                                           ("strict-f32", "complex64")])
@pytest.mark.parametrize("name, fn", [("hardtanh", F.hardtanh), ("hardtanh", lambda z: F.hardtanh(z, inplace=True)),
                                      ("hardtanh", F.hardtanh_), ("hardtanh", lambda z: mg.nn.Hardtanh()(z)),
                                      ("relu6", F.relu6), ("relu6", lambda z: F.relu6(z, inplace=True)),
                                      ("relu6", lambda z: mg.nn.ReLU6()(z))],
                         ids=["hardtanh", "hardtanh-inplace", "hardtanh_", "Hardtanh", "relu6", "relu6-inplace",
                              "ReLU6"])
def test_clamping_activations_refuse_complex(name, fn, device, dtype):
    # torch 2.13: F.hardtanh and F.relu6 of a complex tensor -> NotImplementedError "clamp is not supported for
    # complex types"; they answered NumPy's lexicographic clip: hardtanh([2+3j, -3-1j]) was [1+0j, -1+0j]
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    z = mg.tensor([2 + 3j, -0.5 + 0.2j, -3 - 1j], dtype=dtype, device=device)
    before = z.numpy().copy()
    with pytest.raises(TypeError, match=f"{name}: complex numbers have no order"):
        fn(z)
    np.testing.assert_array_equal(z.numpy(), before)  # an in-place form wrote nothing


#: functions whose PyTorch kernel has no complex version (torch 2.13: '"hardswish_cpu" not implemented for
#: 'ComplexFloat''), by the kernel PyTorch names.  They answered: hardswish, prelu and rrelu's training slopes
#: by comparing real parts (prelu([-2+0.5j]) was -0.5+0.125j), glu and the average pools with a value, mish
#: and binary_cross_entropy with a leaked NumPy/Python error, elu, softplus and the shrinks naming a
#: comparison inside them (less_equal) rather than themselves
KERNELS_WITHOUT_COMPLEX = [
    ("hardswish_cpu", lambda z: F.hardswish(z)), ("hardswish_cpu", lambda z: F.hardswish(z, inplace=True)),
    ("hardswish_cpu", lambda z: mg.nn.Hardswish()(z)),
    ("prelu_cpu", lambda z: F.prelu(z, mg.tensor([0.25], dtype=z.dtype, device=z.device))),
    ("prelu_cpu", lambda z: mg.nn.PReLU(dtype=z.dtype).to(z.device)(z)),
    ("glu_cpu", lambda z: F.glu(z, dim=-1)), ("glu_cpu", lambda z: mg.nn.GLU()(z)),
    ("mish_cpu", lambda z: F.mish(z)), ("mish_cpu", lambda z: mg.nn.Mish()(z)),
    ("softplus_cpu", lambda z: F.softplus(z)), ("softplus_cpu", lambda z: F.softplus(z, beta=2.0)),
    ("elu_cpu", lambda z: F.elu(z)), ("elu_cpu", lambda z: F.elu_(z)), ("elu_cpu", lambda z: F.selu(z)),
    ("elu_cpu", lambda z: F.celu(z)), ("elu_cpu", lambda z: mg.nn.ELU()(z)),
    ("hardsigmoid_cpu", lambda z: F.hardsigmoid(z)), ("hardsigmoid_cpu", lambda z: mg.nn.Hardsigmoid()(z)),
    ("hardshrink_cpu", lambda z: F.hardshrink(z)), ("softshrink_check", lambda z: F.softshrink(z)),
    ("threshold_cpu", lambda z: F.threshold(z, 0.1, 0.0)), ("threshold_cpu", lambda z: F.threshold_(z, 0.1, 0.0)),
    ("binary_cross_entropy", lambda z: F.binary_cross_entropy(z, z)),
    ("avg_pool2d", lambda z: F.avg_pool1d(z, 2)), ("avg_pool2d", lambda z: F.avg_pool2d(z[None], 2)),
    ("avg_pool2d", lambda z: mg.nn.AvgPool1d(2)(z)),
    ("avg_pool3d_out_frame", lambda z: F.avg_pool3d(z[None, None], 2)),
    ("adaptive_avg_pool2d", lambda z: F.adaptive_avg_pool1d(z, 2)),
    ("adaptive_avg_pool2d", lambda z: F.adaptive_avg_pool2d(z[None], 2)),
    ("adaptive_avg_pool3d_cpu", lambda z: F.adaptive_avg_pool3d(z[None, None], 2)),
]


@pytest.mark.parametrize("device, dtype", [("cpu", "complex64"), ("cpu", "complex128"), ("strict", "complex128"),
                                           ("strict-f32", "complex64")])
@pytest.mark.parametrize("case", range(len(KERNELS_WITHOUT_COMPLEX)))
def test_functions_without_a_complex_kernel_refuse_complex_as_pytorchs(case, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    kernel, fn = KERNELS_WITHOUT_COMPLEX[case]
    name = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}[dtype]
    z = mg.tensor(np.array([[1 + 1j, -2 + 0.5j, -3.5 - 1j, 4 + 2j]] * 2), dtype=dtype, device=device)
    before = z.numpy().copy()
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for '{name}'") as caught:
        fn(z)
    assert isinstance(caught.value, TypeError)
    np.testing.assert_array_equal(z.numpy(), before)  # an in-place form wrote nothing


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("training", [False, True])
def test_rrelu_refuses_complex_in_training_too(training, inplace):
    # in training it drew slopes and answered slope * z where Re(z) < 0 (an order of the real parts)
    z = mg.tensor([1 + 1j, -2 + 0.5j])
    with pytest.raises(TypeError, match="rrelu: complex numbers have no order"):
        F.rrelu(z, training=training, inplace=inplace)
    np.testing.assert_array_equal(z.numpy(), np.array([1 + 1j, -2 + 0.5j], dtype=np.complex64))


@pytest.mark.parametrize("name, fn, axes", [
    ("adaptive_avg_pool1d", lambda z: F.adaptive_avg_pool1d(z[0], 1), (-1,)),
    ("adaptive_avg_pool2d", lambda z: F.adaptive_avg_pool2d(z, 1), (-2, -1)),
    ("adaptive_avg_pool2d pair", lambda z: mg.nn.AdaptiveAvgPool2d((1, 1))(z), (-2, -1)),
    ("adaptive_avg_pool3d", lambda z: F.adaptive_avg_pool3d(z[None], 1), (-3, -2, -1)),
    ("adaptive_avg_pool3d triple", lambda z: F.adaptive_avg_pool3d(z[None], (1, 1, 1)), (-3, -2, -1)),
])
def test_a_global_adaptive_average_of_complex_numbers_is_their_mean(name, fn, axes):
    # torch 2.13 computes an output of ones as a mean, which takes complex numbers (its pool kernels do
    # not); adaptive_avg_pool3d refused it with interpolate's error ("expected a floating input")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 2, 3, 4)) + 1j * rng.standard_normal((1, 2, 3, 4))
    z = mg.tensor(a, requires_grad=True)
    out = fn(z)
    source = a[0] if name == "adaptive_avg_pool1d" else a[None] if "3d" in name else a
    want = source.mean(axis=axes, keepdims=True)
    assert out.dtype == mg.complex128 and out.shape == want.shape
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-14)
    (out * (2 - 1j)).real.sum().backward()  # d/dz of Re((2 - i) mean z) is (2 + i) / n in the convention
    n = np.prod([source.shape[ax] for ax in axes])
    np.testing.assert_allclose(z.grad.numpy(), np.full(a.shape, (2 + 1j) / n))
