"""``nn.functional`` semantics beyond the PyTorch fixture: errors, dropout,
subgradients, numerical stability, dtype preservation."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F


def compact(s: str) -> str:
    return s.replace(" ", "")


def grad_of(fn, x: np.ndarray, *args, **kwargs) -> tuple[np.ndarray, np.ndarray]:
    t = mg.tensor(x, requires_grad=True)
    out = fn(t, *args, **kwargs)
    out.sum().backward()
    return out.numpy(), t.grad.numpy()


# ------------------------------------------------------------- target errors
@pytest.mark.parametrize("fn", [F.cross_entropy, lambda x, t, **kw: F.nll_loss(F.log_softmax(x, axis=1), t, **kw)])
@pytest.mark.parametrize("bad", [3, 7, -1, -5])
def test_out_of_range_class_target_raises(fn, bad):
    x = mg.randn(4, 3)
    t = mg.tensor([0, bad, 1, 2])
    with pytest.raises(IndexError) as exc:
        fn(x, t)
    msg = str(exc.value)
    assert msg == f"Target {bad} is out of bounds."  # torch 2.13's words


def test_out_of_range_target_kdim_and_with_smoothing():
    x = mg.randn(2, 4, 3)
    t = mg.tensor([[0, 1, 2], [3, 4, 0]])
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(x, t)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(x, t, label_smoothing=0.1, reduction="none")


def test_ignore_index_is_not_out_of_range():
    x = mg.randn(4, 3, dtype="float64")
    t = mg.tensor([0, -100, 2, -100])
    full = F.cross_entropy(x, t, reduction="none").numpy()
    assert full[1] == 0 and full[3] == 0
    mean = F.cross_entropy(x, t).item()
    assert mean == pytest.approx((full[0] + full[2]) / 2, rel=1e-12)
    # a custom ignore_index may itself be out of range; -100 then counts as a real (bad) target
    assert np.isfinite(F.cross_entropy(x, mg.tensor([0, 9, 2, 9]), ignore_index=9).item())
    with pytest.raises(IndexError, match="-100"):
        F.cross_entropy(x, t, ignore_index=9)


def test_all_targets_ignored_gives_nan_mean_like_torch():
    x = mg.randn(2, 3, dtype="float64", requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([-100, -100]))
    assert np.isnan(loss.item())
    assert F.cross_entropy(x, mg.tensor([-100, -100]), reduction="sum").item() == 0.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 2)])
def test_all_targets_ignored_gives_a_zero_gradient_like_torch(dtype, weighted, label_smoothing, shape):
    """The mean is 0/0 = NaN, but the gradient is 0, in PyTorch (torch 2.13:
    ``F.cross_entropy(x, full(-100), weight=w, label_smoothing=e).backward()`` gives
    ``x.grad == 0`` for every w and e; ``F.nll_loss`` too)."""
    weight = mg.tensor(np.array([1.0, 2.0, 3.0], dtype)) if weighted else None
    target = mg.tensor(np.full((shape[0],) + shape[2:], -100))
    for loss_of in (lambda x: F.cross_entropy(x, target, weight=weight, label_smoothing=label_smoothing),
                    lambda x: F.nll_loss(x, target, weight=weight)):
        x = mg.tensor(np.random.default_rng(0).standard_normal(shape).astype(dtype), requires_grad=True)
        loss = loss_of(x)
        assert np.isnan(loss.item()) and loss.dtype == np.dtype(dtype)
        loss.backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape, dtype))
        np.testing.assert_array_equal(mg.func.grad(loss_of)(x.detach()).numpy(), np.zeros(shape, dtype))


@pytest.mark.parametrize("call, match", [
    (lambda: F.cross_entropy(mg.randn(4, 3), mg.tensor([0, 1, 2])), r"\(4,3\).*\(4,\).*\(3,\)"),
    (lambda: F.cross_entropy(mg.randn(4, 3), mg.tensor([0.5, 1.0, 0.2, 0.1])), r"classindicesmustbeintegers"),
    (lambda: F.cross_entropy(mg.randn(4, 3), mg.rand(4, 2)),
     r"cross_entropy:0Dor1Dtargettensorexpected,multi-targetnotsupported\(inputofshape\(4,3\)needstargetsof"
     r"shape\(4,\),got\(4,2\)\)"),
    (lambda: F.cross_entropy(mg.randn(4, 3), mg.tensor([0, 1, 2, 1]), reduction="avg"), r"reduction"),
    (lambda: F.cross_entropy(mg.randn(4, 3), mg.tensor([0, 1, 2, 1]), label_smoothing=1.5),
     r"cross_entropy:label_smoothingmustbebetween0\.0and1\.0\.Got:1\.5"),
    (lambda: F.cross_entropy(mg.tensor(1.0), mg.tensor(0)), r"0-d"),
    (lambda: F.nll_loss(mg.randn(4, 3), mg.tensor([0, 1, 2, 1]), weight=mg.ones(4)),
     r"nll_loss:weighttensorshouldbedefinedeitherforall3classesornoclassesbutgotweighttensorofshape:\[4\]"),
    # (mse_loss of differing shapes warns and broadcasts, as PyTorch's: tests/test_port_gaps.py)
    (lambda: F.binary_cross_entropy(mg.rand(4, 3), mg.rand(3)), r"targetsize\(3,\).*inputsize\(4,3\)"),
    (lambda: F.binary_cross_entropy_with_logits(mg.randn(4), mg.randn(4, 1)), r"\(4,1\).*\(4,\)"),
    (lambda: F.linear(mg.randn(2, 5), mg.randn(3, 4)), r"\(2,5\).*\(3,4\)"),
    (lambda: F.conv2d(mg.randn(1, 3, 5, 5), mg.randn(2, 4, 3, 3)),
     r"weightofsize\[2,4,3,3\],expectedinput\[1,3,5,5\]tohave4channels,butgot3channels"),
    (lambda: F.conv2d(mg.randn(1, 4, 5, 5), mg.randn(3, 2, 3, 3), groups=2),
     r"Givengroups=2,expectedweighttobedivisibleby2atdimension0,butgotweightofsize\[\[3,2,3,3\]\]"),
    (lambda: F.conv2d(mg.randn(1, 4, 5, 5), mg.randn(2, 4, 3, 3), bias=mg.randn(3)), r"bias.*\(2,\)"),
    (lambda: F.conv2d(mg.randn(1, 4, 2, 2), mg.randn(2, 4, 3, 3)),
     r"paddedinputsizeperchannel:\(2x2\)\.Kernelsize:\(3x3\)\.Kernelsizecan'tbegreater"),
    (lambda: F.conv2d(mg.randn(1, 4, 5, 5), mg.randn(2, 4, 3, 3), stride=2, padding="same"), r"same"),
    (lambda: F.conv2d(mg.randn(4, 5), mg.randn(2, 4, 3, 3)), r"Expected3D\(unbatched\)or4D\(batched\)inputtoconv2d"),
    (lambda: F.max_pool2d(mg.randn(1, 1, 4, 4), 2, padding=2), r"padding"),
    (lambda: F.avg_pool2d(mg.randn(1, 1, 2, 2), 3), r"larger"),
    (lambda: F.layer_norm(mg.randn(2, 3), (4,)), r"\(2,3\).*\(4,\)"),
    (lambda: F.batch_norm(mg.randn(1, 3), None, None, training=True), r"morethan1value"),
    (lambda: F.batch_norm(mg.randn(2, 3), mg.zeros(4), mg.ones(4)),
     r"^batch_norm:running_meanshouldcontain3elementsnot4\(onevalueperchannel:shape\(3,\)forinputofshape"
     r"\(2,3\)\)$"),
    (lambda: F.scaled_dot_product_attention(mg.randn(2, 3, 4), mg.randn(2, 3, 5), mg.randn(2, 3, 5)),
     r"headdimensions"),
    (lambda: F.scaled_dot_product_attention(mg.randn(2, 3, 4), mg.randn(2, 3, 4), mg.randn(2, 5, 4)),
     r"sequencelengths"),
    (lambda: F.gelu(mg.randn(3), approximate="fast"), r"approximate"),
    (lambda: F.softmax(mg.randn(3), axis=0, dim=1), r"axis"),
    (lambda: F.dropout(mg.randn(3), p=1.5), r"pmustbein\[0,1\]"),
])
def test_bad_input_errors_are_clear(call, match):
    with pytest.raises((ValueError, TypeError, IndexError)) as exc:
        call()
    assert re.search(match, compact(str(exc.value))), str(exc.value)


def test_class_targets_must_be_integers_and_embedding_ids_in_range():
    with pytest.raises(TypeError, match=r"nll_loss: expected target dtype to be Long or Byte, but got Bool \(class "
                                        r"indices must be integers: convert with target\.astype\('int64'\)\)"):
        F.nll_loss(mg.randn(2, 3), mg.tensor([True, False]))
    w = mg.randn(5, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(mg.tensor([0, 5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(mg.tensor([-1, 2]), w)
    with pytest.raises(TypeError, match=r"embedding: Expected tensor for argument #1 'indices' to have one of the "
                                        r"following scalar types: Long, Int \(int64 or int32\), got float32"):
        F.embedding(mg.tensor([0.0, 1.0]), w)


# ------------------------------------------------------------------- dropout
def test_dropout_p0_and_eval_are_identity_with_unit_gradient():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    for kwargs in ({"p": 0.0}, {"p": 0.5, "training": False}, {"p": 1.0, "training": False}):
        out, g = grad_of(F.dropout, x, **kwargs)
        np.testing.assert_array_equal(out, x)
        np.testing.assert_array_equal(g, np.ones_like(x))


def test_dropout_p1_zeroes_everything_and_its_gradient():
    out, g = grad_of(F.dropout, np.ones((3, 4)), p=1.0)
    assert not out.any() and not g.any()


def test_dropout_does_not_draw_randomness_when_inactive():
    mg.manual_seed(3)
    F.dropout(mg.ones(4), p=0.0)
    F.dropout(mg.ones(4), p=0.5, training=False)
    state = mg.get_rng_state()
    mg.manual_seed(3)
    assert mg.get_rng_state() == state


def test_dropout_mask_reproducible_with_manual_seed():
    x = mg.ones(64, 32)
    mg.manual_seed(123)
    a = F.dropout(x, 0.4).numpy()
    b = F.dropout(x, 0.4).numpy()
    mg.manual_seed(123)
    a2 = F.dropout(x, 0.4).numpy()
    b2 = F.dropout(x, 0.4).numpy()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    assert (a != b).any(), "two successive masks should differ"
    mg.manual_seed(124)
    assert (F.dropout(x, 0.4).numpy() != a).any()


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.8])
def test_dropout_keeps_expectation_and_scales_survivors(p):
    mg.manual_seed(0)
    n = 200_000
    x = mg.ones(n, dtype="float64", requires_grad=True)
    out = F.dropout(x, p)
    o = out.numpy()
    kept = o != 0
    np.testing.assert_allclose(o[kept], 1.0 / (1.0 - p), rtol=1e-12)
    assert abs(kept.mean() - (1 - p)) < 5 * np.sqrt(p * (1 - p) / n)
    assert abs(o.mean() - 1.0) < 0.02
    # the gradient uses the same mask and scale
    cot = np.arange(n, dtype=np.float64)
    (out * mg.tensor(cot)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), o * cot, rtol=1e-12)


# --------------------------------------------------------------- subgradients
def test_relu_and_leaky_relu_subgradients_at_zero():
    x = np.array([-1.0, 0.0, 2.0])
    out, g = grad_of(F.relu, x)
    np.testing.assert_array_equal(out, [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])  # PyTorch: 0 at 0
    out, g = grad_of(F.leaky_relu, x, 0.2)
    np.testing.assert_allclose(out, [-0.2, 0.0, 2.0])
    np.testing.assert_allclose(g, [0.2, 0.2, 1.0])  # PyTorch: x > 0 ? 1 : slope
    _, g = grad_of(F.leaky_relu, x)
    np.testing.assert_allclose(g, [0.01, 0.01, 1.0])


def test_bce_with_logits_gradient_at_zero_logit():
    x = mg.tensor([0.0, 0.0], dtype="float64", requires_grad=True)
    F.binary_cross_entropy_with_logits(x, mg.tensor([0.0, 1.0], dtype="float64"), reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, -0.5], rtol=1e-15)


# ------------------------------------------------------------------ stability
def test_softmax_and_log_softmax_stable_at_1e4_float32():
    x = mg.tensor([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, 0.0]], dtype="float32", requires_grad=True)
    s = F.softmax(x, axis=-1)
    ls = F.log_softmax(x, axis=-1)
    assert s.dtype == np.float32 and ls.dtype == np.float32
    np.testing.assert_allclose(s.numpy(), [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0]], atol=1e-7)
    want = [[0, -2e4, -1e4], [-np.log(3)] * 3, [-np.log(2), -np.log(2), -1e4 - np.log(2)]]
    np.testing.assert_allclose(ls.numpy(), want, rtol=1e-6)
    (s * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    x.grad = None
    ls.sum().backward()
    g = x.grad.numpy()
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g.sum(axis=-1), 0.0, atol=1e-5)


def test_cross_entropy_and_bce_stable_for_huge_logits():
    x = mg.tensor([[1e4, -1e4], [-1e4, 1e4]], dtype="float32", requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([1, 1]))
    assert loss.item() == pytest.approx(1e4)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, -0.5], [0.0, 0.0]], atol=1e-7)
    z = mg.tensor([1e4, -1e4, 1e4], dtype="float32")
    b = F.binary_cross_entropy_with_logits(z, mg.tensor([1.0, 0.0, 0.0]), reduction="none").numpy()
    np.testing.assert_allclose(b, [0.0, 0.0, 1e4])


# --------------------------------------------------------------------- dtypes
TARGETS = mg.tensor([[[0, 1, 2], [3, 0, 1], [2, 3, 0]]] * 2)  # (N, d1, d2) for (N, C=4, d1, d2) logits
FLOAT32_CALLS = {
    "relu": lambda x: F.relu(x),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": lambda x: F.silu(x),
    "sigmoid": lambda x: F.sigmoid(x),
    "tanh": lambda x: F.tanh(x),
    "softmax": lambda x: F.softmax(x, axis=1),
    "log_softmax": lambda x: F.log_softmax(x, axis=1),
    "cross_entropy": lambda x: F.cross_entropy(x, TARGETS),
    "cross_entropy_smooth_weight": lambda x: F.cross_entropy(x, TARGETS, weight=mg.ones(4), label_smoothing=0.1),
    "cross_entropy_probs": lambda x: F.cross_entropy(x, F.softmax(mg.ones(2, 4, 3, 3), axis=1)),
    "nll_loss": lambda x: F.nll_loss(x, TARGETS, ignore_index=3),
    "mse_loss": lambda x: F.mse_loss(x, mg.zeros(2, 4, 3, 3)),
    "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, mg.full((2, 4, 3, 3), 0.3),
                                                               pos_weight=mg.full((3,), 2.0)),
    "linear": lambda x: F.linear(x, mg.ones(5, 3), mg.ones(5)),
    "conv2d": lambda x: F.conv2d(x, mg.ones(2, 4, 2, 2), mg.ones(2), padding=1),
    "max_pool2d": lambda x: F.max_pool2d(x, 2, stride=1),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False),
    "layer_norm": lambda x: F.layer_norm(x, (3, 3), mg.ones(3, 3), mg.zeros(3, 3)),
    "batch_norm": lambda x: F.batch_norm(x, mg.zeros(4), mg.ones(4), mg.ones(4), mg.zeros(4), training=True),
    "batch_norm_eval": lambda x: F.batch_norm(x, mg.zeros(4), mg.ones(4), training=False),
    "dropout": lambda x: F.dropout(x, 0.3),
    "sdpa": lambda x: F.scaled_dot_product_attention(x, x, x, is_causal=True),
    "sdpa_bool_mask": lambda x: F.scaled_dot_product_attention(x, x, x, attn_mask=mg.ones(3, 3, dtype="bool")),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_CALLS))
def test_float32_in_float32_out_and_grads(name):
    x = mg.randn(2, 4, 3, 3, dtype="float32", requires_grad=True)
    out = FLOAT32_CALLS[name](x)
    assert out.dtype == np.float32, f"{name}: output {out.dtype}"
    out.sum().backward()
    assert x.grad is not None and x.grad.dtype == np.float32, f"{name}: grad {x.grad and x.grad.dtype}"
    assert np.isfinite(x.grad.numpy()).all()


def test_float32_embedding_and_weight_grads():
    w = mg.randn(6, 3, dtype="float32", requires_grad=True)
    out = F.embedding(mg.tensor([[0, 5, 5]]), w)
    assert out.dtype == np.float32
    out.sum().backward()
    assert w.grad.dtype == np.float32
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [1, 0, 0, 0, 0, 2])
    conv_w = mg.randn(2, 3, 3, 3, dtype="float32", requires_grad=True)
    F.conv2d(mg.randn(1, 3, 5, 5, dtype="float32"), conv_w).sum().backward()
    assert conv_w.grad.dtype == np.float32


# ----------------------------------------------------------------- semantics
def test_softmax_default_axis_is_last_and_dim_alias():
    x = mg.randn(3, 4)
    np.testing.assert_allclose(F.softmax(x).numpy(), F.softmax(x, axis=-1).numpy())
    np.testing.assert_allclose(F.softmax(x, dim=0).numpy(), F.softmax(x, axis=0).numpy())
    np.testing.assert_allclose(F.softmax(x, dim=0).numpy().sum(0), 1.0, rtol=1e-6)


def test_cross_entropy_equals_nll_of_log_softmax():
    x = mg.randn(5, 4, dtype="float64")
    t = mg.tensor([0, 3, 1, 1, 2])
    a = F.cross_entropy(x, t).item()
    b = F.nll_loss(F.log_softmax(x, axis=1), t).item()
    assert a == pytest.approx(b, rel=1e-14)
    manual = -np.mean(np.log(F.softmax(x, axis=1).numpy())[np.arange(5), t.numpy()])
    assert a == pytest.approx(manual, rel=1e-12)


def test_sdpa_causal_equals_explicit_lower_triangular_mask():
    q, k, v = (mg.randn(2, 5, 4, dtype="float64") for _ in range(3))
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    mask = mg.tensor(np.tril(np.ones((5, 5), dtype=bool)))
    explicit = F.scaled_dot_product_attention(q, k, v, attn_mask=mask).numpy()
    np.testing.assert_allclose(causal, explicit, rtol=1e-14)
    with pytest.raises(ValueError, match="not both"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True)
    # PyTorch's words, which its test_scaled_dot_product_attention matches (the engine had its own)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True)


def test_max_pool_gradient_goes_to_first_maximum():
    x = np.array([[[[1.0, 3.0], [3.0, 0.0]]]])
    _, g = grad_of(F.max_pool2d, x, 2)
    np.testing.assert_array_equal(g, [[[[0.0, 1.0], [0.0, 0.0]]]])


def test_one_hot_and_pad():
    np.testing.assert_array_equal(F.one_hot(mg.tensor([0, 2]), 3).numpy(), [[1, 0, 0], [0, 0, 1]])
    assert F.pad(mg.ones(2, 3), (1, 2)).shape == (2, 6)
    assert F.pad(mg.ones(2, 3), (1, 1, 2, 0)).shape == (4, 5)


# torch 2.13: F.pad with a repeating mode pads the last 1, 2 or 3 dims of an input with one or two more,
# and refuses a fill value (it would be ignored); the shapes it gave, or None where it raised
@pytest.mark.parametrize("shape, widths, mode, value, want", [
    ((2, 3, 4, 5), (1, 1), "replicate", None, None), ((2, 3, 4, 5, 6), (1, 2), "circular", None, None),
    ((5,), (1, 2), "reflect", None, None), ((3, 5), (1, 1, 1, 1), "replicate", None, None),
    ((1, 2, 3, 4, 5, 6), (1, 1), "replicate", None, None), ((2, 3, 5), (1, 1), "reflect", 1.0, "value"),
    ((2, 5), (1, 2), "reflect", None, (2, 8)), ((2, 3, 5), (1, 1), "reflect", 0.0, (2, 3, 7)),
    ((2, 3, 5), (1, 1, 1, 1), "reflect", None, (2, 5, 7)), ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1), "replicate", None,
                                                             (2, 5, 6, 7)),
    ((2, 3, 5), (1, 1), "circular", None, (2, 3, 7)), ((2, 3, 5), (1, 1), "constant", 2.0, (2, 3, 7))])
def test_pad_takes_and_refuses_what_pytorch_does(shape, widths, mode, value, want):
    x = mg.zeros(*shape)
    if want is None:
        with pytest.raises(NotImplementedError, match=f"Padding size {len(widths)} is not supported for "
                                                      f"{len(shape)}D input tensor"):
            F.pad(x, widths, mode=mode, value=value)
    elif want == "value":
        with pytest.raises(RuntimeError, match='Padding mode "reflect" doesn\'t take in value argument'):
            F.pad(x, widths, mode=mode, value=value)
    else:
        assert F.pad(x, widths, mode=mode, value=value).shape == want


def test_loss_modules_match_functional():
    from minigrad_ckpt import nn

    x = mg.randn(6, 4, dtype="float64")
    t = mg.tensor([0, 3, -100, 1, 2, 2])
    w = mg.tensor([1.0, 2.0, 0.5, 1.5], dtype="float64")
    pairs = [
        (nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)(x, t),
         F.cross_entropy(x, t, weight=w, label_smoothing=0.1)),
        (nn.CrossEntropyLoss(reduction="none", ignore_index=3)(x, mg.tensor([0, 3, 1, 1, 2, 2])),
         F.cross_entropy(x, mg.tensor([0, 3, 1, 1, 2, 2]), reduction="none", ignore_index=3)),
        (nn.NLLLoss(weight=w, reduction="sum")(x, t), F.nll_loss(x, t, weight=w, reduction="sum")),
        (nn.MSELoss()(x, x * 2), F.mse_loss(x, x * 2)),
        (nn.BCEWithLogitsLoss(pos_weight=w)(x, F.sigmoid(x * 3)),
         F.binary_cross_entropy_with_logits(x, F.sigmoid(x * 3), pos_weight=w)),
    ]
    for a, b in pairs:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# ----------------------------------------------------------- image inputs (C, H, W)
_IMAGE_FNS = {
    "conv2d": lambda x: F.conv2d(x, mg.tensor(np.random.default_rng(1).standard_normal((4, 3, 3, 3))), padding=1),
    "max_pool2d": lambda x: F.max_pool2d(x, 2),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2, padding=1, count_include_pad=False),
}


@pytest.mark.parametrize("name", sorted(_IMAGE_FNS))
def test_an_unbatched_image_gives_the_batch_of_one_result_without_its_batch_axis(name):
    fn = _IMAGE_FNS[name]
    a = np.random.default_rng(0).standard_normal((3, 6, 6))
    x3 = mg.tensor(a, requires_grad=True)
    x4 = mg.tensor(a[None], requires_grad=True)
    y3, y4 = fn(x3), fn(x4)
    assert y3.shape == y4.shape[1:]
    np.testing.assert_array_equal(y3.numpy(), y4.numpy()[0])
    y3.sum().backward()
    y4.sum().backward()
    np.testing.assert_array_equal(x3.grad.numpy(), x4.grad.numpy()[0])


@pytest.mark.parametrize("name", sorted(_IMAGE_FNS))
@pytest.mark.parametrize("shape", [(6, 6), (1, 1, 3, 6, 6)])
def test_an_image_input_that_is_not_3d_or_4d_is_refused(name, shape):
    words = (rf"conv2d: Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: "
             rf"\[{', '.join(map(str, shape))}\]" if name == "conv2d"  # (PyTorch's words)
             else rf"{name}: non-empty 3D or 4D \(batch mode\) tensor expected for input \(expected a 3-D "
             rf"\(C, H, W\) or 4-D \(N, C, H, W\) input, got shape" if name == "max_pool2d"  # (PyTorch's words)
             else rf"{name}: Expected 3D or 4D \(batch mode\) tensor with optional 0 dim batch size for input, but "
             rf"got:\[{', '.join(map(str, shape))}\] \(expected a 3-D" if name == "avg_pool2d"
             else f"{name}: expected a 3-D .* or 4-D")
    with pytest.raises(ValueError, match=words):
        _IMAGE_FNS[name](mg.zeros(*shape))


def test_conv2d_refuses_a_weight_that_is_not_4d():
    with pytest.raises(ValueError, match="4-D weight"):
        F.conv2d(mg.zeros(1, 3, 6, 6), mg.zeros(4, 3, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_an_ignored_sample_adds_exactly_nothing_even_when_its_loss_is_infinite(dtype, reduction):
    # PyTorch skips ignored targets: an infinite (or NaN-making) row contributes 0, not inf * 0
    big = np.finfo(dtype).max
    logits = np.array([[-big, big], [1.0, 2.0], [np.inf, 0.0]], dtype)
    x = mg.tensor(logits, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([0, 1, 0]), ignore_index=0, reduction=reduction)
    want = np.log1p(np.exp(-1.0))
    expected = {"sum": want, "mean": want, "none": [0.0, want, 0.0]}[reduction]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)
    (loss.sum() if reduction == "none" else loss).backward()
    g = x.grad.numpy()
    np.testing.assert_array_equal(g[[0, 2]], 0.0)
    p = 1 / (1 + np.exp(1.0))
    np.testing.assert_allclose(g[1], [p, -p], rtol=1e-6)



@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_target_ignored_has_zero_second_derivative(dtype):
    # The mean over no counted samples is 0/0: the loss is NaN, its gradient 0 (PyTorch's too). The
    # gradient's own derivative is 0 as well (PyTorch's), not NaN: the 1/0 weight must not reach an
    # ignored row, where d/dx of the row's ``softmax * scale`` would carry 0 * NaN.
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(dtype), requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([1, 1, 1]), ignore_index=1)
    assert np.isnan(loss.item())
    (g,) = mg.autograd.grad(loss, x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), 0.0)
    (h,) = mg.autograd.grad((g * mg.arange(12.0).reshape(3, 4).to(x.dtype)).sum(), x, allow_unused=True)
    assert h is None or np.array_equal(h.numpy(), np.zeros((3, 4)))
    f = lambda z: F.cross_entropy(z, mg.tensor([1, 1, 1]), ignore_index=1)  # noqa: E731
    np.testing.assert_array_equal(mg.func.hessian(f)(x.detach()).numpy(), 0.0)

# ------------------------------------------------ attention's scaled, masked softmax as one op
def _softmax_chain(t, scale, causal, k):
    """The three ops ScaledSoftmax stands for: scale, causal fill, softmax."""
    import math

    from minigrad_ckpt.ops.shape import TrilFill
    from minigrad_ckpt.tape import apply
    s = t * scale
    if causal:
        s = apply(TrilFill(k=k, value=-math.inf), s)
    return F.softmax(s, axis=-1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal, k", [(True, 0), (True, 2), (True, -1), (False, 0)])
@pytest.mark.parametrize("zero_empty_rows", [True, False])
def test_scaled_softmax_is_the_chain_it_replaces_bit_for_bit(dtype, causal, k, zero_empty_rows):
    """Values, gradients, second derivatives and tangents equal those of Mul, TrilFill and
    Softmax exactly -- also the NaN rows of a diagonal offset that masks a whole row, unless
    ``zero_empty_rows``: then those rows are 0 (attention's convention), and so are their
    gradients and tangents."""
    from minigrad_ckpt.ops.activation import ScaledSoftmax
    from minigrad_ckpt.tape import apply
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    g = mg.tensor(rng.standard_normal(a.shape).astype(dtype))
    scale = 0.37
    results = []
    with np.errstate(invalid="ignore"):
        for fn in (lambda t: apply(ScaledSoftmax(scale=scale, causal=causal, k=k,
                                                 zero_empty_rows=zero_empty_rows), t),
                   lambda t: _softmax_chain(t, scale, causal, k)):
            x = mg.tensor(a, requires_grad=True)
            y = fn(x)
            (gx,) = mg.grad((y * g).sum(), [x], create_graph=True)
            (ggx,) = mg.grad((gx * g).sum(), [x])
            _, tangent = mg.func.jvp(fn, (mg.tensor(a),), (g,))
            results.append([r.numpy() for r in (y, gx, ggx, tangent)])
    empty_rows = np.zeros(a.shape[-2], bool)
    if causal and k < 0:
        empty_rows[:-k] = True  # row i keeps the keys j <= i + k: none for i < -k
    for mine, chain in zip(*results):
        if zero_empty_rows:
            assert (mine[..., empty_rows, :] == 0).all()
            mine, chain = mine[..., ~empty_rows, :], chain[..., ~empty_rows, :]
        np.testing.assert_array_equal(mine, chain)


# torch 2.13, float64: q, k, v, the mask and the upstream gradient below, then
#   o = F.scaled_dot_product_attention(q, k, v, attn_mask=m); o.backward(g)
# with m's float form (0 / -inf) the same values. The middle query attends to nothing.
_SDPA_Q = [[[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]]]
_SDPA_K = [[[1.0, 0.5], [-0.5, 1.25], [0.25, -1.5]]]
_SDPA_V = [[[2.0, -1.0], [0.5, 1.0], [-1.5, 0.75]]]
_SDPA_MASK = [[True, False, True], [False, False, False], [True, True, False]]
_SDPA_G = [[[1.0, -2.0], [0.5, 0.25], [-1.0, 3.0]]]
_SDPA_OUT = [[[-0.6576797877936053, 0.3288398938968026], [0.0, 0.0], [0.7027277190088881, 0.729696374654816]]]
_SDPA_GRADS = (
    [[[0.6784035197245653, 1.8090760525988405], [0.0, 0.0], [-0.9298208469217148, 0.4649104234608574]]],
    [[[0.9171794366105676, -2.144299155528374], [-0.46491042346085754, 1.2397611292289532],
      [-0.45226901314971013, 0.9045380262994203]]],
    [[[0.10551110510066358, -0.07587039752873515], [-0.864848187327408, 2.594544561982224],
      [0.7593370822267443, -1.5186741644534887]]],
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_sdpa_query_with_every_key_masked_gives_zero_and_zero_gradient_as_torch(dtype, mask_kind):
    """PyTorch's attention (``_safe_softmax``) gives 0 to a query that may attend to no key,
    and its gradient 0, where a plain softmax gives 0/0 = NaN."""
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-14)
    q, k, v = (mg.tensor(np.array(a, dtype), requires_grad=True) for a in (_SDPA_Q, _SDPA_K, _SDPA_V))
    allowed = np.array(_SDPA_MASK)
    mask = allowed if mask_kind == "bool" else np.where(allowed, 0.0, -np.inf).astype(dtype)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.numpy(), _SDPA_OUT, **tol)
    out.backward(mg.tensor(np.array(_SDPA_G, dtype)))
    for t, want in zip((q, k, v), _SDPA_GRADS):
        np.testing.assert_allclose(t.grad.numpy(), want, **tol)
    # forward mode and a second derivative stay finite (0 on the empty row)
    _, tangent = mg.func.jvp(lambda a: F.scaled_dot_product_attention(a, k, v, attn_mask=mask),
                             (q.detach(),), (mg.ones_like(q),))
    assert (tangent.numpy()[0, 1] == 0).all() and np.isfinite(tangent.numpy()).all()
    (gq,) = mg.grad(F.scaled_dot_product_attention(q, k, v, attn_mask=mask).sum(), [q], create_graph=True)
    (ggq,) = mg.grad((gq * gq).sum(), [q])
    assert np.isfinite(ggq.numpy()).all()


def test_multihead_attention_empty_rows_nan_with_weights_zero_without_as_torch():
    """PyTorch's MultiheadAttention: a softmax when it returns the weights (NaN for a query
    with every key masked), ``scaled_dot_product_attention`` when it does not (0; the output
    is then out_proj's bias there). torch 2.13, train mode:
    ``mha(x, x, x, attn_mask=[[True, True], [False, False]], need_weights=...)``."""
    mg.manual_seed(0)
    mha = mg.nn.MultiheadAttention(4, 2)
    mg.nn.init.normal_(mha.out_proj.bias)
    x = mg.randn(2, 1, 4, requires_grad=True)
    masked = np.array([[True, True], [False, False]])  # True = masked, in MultiheadAttention
    out, weights = mha(x, x, x, attn_mask=masked)
    assert np.isnan(out.numpy()[0]).all() and np.isnan(weights.numpy()[0, 0]).all()
    assert np.isfinite(out.numpy()[1]).all()
    out, weights = mha(x, x, x, attn_mask=masked, need_weights=False)
    assert weights is None
    np.testing.assert_array_equal(out.numpy()[0, 0], mha.out_proj.bias.numpy())
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


@pytest.mark.parametrize("where", ["sdpa", "mha"])
def test_causal_attention_records_one_softmax_op(where):
    """The attention paths without a mask array use the one op (no scores kept beside it)."""
    mg.manual_seed(0)
    x = mg.randn(2, 5, 8, requires_grad=True)
    if where == "sdpa":
        out = F.scaled_dot_product_attention(x, x, x, is_causal=True)
    else:
        out = mg.nn.MultiheadAttention(8, 2, batch_first=True)(x, x, x, need_weights=False, is_causal=True)[0]
    names = [n.op.name for n in mg.tape.walk(out)]
    assert names.count("ScaledSoftmax") == 1
    assert not {"Softmax", "TrilFill"} & set(names)


# ------------------------------------------------ normalization with its affine as one op
def _norm_chain(kind, x, w, b):
    """What AffineNormalize replaces: Normalize, then Mul and Add."""
    from minigrad_ckpt.ops.norm import Normalize
    from minigrad_ckpt.tape import apply
    if kind == "layer":
        return apply(Normalize(axes=(2, 3), eps=1e-5), x) * w + b
    if kind == "group":  # three groups of one channel each, as group_norm reshaped them before
        normalized = mg.reshape(apply(Normalize(axes=(2,), eps=1e-5), mg.reshape(x, (4, 3, 25))), x.shape)
        return normalized * mg.reshape(w, (1, 3, 1, 1)) + mg.reshape(b, (1, 3, 1, 1))
    axes = (0, 2, 3) if kind == "batch" else (2, 3)
    return apply(Normalize(axes=axes, eps=1e-5), x) * mg.reshape(w, (1, 3, 1, 1)) + mg.reshape(b, (1, 3, 1, 1))


def _norm_fused(kind, x, w, b):
    if kind == "layer":
        return F.layer_norm(x, (5, 5), w, b)
    if kind == "batch":
        return F.batch_norm(x, None, None, w, b, training=True)
    if kind == "group":
        return F.group_norm(x, 3, w, b)
    return F.instance_norm(x, weight=w, bias=b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["layer", "batch", "instance", "group"])
def test_norm_layers_are_their_three_ops_bit_for_bit_keeping_one_array_less(dtype, kind):
    """layer/batch/instance/group norm with weight and bias are one op (AffineNormalize): values,
    gradients of x, weight and bias, and tangents equal Normalize-Mul-Add's exactly, and
    the op keeps x only -- not also the normalized x, as the Mul did."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 3, 5, 5)).astype(dtype)
    pshape = (5, 5) if kind == "layer" else (3,)
    wa, ba = (rng.standard_normal(pshape).astype(dtype) for _ in range(2))
    g = mg.tensor(rng.standard_normal(a.shape).astype(dtype))
    results, saved = [], []
    for fn in (_norm_fused, _norm_chain):
        x, w, b = (mg.tensor(v, requires_grad=True) for v in (a, wa, ba))
        h = mg.tanh(x)  # not a leaf: the ledger counts what is kept of it
        with mg.memory.track() as ledger:
            y = fn(kind, h, w, b)
        saved.append(ledger.peak("saved"))
        grads = mg.grad((y * g).sum(), [x, w, b])
        _, tangent = mg.func.jvp(lambda t, fn=fn, w=w, b=b: fn(kind, t, w, b), (mg.tensor(a),), (g,))
        results.append([v.numpy() for v in (y, *grads, tangent)])
    for mine, chain in zip(*results):
        np.testing.assert_array_equal(mine, chain)
    assert saved == [a.nbytes, 2 * a.nbytes]  # h alone, against h and the normalized h


def test_norm_without_weight_or_bias_keeps_the_separate_ops():
    x = mg.randn(2, 3, 4, requires_grad=True)
    for y, expected in ((F.layer_norm(x, (4,)), {"Normalize"}),
                        (F.layer_norm(x, (4,), weight=mg.ones(4)), {"Normalize", "Mul"}),
                        (F.layer_norm(x, (4,), mg.ones(4), mg.zeros(4)), {"AffineNormalize"})):
        assert {n.op.name for n in mg.tape.walk(y)} == expected


def test_softmax_of_integers_is_refused_and_a_float_distribution_with_dtype():
    with pytest.raises(NotImplementedError, match="softmax_lastdim_kernel_impl"):  # PyTorch's kernel is float only
        F.softmax(mg.tensor(np.array([1, 2, 3])), axis=0)
    y = F.softmax(mg.tensor(np.array([1, 2, 3])), axis=0, dtype=mg.float32)  # PyTorch's way to ask for it
    assert y.dtype == mg.float32
    np.testing.assert_allclose(y.numpy(), np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum(), rtol=1e-6)


def test_margin_ranking_loss_refuses_inputs_of_different_dims_as_pytorch():
    # torch 2.13: the three tensors must have the same number of dims; sizes then broadcast
    with pytest.raises(RuntimeError, match=re.escape("All input tensors should have same dimension but got sizes: "
                                                     "input1: torch.Size([3, 1]), input2: torch.Size([3, 4]), "
                                                     "target: torch.Size([4])")):
        F.margin_ranking_loss(mg.zeros(3, 1), mg.zeros(3, 4), mg.ones(4))
    loss = F.margin_ranking_loss(mg.tensor([[1.0], [2.0]]), mg.tensor([[0.5, 3.0], [1.0, 1.0]]),
                                 mg.tensor([[1.0, -1.0]]), reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [[0.0, 0.0], [0.0, 1.0]])
