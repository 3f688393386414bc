"""PyTorch's names a ported program calls (``torch.amax``, ``torch.addmm``, ``F.relu6``,
``F.lp_pool2d``, ``nn.Bilinear``...): values against PyTorch, derivatives of both modes and
second order against central differences, float32 in and out, the strict stand-in device.

Each call is written once, over a namespace ``T`` (``mg`` here) and its ``F``, so the same
expression ran offline with ``T = torch``, ``F = torch.nn.functional`` (torch 2.13, float64) to
make ``EXPECTED``: for each call, ``[out.sum(), (out.ravel() * cos(arange(out.numel()))).sum()]``
and the same two numbers for the gradient of that weighted sum with respect to ``x``.  ``x`` is
the (4, 5) float64 array of :func:`_array`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as MF
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)


def _array() -> np.ndarray:
    # values away from every kink of these functions (0, 0.3, -1, 2 for relu6's 6 at 3x)
    rng = np.random.default_rng(11)
    return rng.uniform(0.6, 2.5, (4, 5)) * np.where(rng.random((4, 5)) < 0.5, -1, 1)


def _b3(T, x, shape):  # noqa: N803  (T: the namespace, mg or torch)
    return T.reshape(x, shape)


# every call takes the namespace T, its nn.functional F and one (4, 5) tensor x
CALLS = {
    "amax": lambda T, F, x: T.amax(x, 1),
    "amax_every_dim": lambda T, F, x: T.amax(x, dim=()),
    "amin_keepdim": lambda T, F, x: T.amin(x, (0, 1), keepdim=True),
    "norm_default": lambda T, F, x: T.norm(x),
    "norm_p3_dim": lambda T, F, x: T.norm(x, 3, dim=1),
    "norm_nuc": lambda T, F, x: T.norm(x, "nuc"),
    "norm_inf_keepdim": lambda T, F, x: T.norm(x, float("inf"), dim=0, keepdim=True),
    "norm_fro_dim": lambda T, F, x: T.norm(x, "fro", dim=1),
    "addmm": lambda T, F, x: T.addmm(x[:, :3], x, x.T[:, :3], beta=0.5, alpha=2.0),
    "addmm_beta0": lambda T, F, x: T.addmm(x[:, :3], x, x.T[:, :3], beta=0),
    "addmv": lambda T, F, x: T.addmv(x[:, 0], x, x[0], beta=2.0, alpha=-1.0),
    "addr": lambda T, F, x: T.addr(x, x[:, 0], x[0], alpha=0.5),
    "baddbmm": lambda T, F, x: T.baddbmm(_b3(T, x[:, :2], (2, 2, 2)), _b3(T, x, (2, 2, 5)), _b3(T, x, (2, 5, 2)),
                                         beta=1.5, alpha=0.3),
    "addbmm": lambda T, F, x: T.addbmm(x[:2, :2], _b3(T, x, (2, 2, 5)), _b3(T, x, (2, 5, 2))),
    "addcmul": lambda T, F, x: T.addcmul(x, T.roll(x, 1, 0), T.roll(x, 2, 1), value=0.7),
    "addcdiv": lambda T, F, x: T.addcdiv(x, T.roll(x, 1, 0), T.roll(x, 2, 1), value=-0.3),
    "vander": lambda T, F, x: T.vander(x[0], N=4),
    "vander_increasing": lambda T, F, x: T.vander(x[1], increasing=True),
    "lgamma": lambda T, F, x: T.lgamma(x),
    "digamma": lambda T, F, x: T.digamma(x),
    "erfinv": lambda T, F, x: T.erfinv(x * 0.35),
    "polygamma": lambda T, F, x: T.polygamma(2, T.abs(x)),
    "mvlgamma": lambda T, F, x: T.mvlgamma(T.abs(x) + 1, 3),
    "i0": lambda T, F, x: T.i0(x),
    "clamp_min": lambda T, F, x: T.clamp_min(x, 0.3),
    "clamp_max": lambda T, F, x: T.clamp_max(x, -1.0),
    "msort": lambda T, F, x: T.msort(x),
    "relu6": lambda T, F, x: F.relu6(x * 3),
    "bilinear": lambda T, F, x: F.bilinear(x[:, :2], x[:, 2:], _b3(T, x[:, :3] * 0.5, (2, 2, 3)), x[0, :2]),
    "lp_pool1d": lambda T, F, x: F.lp_pool1d(x[None], 2, 2),
    "lp_pool2d_p3": lambda T, F, x: F.lp_pool2d(T.abs(x)[None, None], 3, 2, stride=1),
    "lp_pool2d_inf": lambda T, F, x: F.lp_pool2d(x[None, None], float("inf"), 2, ceil_mode=True),
    "lp_pool3d": lambda T, F, x: F.lp_pool3d(_b3(T, x, (1, 1, 2, 2, 5)), 2, (1, 2, 2)),
    "channel_shuffle": lambda T, F, x: F.channel_shuffle(_b3(T, x, (1, 4, 5, 1)), 2),
}


def _call(name, x):
    return CALLS[name](mg, MF, x)


def _summary(out):
    """The two numbers the fixtures hold: the sum and a cosine-weighted sum."""
    flat = np.asarray(out, dtype=np.float64).ravel()
    return [flat.sum(), (flat * np.cos(np.arange(flat.size))).sum()]


def _weighted(out):
    w = mg.tensor(np.cos(np.arange(out.size)).reshape(out.shape).astype(out.dtype), device=out.device)
    return (out * w).sum()


# made offline: for each name, x = torch.tensor(_array(), requires_grad=True); out = CALLS[name](torch, F, x);
# [*_summary(out), *_summary(torch.autograd.grad(weighted(out), x)[0])]; torch.vander's own backward fails
# (an in-place cumprod), so its gradients are those of the same matrix written as powers, v[:, None] ** k
EXPECTED = {
    "addbmm": [17.97491220519042, -4.1083776643109156, -5.149488732676834, -10.818799050733643],
    "addcdiv": [-4.003667747417595, 1.6886124892746606, 2.2191013906858714, 11.20290821064706],
    "addcmul": [3.6331555933313564, 8.65945573703447, 0.08815301174080847, 13.341604901308367],
    "addmm": [77.06363525328818, -2.6988291797660118, -18.116240187501838, -4.903449973335443],
    "addmm_beta0": [39.28541048233798, -0.306988906121124, -8.954864581633952, -2.7867078840729285],
    "addmv": [-3.0831627259712633, -8.447370422429838, -3.977362771883385, -0.4283714344388758],
    "addr": [-3.1128511741148053, 5.1428180702352, 1.9845724568067062, 17.9283489149743],
    "amax": [7.419556919027249, 0.44292386966204145, 0.134162972720552, -1.5261005342947587],
    "amax_every_dim": [2.4018240612543726, 2.4018240612543726, 1.0, -0.14550003380861354],
    "amin_keepdim": [-2.0972752295575843, -2.0972752295575843, 1.0, -0.7596879128588213],
    "baddbmm": [1.8585452718120123, -0.6838231064640867, -0.5828939857743614, -2.2423769845705386],
    "bilinear": [-3.4934922237909802, 5.504259536404339, 12.20769842816892, 4.517917987136784],
    "channel_shuffle": [-3.160191235449942, -1.4597636185177678, 1.1315265051196133, 6.147549156764905],
    "clamp_max": [-25.376380987272704, -0.8355143798741376, -0.40776646109619574, 4.1686124668014815],
    "clamp_min": [16.947696861566815, 1.4375429173571388, 2.0860215788216667, 4.019770790576065],
    "digamma": [-13.439980697905352, -12.215956867114397, -88.53792803975038, 211.41160363431302],
    "erfinv": [-0.6973262087238405, 0.975841085783283, 0.34489408404340655, 4.336148293980625],
    "i0": [35.81007252053019, 1.039951604816596, 1.8595192515510361, -2.23637966044236],
    "lgamma": [16.328211794504817, -1.6638376547093832, -12.215956867114397, -7.23716668392632],
    "lp_pool1d": [18.337715209449655, 3.21120271371826, -0.7089341927107861, -0.08836612251843784],
    "lp_pool2d_inf": [12.439321299945185, -0.09675704626701659, 2.0091358326888895, -1.6382710448272408],
    "lp_pool2d_p3": [31.646871612264714, -1.6256225893472183, 0.9987393111250085, -0.4510131145489674],
    "lp_pool3d": [13.106912343329466, -0.10670270876652932, 1.46364508477463, -0.45375218224848424],
    "msort": [-3.1601912354499415, -3.569742910648094, 1.1315265051196133, 0.6740547062808219],
    "mvlgamma": [43.92544291154147, 1.4575801772661539, -1.7084839357990647, -1.1757558452171302],
    "norm_default": [7.104812292239762, 7.104812292239762, -0.4447958799561338, 0.39819060133542894],
    "norm_fro_dim": [13.996061526547136, -0.5996458912868556, 1.1406488832265977, 0.3795009776545525],
    "norm_inf_keepdim": [10.28009055076884, -0.9401322025453169, 1.6201002666784485, -0.3341068262887462],
    "norm_nuc": [13.09134626195259, 13.09134626195259, -1.5507157566013041, -0.02220991351852264],
    "norm_p3_dim": [11.11070193738945, -0.28634459181894734, 1.0938028406816775, -0.06679460546055482],
    "polygamma": [-37.15788125912157, -3.332789843939187, 44.04043548226723, -38.20148713734092],
    "relu6": [37.29141788503617, 4.736944346661883, 3.862628156768921, 10.446354420269058],
    "vander": [13.073590105535647, -2.8240391412980834, -8.379098101645248, 3.0365649835597197],
    "vander_increasing": [120.86481637732373, 9.549067694045775, 4.52303282408424, -9.772953288128484],
}


# PyTorch's own series for these (trigamma, ...) agree with the engine's to about 1e-11, not to round-off
SERIES = {"digamma", "polygamma", "lgamma", "erfinv", "i0", "mvlgamma"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_gradients_are_pytorchs(name):
    x = mg.tensor(_array(), requires_grad=True)
    out = _call(name, x)
    (g,) = mg.grad(_weighted(out), [x])
    tol = 1e-9 if name in SERIES else 1e-12
    np.testing.assert_allclose(_summary(out.numpy()) + _summary(g.numpy()), EXPECTED[name], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_derivatives_both_modes_and_second_order(name):
    x = mg.tensor(_array(), requires_grad=True)
    assert gradcheck(lambda t: _call(name, t), x, modes=("rev", "fwd"))
    assert gradgradcheck(lambda t: _call(name, t), x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_stays_float32(name):
    x = mg.tensor(_array().astype("float32"), requires_grad=True)
    out = _call(name, x)
    assert out.dtype == np.float32, out.dtype
    (g,) = mg.grad(out.sum(), [x])
    assert g.dtype == np.float32 and np.isfinite(g.numpy()).all()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strict_device_matches_the_cpu(name):
    x = mg.tensor(_array(), requires_grad=True)
    xs = mg.tensor(_array(), device="strict", requires_grad=True)
    out, outs = _call(name, x), _call(name, xs)
    assert str(outs.device) == "strict:0"
    np.testing.assert_allclose(outs.numpy(), out.numpy(), rtol=1e-14, atol=1e-14)
    (g,), (gs,) = mg.grad(out.sum(), [x]), mg.grad(outs.sum(), [xs])
    np.testing.assert_allclose(gs.numpy(), g.numpy(), rtol=1e-14, atol=1e-14)


def test_isclose_calls_equal_infinities_close_as_pytorch():
    # torch.isclose(a, b) (and equal_nan=True, rtol=0.2, atol=0) of these float64 tensors, made offline
    a = mg.tensor([math.inf, -math.inf, math.nan, 1.0, 1e-9, 100.0, 1.0])
    b = mg.tensor([math.inf, math.inf, math.nan, 1 + 1e-6, 0.0, 100.001, 1.1])
    assert mg.isclose(a, b).numpy().tolist() == [True, False, False, True, True, True, False]
    assert a.isclose(b, equal_nan=True).numpy().tolist() == [True, False, True, True, True, True, False]
    assert mg.isclose(a, b, rtol=0.2, atol=0).numpy().tolist() == [True, False, False, True, False, True, True]
    assert mg.allclose(mg.ones(2), 1.0) is True and mg.allclose(a[:1], mg.tensor([math.inf])) is True


def test_isclose_measures_integers_exactly_as_pytorch():
    # torch.isclose / torch.allclose of these tensors (torch 2.13): the difference of two int32
    # near the limits wraps in int32 (to -1), which looked close
    i32 = mg.int32
    big, small = mg.tensor([2**31 - 1], dtype=i32), mg.tensor([-2**31], dtype=i32)
    assert mg.isclose(big, small).tolist() == [False] and mg.isclose(small, big).tolist() == [False]
    assert mg.allclose(big, small) is False
    a = mg.tensor([2**31 - 1, -2**31, 5, 100], dtype=i32)
    b = mg.tensor([-2**31, 2**31 - 1, 6, 100], dtype=i32)
    assert mg.isclose(a, b, rtol=0.5, atol=3).tolist() == [False, False, True, True]
    assert mg.isclose(mg.tensor([2**63 - 1]), mg.tensor([-2**63])).tolist() == [False]  # int64
    assert mg.isclose(mg.tensor([2**62]), mg.tensor([2**62 + 1000])).tolist() == [True]
    # uint8: torch.isclose(u, v), (atol=1), (rtol=0.01); 250 - 251 wraps to 255 in uint8
    u = mg.tensor([0, 255, 3, 250], dtype=mg.uint8)
    v = mg.tensor([255, 0, 2, 251], dtype=mg.uint8)
    assert mg.isclose(u, v).tolist() == [False, False, False, False]
    assert mg.isclose(u, v, atol=1).tolist() == [False, False, True, True]
    assert mg.isclose(u, v, rtol=0.01).tolist() == [False, False, False, True]
    # bools are measured as floats: torch.isclose(tensor([True, False]), tensor([False, False]))
    assert mg.isclose(mg.tensor([True, False]), mg.tensor([False, False])).tolist() == [False, True]


def test_reductions_take_pytorchs_dims():
    x = mg.tensor([[1.0, 0.0], [2.0, 3.0]])
    assert mg.all(x, dim=1).numpy().tolist() == [False, True]
    assert mg.any(x * 0 + mg.tensor([[1.0, 0.0], [0.0, 0.0]]), dim=0, keepdim=True).numpy().tolist() == [[True, False]]
    assert mg.all(x).item() is False
    # torch.amax(x, dim=()) reduces every dim (it gave x itself before)
    assert x.amax(dim=()).item() == 3.0 and mg.amin(x, []).item() == 0.0


def test_fused_products_ignore_input_at_beta_zero_and_check_ranks():
    out = mg.addmm(mg.tensor([[math.nan]]), mg.ones(1, 2), mg.ones(2, 1), beta=0)  # torch: tensor([[2.]])
    assert out.numpy().tolist() == [[2.0]]
    with pytest.raises(ValueError, match="2-D"):
        mg.addmm(mg.ones(2, 2), mg.ones(2), mg.ones(2, 2))
    y = mg.zeros(2, 2)
    assert y.addmm_(mg.ones(2, 3), mg.ones(3, 2), alpha=2) is y and y.numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]


def test_tensor_methods_are_the_functions():
    x = mg.tensor(_array())
    assert np.array_equal(x.norm(p="nuc").numpy(), mg.norm(x, "nuc").numpy())
    assert np.array_equal(x.addcdiv(x, x + 5, value=2).numpy(), mg.addcdiv(x, x, x + 5, value=2).numpy())
    assert np.array_equal(x.msort().numpy(), np.sort(_array(), axis=0))
    assert np.array_equal(x.clamp_min(0.5).numpy(), np.maximum(_array(), 0.5))


@pytest.mark.parametrize("mode, numpy_mode", [("Reflection", "reflect"), ("Replication", "edge"),
                                              ("Circular", "wrap"), ("Zero", "constant")])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_padding_layers_are_numpys_pads(mode, numpy_mode, d):
    x = np.arange(2 * 3 * 4 * 5.0).reshape(1, 2, 3, 4, 5)[(0,) * (3 - d)]
    padding = (1, 2, 2, 0, 1, 1)[:2 * d]
    layer = getattr(mg.nn, f"{mode}Pad{d}d")(padding)
    widths = [(0, 0)] * (x.ndim - d) + [tuple(padding[2 * i:2 * i + 2]) for i in reversed(range(d))]
    assert np.array_equal(layer(mg.tensor(x)).numpy(), np.pad(x, widths, mode=numpy_mode))
    constant = getattr(mg.nn, f"ConstantPad{d}d")(padding, 2.5)(mg.tensor(x)).numpy()
    assert np.array_equal(constant, np.pad(x, widths, constant_values=2.5))


def test_layers_call_their_functions():
    x = mg.tensor(_array()[None, None], requires_grad=True)
    assert np.array_equal(mg.nn.ReLU6()(x * 3).numpy(), np.clip(_array() * 3, 0, 6)[None, None])
    assert np.array_equal(mg.nn.LPPool2d(2, 2)(x).numpy(), MF.lp_pool2d(x, 2, 2).numpy())
    assert np.array_equal(mg.nn.LPPool1d(2, 3, 1)(x[0]).numpy(), MF.lp_pool1d(x[0], 2, 3, 1).numpy())
    assert mg.nn.LPPool3d(1, 1)(x).shape == x.shape
    c = mg.tensor(np.arange(24.0).reshape(1, 6, 2, 2))
    assert mg.nn.ChannelShuffle(3)(c)[0, :, 0, 0].numpy().tolist() == [0, 8, 16, 4, 12, 20]  # torch's order
    s = mg.nn.Softmax2d()(c * 0.1)
    np.testing.assert_allclose(s.numpy().sum(axis=1), 1.0, rtol=1e-12)
    mg.manual_seed(0)
    layer = mg.nn.Bilinear(2, 3, 4)
    assert layer.weight.shape == (4, 2, 3) and float(mg.abs(layer.weight).max().item()) <= 1 / math.sqrt(2)
    a, b = mg.randn(5, 2), mg.randn(5, 3)
    np.testing.assert_allclose(layer(a, b).numpy(), np.einsum("ni,oij,nj->no", a.numpy(), layer.weight.numpy(),
                                                              b.numpy()) + layer.bias.numpy(), rtol=1e-6)
    assert repr(layer) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"
    assert mg.nn.BatchNorm3d(2)(mg.randn(2, 2, 2, 2, 3)).shape == (2, 2, 2, 2, 3)
    assert mg.nn.InstanceNorm3d(2)(mg.randn(2, 2, 2, 3)).shape == (2, 2, 2, 3)


def test_feature_alpha_dropout_keeps_selu_statistics_drops_channels_and_replays():
    mg.manual_seed(3)
    x = mg.tensor(np.random.default_rng(0).standard_normal((400, 50, 3)))
    y = MF.feature_alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    alpha, p = 1.7580993408473766, 0.2
    a = 1 / math.sqrt((alpha ** 2 * p + 1) * (1 - p))
    kept = np.isclose(y, a * x.numpy() + alpha * a * p).all(axis=-1)
    dropped = np.isclose(y, -alpha * a * (1 - p)).all(axis=-1)
    assert (kept ^ dropped).all() and abs(dropped.mean() - p) < 0.02  # whole (N, C) channels, PyTorch's map
    assert np.array_equal(mg.nn.FeatureAlphaDropout(0.3).eval()(x).numpy(), x.numpy())
    assert mg.nn.FeatureAlphaDropout(0.3, inplace=True).inplace

    w = mg.tensor(np.ones((4, 3, 2)), requires_grad=True)

    def block(t):
        return MF.feature_alpha_dropout(t * 2, 0.5, training=True).sum(axis=2)

    mg.manual_seed(5)
    out = mg.checkpoint.checkpoint(block, w)
    out.backward(mg.ones_like(out))
    mg.manual_seed(5)
    expected = block(w).numpy()
    np.testing.assert_array_equal(out.numpy(), expected)


def test_top_level_names_of_tensor_methods_are_the_methods():
    x = mg.tensor(_array())
    sq = x[:, :4]
    pairs = [(mg.mm(sq, sq.T), sq.mm(sq.T)), (mg.mv(sq, x[0, :4]), sq.mv(x[0, :4])),
             (mg.bmm(x[None], x.T[None]), x[None].bmm(x.T[None])), (mg.det(sq), sq.det()),
             (mg.inverse(sq), sq.inverse()), (mg.logdet(sq @ sq.T), (sq @ sq.T).logdet()),
             (mg.matrix_power(sq, 3), sq.matrix_power(3)), (mg.fliplr(x), x.fliplr()), (mg.flipud(x), x.flipud()),
             (mg.swapdims(x, 0, 1), x.swapdims(0, 1)), (mg.select(x, 1, 2), x.select(1, 2)),
             (mg.sgn(x), x.sgn()), (mg.fix(x), x.fix()), (mg.erfc(x), mg.special.erfc(x)),
             (mg.float_power(x, 2), x.float_power(2)), (mg.softmax(x, 1), x.softmax(1)), (mg.relu(x), x.relu())]
    for a, b in pairs:
        assert np.array_equal(a.numpy(), b.numpy())
    # made offline with torch 2.13, x = torch.tensor([[1., 2.], [3., 5.]]) (float32)
    y = mg.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert math.isnan(mg.logdet(y).item()) and mg.logdet(mg.tensor([[2.0, 1.0], [1.0, 3.0]])).item() == \
        pytest.approx(1.6094379425048828, rel=1e-7)
    assert mg.dist(y, 2 * y, 1).item() == 11.0
    assert mg.repeat_interleave(mg.tensor([1, 2]), mg.tensor([2, 1])).tolist() == [1, 1, 2]
    assert mg.take_along_dim(y, mg.tensor([3, 0])).tolist() == [5.0, 1.0]
    assert mg.isin(y, mg.tensor([2.0, 5.0])).tolist() == [[False, True], [False, True]]
    assert mg.isreal(mg.tensor([1 + 1j, 2])).tolist() == [False, True]
    assert [t.tolist() for t in mg.unravel_index(mg.tensor([3, 1, -1]), (2, 2))] == [[1, 0, 1], [1, 1, 1]]
    assert mg.softmax(y, 1, dtype="float64").dtype == np.float64
    assert mg.is_tensor(y) and not mg.is_tensor(y.numpy()) and mg.is_floating_point(y) and mg.is_nonzero(y[0, 0])
    assert mg.broadcast_shapes((2, 1), (3,)) == (2, 3) and mg.finfo().eps == np.finfo(np.float32).eps
    assert mg.iinfo(mg.int32).max == 2**31 - 1


def test_creation_names():
    # torch.logspace(0, 1, 5) (float32), made offline
    assert mg.logspace(0, 1, 5).tolist() == [1.0, 1.778279423713684, 3.1622776985168457, 5.6234130859375, 10.0]
    assert mg.scalar_tensor(3).dtype == np.float32 and mg.scalar_tensor(3).ndim == 0
    a = np.ones(3)
    t = mg.as_tensor(a)
    a[0] = 5.0  # shared, as torch.as_tensor of a CPU array
    assert t.tolist() == [5.0, 1.0, 1.0] and mg.as_tensor(t) is t
    assert mg.asarray(a, copy=True).tolist() == [5.0, 1.0, 1.0] and mg.asarray([1.0], requires_grad=True).requires_grad
    z = mg.zeros(2, 3, dtype="float64")
    assert mg.empty_like(z).shape == (2, 3) and mg.rand_like(z).dtype == np.float64 and mg.randn_like(z).shape == (2, 3)
    r = mg.randint_like(z, 4)
    assert r.dtype == np.float64 and set(np.unique(r.numpy())) <= {0.0, 1.0, 2.0, 3.0}


def test_inference_mode_records_nothing_inside():
    x = mg.ones(2, requires_grad=True)
    with mg.inference_mode():
        assert not (x * 2).requires_grad
    with mg.inference_mode(False):
        assert (x * 2).requires_grad

    @mg.inference_mode
    def f():
        return (x * 2).requires_grad

    assert f() is False


def test_to_takes_pytorchs_device_keyword_and_another_tensor():
    x = mg.ones(2)
    assert x.to(device="cpu") is x
    assert x.to(device="cpu", dtype=mg.float64).dtype == np.float64
    assert x.to(mg.zeros(1, dtype="float64")).dtype == np.float64
    with pytest.raises(TypeError, match="twice"):
        x.to("cpu", device="cpu")


INPLACE_FUNCTIONS = {  # PyTorch's functions with inplace= (always their last parameter) and their other arguments
    "relu": (), "leaky_relu": (0.2,), "elu": (1.0,), "celu": (1.0,), "selu": (), "silu": (), "mish": (),
    "hardtanh": (-1.0, 1.0), "hardswish": (), "hardsigmoid": (), "threshold": (0.1, 0.0), "rrelu": (0.1, 0.3, False),
    "relu6": (), "dropout": (0.5, False), "dropout1d": (0.5, False), "dropout2d": (0.5, False),
    "dropout3d": (0.5, False), "alpha_dropout": (0.5, False), "feature_alpha_dropout": (0.5, False),
}
INPLACE_LAYERS = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish", "Hardtanh", "Hardswish",
                  "Hardsigmoid", "RReLU", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                  "FeatureAlphaDropout"]


@pytest.mark.parametrize("name", sorted(INPLACE_FUNCTIONS))
def test_inplace_false_is_the_function_and_true_writes_into_the_input(name):
    """PyTorch's inplace=True: the result written into the input, which is returned -- a plain write
    without grad, a recorded one (the input takes the result's history) on a non-leaf that requires
    grad, PyTorch's refusal on a leaf that requires grad (none where nothing is written: dropout
    in evaluation returns its input, as PyTorch's)."""
    a = _array()[None] if name.endswith("1d") else _array()[None, None]
    x = mg.tensor(a)
    fn, args = getattr(MF, name), INPLACE_FUNCTIONS[name]
    want = fn(x, *args).numpy()
    assert np.array_equal(fn(x, *args, False).numpy(), want)  # positional, as PyTorch's
    assert np.array_equal(fn(x, *args, inplace=False).numpy(), want)
    y = mg.tensor(a)
    assert fn(y, *args, inplace=True) is y and np.array_equal(y.numpy(), want)
    w = mg.tensor(a, requires_grad=True)
    h = w * 1.0
    assert fn(h, *args, inplace=True) is h and np.array_equal(h.numpy(), want)
    (got,) = mg.grad((h * h).sum(), [w])
    (expected,) = mg.grad((fn(w * 1.0, *args) ** 2).sum(), [w])
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    if name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
        assert fn(w, *args, inplace=True) is w
    else:
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            fn(w, *args, inplace=True)


@pytest.mark.parametrize("name", INPLACE_LAYERS)
def test_layers_take_inplace_and_write_into_their_input(name):
    layer = getattr(mg.nn, name)(inplace=False).eval()
    x = mg.tensor(_array()[None] if name.endswith("1d") else _array()[None, None])
    want = getattr(mg.nn, name)().eval()(x).numpy()
    assert np.array_equal(layer(x).numpy(), want)
    in_place = getattr(mg.nn, name)(inplace=True).eval()
    # PyTorch's Hardswish and Hardsigmoid print no options (tests/test_module_reprs_vs_torch.py)
    assert in_place.inplace and ("inplace=True" in repr(in_place)) == (name not in ("Hardswish", "Hardsigmoid"))
    y = x.clone()
    assert in_place(y) is y and np.array_equal(y.numpy(), want)
    assert mg.nn.Threshold(0.1, 0.0, inplace=False)(x).shape == x.shape


def test_parameter_containers_register_their_parameters():
    class Model(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = mg.nn.ParameterList([mg.nn.Parameter(mg.ones(2)), mg.zeros(2, 3)])
            self.d = mg.nn.ParameterDict({"a": mg.ones(1)})

        def forward(self, x):
            return (self.ws[0] * x).sum() + self.ws[1].sum() + self.d["a"].sum()

    m = Model()
    assert [n for n, _ in m.named_parameters()] == ["ws.0", "ws.1", "d.a"]
    assert all(isinstance(p, mg.nn.Parameter) and p.requires_grad for p in m.parameters())
    m(mg.ones(2)).backward()
    mg.optim.SGD(m.parameters(), lr=0.5).step()
    assert m.ws[0].tolist() == [0.5, 0.5] and m.ws[-1].shape == (2, 3)
    m2 = Model()
    m2.load_state_dict(m.state_dict())
    assert m2.ws[0].tolist() == [0.5, 0.5]
    m.ws[1] = mg.ones(1)
    m.d["b"] = mg.nn.Parameter(mg.zeros(2))
    assert [n for n, _ in m.named_parameters()] == ["ws.0", "ws.1", "d.a", "d.b"] and "b" in m.d and len(m.d) == 2
    # torch: the same lines, with 'torch.float32' (its extra_repr indents them, and the repr again)
    assert repr(m.ws) == ("ParameterList(\n    (0): Parameter containing: [float32 of size 2]\n"
                          "    (1): Parameter containing: [float32 of size 1]\n)")
    # torch: ParameterDict({'a': ones(2, 3)}) -> 'ParameterDict(  (a): Parameter containing: [... of size 2x3])'
    assert repr(mg.nn.ParameterDict({"a": mg.ones(2, 3)})) == (
        "ParameterDict(  (a): Parameter containing: [float32 of size 2x3])")
    # PyTorch's containers hold any object besides tensors (a plain attribute parameters() skips)
    held = mg.nn.ParameterList([3.0])
    assert held[0] == 3.0 and list(held.parameters()) == []


def test_lr_scheduler_keeps_pytorchs_older_base_class_name():
    class Halving(mg.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [b * 0.5 ** self.last_epoch for b in self.base_lrs]

    opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    s = Halving(opt)
    s.step()
    assert s.get_last_lr() == [0.5]


def test_sampling_functions_draw_pytorchs_distributions():
    mg.manual_seed(0)
    w = mg.tensor([0.1, 0.0, 0.6, 0.3])
    with_replacement = mg.multinomial(w, 20000, replacement=True).numpy()
    assert with_replacement.dtype == np.int64 and 1 not in with_replacement
    np.testing.assert_allclose(np.bincount(with_replacement, minlength=4) / 20000, [0.1, 0.0, 0.6, 0.3], atol=0.015)
    rows = mg.multinomial(mg.stack([w] * 4000), 3).numpy()  # 2-D: one draw of 3 per row
    assert rows.shape == (4000, 3) and all(len(set(r)) == 3 for r in rows[:50]) and not (rows == 1).any()
    np.testing.assert_allclose(np.bincount(rows[:, 0], minlength=4) / 4000, [0.1, 0.0, 0.6, 0.3], atol=0.03)
    assert sorted(w.multinomial(4).tolist())[0] == 0 and w.multinomial(4).tolist()[-1] == 1  # zero weight last
    with pytest.raises(ValueError, match="cannot draw"):
        mg.multinomial(w, 5)
    with pytest.raises(ValueError, match="non-negative"):
        mg.multinomial(mg.tensor([1.0, -1.0]), 1)
    b = mg.bernoulli(mg.full((20000,), 0.3))
    assert b.dtype == np.float32 and set(np.unique(b.numpy())) == {0.0, 1.0} and abs(b.numpy().mean() - 0.3) < 0.015
    assert mg.full((3,), 0.3).bernoulli(1.0).tolist() == [1.0, 1.0, 1.0]
    mean, std = mg.zeros(20000, requires_grad=True), mg.ones(20000, requires_grad=True)
    y = mg.normal(mean, std * 2)
    assert abs(float(y.numpy().std()) - 2) < 0.05
    assert y.requires_grad
    y.sum().backward()  # recorded, with a derivative of 0 in mean and std, as torch.normal's (NormalBackward)
    assert np.array_equal(mean.grad.numpy(), np.zeros(20000, np.float32))
    assert np.array_equal(std.grad.numpy(), np.zeros(20000, np.float32))
    assert mg.normal(2.0, 3.0, size=(2,)).dtype == np.float32 and mg.normal(mg.zeros(2, dtype="float64")).dtype \
        == np.float64


def test_sampling_on_the_strict_device_draws_the_cpus_numbers():
    for device in ("cpu", "strict"):
        mg.manual_seed(4)
        w = mg.tensor([0.1, 0.5, 0.4], device=device)
        drawn = (mg.multinomial(w, 6, True).numpy(), mg.multinomial(w, 2).numpy(), mg.bernoulli(w).numpy(),
                 mg.normal(w, 0.5).numpy())
        if device == "cpu":
            cpu = drawn
    assert all(np.array_equal(a, b) for a, b in zip(cpu, drawn))


def test_gumbel_softmax_samples_the_categorical_and_passes_the_soft_gradient_straight_through():
    probs = np.array([0.2, 0.5, 0.3])
    mg.manual_seed(0)
    logits = mg.tensor(np.log(np.tile(probs, (20000, 1))), requires_grad=True)
    hard = MF.gumbel_softmax(logits, tau=0.5, hard=True)
    assert set(np.unique(hard.numpy())) == {0.0, 1.0} and (hard.numpy().sum(axis=1) == 1).all()
    np.testing.assert_allclose(hard.numpy().mean(axis=0), probs, atol=0.015)  # the Gumbel-max trick
    weights = mg.tensor([1.0, 2.0, 3.0], dtype="float64")
    (g_hard,) = mg.grad((hard * weights).sum(), [logits])
    mg.manual_seed(0)
    soft = MF.gumbel_softmax(logits, tau=0.5)
    (g_soft,) = mg.grad((soft * weights).sum(), [logits])
    assert np.array_equal(g_hard.numpy(), g_soft.numpy())  # the same draw: hard's gradient is soft's
    np.testing.assert_allclose(soft.numpy().sum(axis=1), 1.0, rtol=1e-12)
    assert MF.gumbel_softmax(mg.zeros(3, 4), dim=0, hard=True).sum(0).tolist() == [1.0] * 4


def test_conjugate_transposes_and_complex_casts():
    z = np.array([[1 + 2j, 3], [4, 5j]])
    x = mg.tensor(z)
    assert np.array_equal(x.H.numpy(), z.conj().T) and np.array_equal(x.adjoint().numpy(), z.conj().T)
    b = mg.tensor(np.arange(24.0).reshape(2, 3, 4) * (1 - 1j))
    assert np.array_equal(b.mH.numpy(), np.swapaxes(b.numpy(), -1, -2).conj())
    with pytest.raises(ValueError, match="2-D"):
        b.H
    with pytest.raises(ValueError, match="matri"):
        mg.ones(3).mH
    assert np.array_equal(x.conj_physical().numpy(), z.conj()) and x.resolve_conj() is x and x.resolve_neg() is x
    assert x.is_conj() is False and x.is_neg() is False
    assert mg.tensor([1.0, 2.0]).cfloat().dtype == np.complex64 and mg.tensor([1, 2]).cdouble().dtype == np.complex128
    r = mg.tensor(_array(), requires_grad=True)
    assert gradcheck(lambda t: t.mH * mg.tensor(np.arange(20.0).reshape(5, 4)), r, modes=("rev", "fwd"))


# getattr(torch, name)(*args, dtype=torch.float64).tolist(), made offline with torch 2.13
WINDOWS = {
    "hann_window": ((5,), [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264]),
    "hamming_window": ((6, False), [0.08000000000000002, 0.3978521825875242, 0.9121478174124757, 0.912147817412476,
                                    0.3978521825875243, 0.08000000000000002]),
    "blackman_window": ((5,), [0.0, 0.20077014326253045, 0.8492298567374694, 0.8492298567374696,
                               0.20077014326253056]),
    "bartlett_window": ((6,), [0.0, 0.3333333333333333, 0.6666666666666666, 1.0, 0.6666666666666667,
                               0.3333333333333335]),
    "kaiser_window": ((5, True, 8.0), [0.002338830512733327, 0.22677684133642736, 0.8598020817729667,
                                       0.8598020817729667, 0.22677684133642736]),
}


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_windows_are_pytorchs(name):
    args, want = WINDOWS[name]
    np.testing.assert_allclose(getattr(mg, name)(*args, dtype=mg.float64).numpy(), want, rtol=0, atol=1e-15)
    w = getattr(mg, name)(*args)
    assert w.dtype == np.float32 and getattr(mg, name)(1).tolist() == [1.0] and getattr(mg, name)(0).shape == (0,)


def test_generator_takes_pytorchs_calls():
    g = mg.Generator(device="cpu").manual_seed(5)
    assert isinstance(g, mg.random.Generator) and g.initial_seed() == 5


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_take_along_dim_without_a_dim_flattens_both(dtype):
    # torch.take_along_dim(x, i) for x = [[10., 30., 20.], [60., 40., 50.]], i = [[0, 2], [1, 0]]:
    # [10., 20., 30., 10.], x.grad after .sum().backward(): [[2., 1., 1.], [0., 0., 0.]]
    x = mg.tensor([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]], dtype=dtype, requires_grad=True)
    i = mg.tensor([[0, 2], [1, 0]])
    out = mg.take_along_dim(x, i)
    assert out.tolist() == [10.0, 20.0, 30.0, 10.0] and out.dtype == dtype and x.take_along_dim(i).shape == (4,)
    (g,) = mg.autograd.grad(out.sum(), x, create_graph=True)
    assert g.tolist() == [[2.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    # torch.func.jvp(lambda v: torch.take_along_dim(v, i), (x,), (torch.arange(6.).reshape(2, 3),)): [0, 2, 1, 0]
    _, t = mg.func.jvp(lambda v: mg.take_along_dim(v, i), (x.detach(),), (mg.arange(6, dtype=dtype).reshape(2, 3),))
    assert t.tolist() == [0.0, 2.0, 1.0, 0.0]
    # torch.take_along_dim(x, torch.tensor([5, 0, 5])), torch.take_along_dim(x, torch.tensor(4))
    assert mg.take_along_dim(x, mg.tensor([5, 0, 5])).tolist() == [50.0, 10.0, 50.0]
    assert mg.take_along_dim(x, mg.tensor(4)).tolist() == [40.0]


def test_repeat_interleave_of_counts_alone_repeats_each_index():
    # torch.repeat_interleave(torch.tensor([1, 0, 2])): [0, 2, 2]; of torch.tensor(3): [0, 0, 0]
    out = mg.repeat_interleave(mg.tensor([1, 0, 2]))
    assert out.tolist() == [0, 2, 2] and out.dtype == "int64"
    assert mg.repeat_interleave(mg.tensor(3)).tolist() == [0, 0, 0]
    assert mg.repeat_interleave(mg.tensor([1, 0, 2]), output_size=3).tolist() == [0, 2, 2]
    assert mg.repeat_interleave(mg.tensor([], dtype="int64")).tolist() == []
    for bad in (mg.tensor([[1, 2]]), mg.tensor([1.0, 2.0])):    # torch: only a 1-D integer tensor
        with pytest.raises(TypeError, match="counts"):
            mg.repeat_interleave(bad)
