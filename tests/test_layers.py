"""Layers: output shapes, PyTorch's initialisation, BatchNorm statistics,
shape errors that name the layer, causal attention."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def compact(s: str) -> str:
    return s.replace(" ", "")


# ------------------------------------------------------------------ shapes
@pytest.mark.parametrize("layer, in_shape, out_shape", [
    (lambda: nn.Linear(4, 3), (5, 4), (5, 3)),
    (lambda: nn.Linear(4, 3), (2, 5, 4), (2, 5, 3)),
    (lambda: nn.Linear(4, 3), (4,), (3,)),
    (lambda: nn.Linear(4, 3, bias=False), (5, 4), (5, 3)),
    (lambda: nn.Conv2d(3, 8, 3), (2, 3, 10, 9), (2, 8, 8, 7)),
    (lambda: nn.Conv2d(3, 8, 3, stride=2, padding=1), (2, 3, 10, 9), (2, 8, 5, 5)),
    (lambda: nn.Conv2d(4, 8, (3, 1), padding="same", groups=2), (2, 4, 6, 5), (2, 8, 6, 5)),
    (lambda: nn.Conv2d(3, 2, 3, dilation=2), (3, 9, 9), (2, 5, 5)),
    (lambda: nn.MaxPool2d(2), (2, 3, 8, 6), (2, 3, 4, 3)),
    (lambda: nn.AvgPool2d(3, stride=1, padding=1), (2, 3, 8, 6), (2, 3, 8, 6)),
    (lambda: nn.LayerNorm(6), (2, 5, 6), (2, 5, 6)),
    (lambda: nn.LayerNorm((5, 6)), (2, 5, 6), (2, 5, 6)),
    (lambda: nn.BatchNorm1d(3), (4, 3), (4, 3)),
    (lambda: nn.BatchNorm1d(3), (4, 3, 7), (4, 3, 7)),
    (lambda: nn.BatchNorm2d(3), (4, 3, 2, 2), (4, 3, 2, 2)),
    (lambda: nn.Dropout(0.3), (4, 5), (4, 5)),
    (lambda: nn.Flatten(), (2, 3, 4, 5), (2, 60)),
    (lambda: nn.Flatten(0, 1), (2, 3, 4), (6, 4)),
    (lambda: nn.Flatten(2), (2, 3, 4, 5), (2, 3, 20)),
    (lambda: nn.Identity(), (2, 3), (2, 3)),
    (lambda: nn.ReLU(), (2, 3), (2, 3)),
    (lambda: nn.GELU(), (2, 3), (2, 3)),
    (lambda: nn.SiLU(), (2, 3), (2, 3)),
    (lambda: nn.Tanh(), (2, 3), (2, 3)),
    (lambda: nn.Sigmoid(), (2, 3), (2, 3)),
    (lambda: nn.LeakyReLU(0.2), (2, 3), (2, 3)),
    (lambda: nn.Softmax(axis=0), (2, 3), (2, 3)),
    (lambda: nn.LogSoftmax(dim=1), (2, 3), (2, 3)),
    (lambda: nn.TransformerBlock(8, 2), (2, 5, 8), (2, 5, 8)),
    (lambda: nn.TransformerBlock(8, 2, mlp_ratio=2, causal=True, activation="silu"), (2, 5, 8), (2, 5, 8)),
])
def test_output_shapes(layer, in_shape, out_shape):
    out = layer()(mg.randn(*in_shape))
    assert out.shape == out_shape


def test_embedding_shapes_and_lookup():
    emb = nn.Embedding(10, 4)
    ids = mg.tensor([[1, 2, 3], [3, 2, 9]])
    out = emb(ids)
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.numpy()[1, 0], emb.weight.numpy()[3])


def test_activation_modules_match_functional():
    F = nn.functional
    x = mg.randn(3, 4, dtype="float64")
    pairs = [(nn.ReLU(), F.relu), (nn.GELU(), F.gelu), (nn.GELU("tanh"), lambda t: F.gelu(t, approximate="tanh")),
             (nn.SiLU(), F.silu), (nn.Tanh(), F.tanh), (nn.Sigmoid(), F.sigmoid),
             (nn.LeakyReLU(0.3), lambda t: F.leaky_relu(t, 0.3)), (nn.Softmax(axis=0), lambda t: F.softmax(t, 0)),
             (nn.LogSoftmax(), lambda t: F.log_softmax(t, -1))]
    for module, fn in pairs:
        np.testing.assert_array_equal(module(x).numpy(), fn(x).numpy(), err_msg=repr(module))


def test_mha_output_and_weight_shapes():
    mha = nn.MultiheadAttention(8, 2)
    q, kv = mg.randn(4, 3, 8), mg.randn(6, 3, 8)
    out, w = mha(q, kv, kv)
    assert out.shape == (4, 3, 8) and w.shape == (3, 4, 6)
    out, w = mha(q, kv, kv, average_attn_weights=False)
    assert w.shape == (3, 2, 4, 6)
    out, w = mha(q, q, q, need_weights=False)
    assert w is None
    bf = nn.MultiheadAttention(8, 2, batch_first=True)
    out, w = bf(mg.randn(3, 4, 8), mg.randn(3, 6, 8), mg.randn(3, 6, 8))
    assert out.shape == (3, 4, 8) and w.shape == (3, 4, 6)
    out, w = bf(mg.randn(4, 8), mg.randn(6, 8), mg.randn(6, 8))  # unbatched
    assert out.shape == (4, 8) and w.shape == (4, 6)
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-6)


# -------------------------------------------------------------- initialisation
@pytest.mark.parametrize("make, fan_in", [
    (lambda: nn.Linear(50, 40), 50),
    (lambda: nn.Linear(7, 300), 7),
    (lambda: nn.Conv2d(6, 16, 3), 6 * 9),
    (lambda: nn.Conv2d(8, 16, (3, 5), groups=4), 2 * 15),
])
def test_linear_and_conv_init_within_kaiming_uniform_bound(make, fan_in):
    mg.manual_seed(0)
    m = make()
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    for name in ("weight", "bias"):
        v = getattr(m, name).numpy()
        assert np.abs(v).max() <= bound, name
    w = m.weight.numpy()
    assert np.abs(w).max() > 0.9 * bound  # fills the whole interval ...
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.15)  # ... uniformly
    assert abs(w.mean()) < 0.1 * bound


def test_init_reproducible_with_manual_seed_and_seed_dependent():
    def build():
        return nn.Sequential(nn.Conv2d(2, 3, 3), nn.Linear(4, 5), nn.Embedding(6, 2), nn.MultiheadAttention(4, 2))

    mg.manual_seed(42)
    a = build().state_dict()
    mg.manual_seed(42)
    b = build().state_dict()
    mg.manual_seed(43)
    c = build().state_dict()
    for k in a:
        np.testing.assert_array_equal(a[k].numpy(), b[k].numpy(), err_msg=k)
    for k in ("0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "3.in_proj_weight", "3.out_proj.weight"):
        assert not np.array_equal(a[k].numpy(), c[k].numpy()), k
    # two layers built one after the other differ
    mg.manual_seed(0)
    assert not np.array_equal(nn.Linear(3, 3).weight.numpy(), nn.Linear(3, 3).weight.numpy())


def test_init_dtype_argument():
    m = nn.Linear(3, 2, dtype="float64")
    assert m.weight.dtype == np.float64 and m.bias.dtype == np.float64
    assert nn.Linear(3, 2).weight.dtype == np.float32


def test_norm_and_embedding_init():
    ln = nn.LayerNorm((2, 3))
    np.testing.assert_array_equal(ln.weight.numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(ln.bias.numpy(), np.zeros((2, 3)))
    assert nn.LayerNorm(3, elementwise_affine=False).weight is None
    assert nn.LayerNorm(3, bias=False).bias is None
    bn = nn.BatchNorm2d(4)
    for name, want in (("weight", 1), ("bias", 0), ("running_mean", 0), ("running_var", 1)):
        np.testing.assert_array_equal(getattr(bn, name).numpy(), np.full(4, want), err_msg=name)
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == np.int64
    mg.manual_seed(0)
    w = nn.Embedding(1000, 50).weight.numpy()
    assert abs(w.mean()) < 0.02 and w.std() == pytest.approx(1.0, rel=0.03)


def test_mha_init_like_torch():
    mg.manual_seed(0)
    m = nn.MultiheadAttention(16, 4)
    bound = math.sqrt(6 / (16 + 48))  # xavier_uniform on the (3E, E) in-projection
    w = m.in_proj_weight.numpy()
    assert w.shape == (48, 16) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not m.in_proj_bias.numpy().any() and not m.out_proj.bias.numpy().any()
    assert np.abs(m.out_proj.weight.numpy()).max() <= 1 / 4


# --------------------------------------------------------------- batch norm
def _batches(shape, n=4, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) * (1 + i) + i for i in range(n)]


def _stats(x: np.ndarray):
    axes = (0,) + tuple(range(2, x.ndim))
    return x.mean(axis=axes), x.var(axis=axes, ddof=1)


@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (8, 3)), (nn.BatchNorm1d, (4, 3, 5)),
                                        (nn.BatchNorm2d, (2, 3, 4, 5))])
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batchnorm_running_stats_exponential_average(cls, shape, momentum):
    bn = cls(3, momentum=momentum, dtype="float64")
    rm, rv = np.zeros(3), np.ones(3)
    for i, x in enumerate(_batches(shape)):
        bn(mg.tensor(x))
        mean, var = _stats(x)
        rm = (1 - momentum) * rm + momentum * mean
        rv = (1 - momentum) * rv + momentum * var  # unbiased batch variance, as PyTorch
        np.testing.assert_allclose(bn.running_mean.numpy(), rm, rtol=1e-12)
        np.testing.assert_allclose(bn.running_var.numpy(), rv, rtol=1e-12)
        assert bn.num_batches_tracked.item() == i + 1


@pytest.mark.parametrize("cls, shape", [(nn.BatchNorm1d, (8, 3)), (nn.BatchNorm2d, (2, 3, 4, 5))])
def test_batchnorm_momentum_none_is_cumulative_average(cls, shape):
    bn = cls(3, momentum=None, dtype="float64")
    batches = _batches(shape, n=5)
    for x in batches:
        bn(mg.tensor(x))
    means, variances = zip(*(_stats(x) for x in batches))
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean(means, axis=0), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean(variances, axis=0), rtol=1e-12)
    assert bn.num_batches_tracked.item() == 5


def test_batchnorm_train_normalizes_with_batch_stats_and_eval_uses_running_stats():
    bn = nn.BatchNorm2d(3, eps=1e-3, dtype="float64")
    with mg.no_grad():
        bn.weight.copy_(mg.tensor([1.0, 2.0, 0.5], dtype="float64"))
        bn.bias.copy_(mg.tensor([0.0, -1.0, 3.0], dtype="float64"))
    w, b = bn.weight.numpy()[None, :, None, None], bn.bias.numpy()[None, :, None, None]
    x = _batches((4, 3, 2, 3), n=1)[0]
    out = bn(mg.tensor(x)).numpy()
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)  # biased variance to normalize
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3) * w + b, rtol=1e-10)
    bn.eval()
    rm, rv = bn.running_mean.numpy().copy(), bn.running_var.numpy().copy()
    y = _batches((2, 3, 2, 3), n=1, seed=5)[0]
    out = bn(mg.tensor(y)).numpy()
    want = (y - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-3) * w + b
    np.testing.assert_allclose(out, want, rtol=1e-10)
    # eval changes no statistics, and works on a single sample
    bn(mg.tensor(y[:1]))
    np.testing.assert_array_equal(bn.running_mean.numpy(), rm)
    np.testing.assert_array_equal(bn.running_var.numpy(), rv)
    assert bn.num_batches_tracked.item() == 1


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(3, track_running_stats=False, affine=False, dtype="float64")
    assert bn.running_mean is None and "running_mean" not in bn.state_dict()
    assert list(bn.parameters()) == []
    x = _batches((6, 3), n=1)[0]
    bn.eval()
    out = bn(mg.tensor(x)).numpy()
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10)


def test_batchnorm_one_value_per_channel_in_training_is_an_error():
    with pytest.raises(ValueError, match="more than 1 value"):
        nn.BatchNorm1d(3)(mg.randn(1, 3))


# ------------------------------------------------------------- shape errors
@pytest.mark.parametrize("layer, x_shape, parts", [
    (lambda: nn.Linear(4, 3), (2, 5), ["Linear(in_features=4", "(2,5)", "(3,4)"]),
    (lambda: nn.Linear(4, 3), (), ["Linear", "()", "(3,4)"]),
    (lambda: nn.Conv2d(3, 8, 3), (2, 4, 9, 9), ["Conv2d(3,8", "input[2,4,9,9]", "weightofsize[8,3,3,3]"]),
    (lambda: nn.Conv2d(3, 8, 3), (3, 9), ["Conv2d(3,8", "inputofsize:[3,9]"]),
    (lambda: nn.Conv2d(4, 8, 3, groups=2), (1, 2, 9, 9), ["Conv2d(4,8", "input[1,2,9,9]", "weightofsize[8,2,3,3]"]),
    (lambda: nn.BatchNorm1d(3), (4, 5), ["BatchNorm1d(3", "(4,5)"]),
    (lambda: nn.BatchNorm2d(3), (4, 3, 5), ["BatchNorm2d(3", "(4,3,5)"]),
    (lambda: nn.BatchNorm2d(3), (4, 2, 5, 5), ["BatchNorm2d(3", "(4,2,5,5)"]),
    (lambda: nn.LayerNorm(6), (2, 5), ["LayerNorm((6,)", "(2,5)"]),
    (lambda: nn.TransformerBlock(8, 2), (2, 5, 6), ["(2,5,6)"]),
])
def test_shape_errors_name_the_layer_and_both_shapes(layer, x_shape, parts):
    with pytest.raises(ValueError) as exc:
        layer()(mg.randn(*x_shape))
    msg = compact(str(exc.value))
    for part in parts:
        assert part in msg, (part, str(exc.value))


def test_mha_shape_and_mask_errors():
    mha = nn.MultiheadAttention(8, 2)
    with pytest.raises(ValueError, match=r"MultiheadAttention\(embed_dim=8, num_heads=2\).*\(4, 3, 6\)"):
        x = mg.randn(4, 3, 6)
        mha(x, x, x)
    x = mg.randn(4, 3, 8)
    with pytest.raises(ValueError, match=r"attn_mask.*\(4, 5\)"):
        mha(x, x, x, attn_mask=mg.zeros(4, 5))
    with pytest.raises(ValueError, match=r"key_padding_mask.*\(3, 4\)"):
        mha(x, x, x, key_padding_mask=mg.zeros(4, 3, dtype="bool"))
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerBlock(8, 2, activation="swish")


def test_layer_constructor_errors():
    with pytest.raises(ValueError, match="groups"):
        nn.Conv2d(3, 6, 3, groups=2)
    with pytest.raises(ValueError, match="p must be"):
        nn.Dropout(-0.1)


def test_embedding_out_of_range_id():
    with pytest.raises(IndexError, match="index out of range in self"):
        nn.Embedding(10, 2)(mg.tensor([1, 10]))


# --------------------------------------------------------------- causality
def _perturb_after(x: np.ndarray, i: int, axis: int) -> np.ndarray:
    y = x.copy()
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(i + 1, None)
    y[tuple(idx)] += np.random.default_rng(i).standard_normal(y[tuple(idx)].shape) * 3
    return y


@pytest.mark.parametrize("batch_first", [True, False])
def test_mha_causal_output_ignores_future_positions(batch_first):
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype="float64")
    L = 6
    axis = 1 if batch_first else 0
    shape = (2, L, 8) if batch_first else (L, 2, 8)
    x = np.random.default_rng(0).standard_normal(shape)

    def run(a, **kw):
        t = mg.tensor(a)
        return mha(t, t, t, **kw)[0].numpy()

    causal_mask = mg.tensor(np.triu(np.ones((L, L), dtype=bool), 1))  # True = masked (PyTorch)
    for kw in ({"is_causal": True}, {"attn_mask": causal_mask}):
        base = run(x, **kw)
        for i in range(L - 1):
            out = run(_perturb_after(x, i, axis), **kw)
            head = [slice(None)] * 3
            head[axis] = slice(0, i + 1)
            np.testing.assert_allclose(out[tuple(head)], base[tuple(head)], rtol=1e-12, atol=1e-12)
            tail = [slice(None)] * 3
            tail[axis] = slice(i + 1, None)
            assert not np.allclose(out[tuple(tail)], base[tuple(tail)])
    # without the mask the first position does see the future
    out = run(_perturb_after(x, 0, axis))
    first = [slice(None)] * 3
    first[axis] = 0
    assert not np.allclose(out[tuple(first)], run(x)[tuple(first)])


@pytest.mark.parametrize("layout", ["batch_first", "seq_first", "unbatched"])
@pytest.mark.parametrize("pattern", ["query is key is value", "key is value", "all different"])
def test_mha_projects_shared_inputs_once_with_the_same_results(layout, pattern):
    """Self-attention is one packed in-projection and key-is-value one joint key/value
    projection (PyTorch's paths), whatever the layout; the results equal those of three
    separate tensors holding the same numbers, values and gradients."""
    mg.manual_seed(3)
    mha = nn.MultiheadAttention(8, 2, batch_first=layout == "batch_first", dtype="float64")
    shape = {"batch_first": (2, 5, 8), "seq_first": (5, 2, 8), "unbatched": (5, 8)}[layout]
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    values = {"query is key is value": (a, a, a), "key is value": (a, b, b), "all different": (a, b, a)}[pattern]

    def run(shared: bool):
        mha.zero_grad()
        made: dict[int, mg.Tensor] = {}
        ts = [made.setdefault(id(v), mg.tensor(v, requires_grad=True)) if shared else
              mg.tensor(v, requires_grad=True) for v in values]
        out, weights = mha(*ts)
        (out.sum() + (weights ** 2).sum()).backward()
        linears = sum(n.op.name == "Linear" for n in mg.tape.walk(out))
        return out.numpy(), mha.in_proj_weight.grad.numpy(), linears

    out, grad, linears = run(shared=True)
    apart_out, apart_grad, apart_linears = run(shared=False)
    np.testing.assert_allclose(out, apart_out, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(grad, apart_grad, rtol=1e-13, atol=1e-14)
    expected = {"query is key is value": 2, "key is value": 3, "all different": 4}[pattern]  # with out_proj
    assert (linears, apart_linears) == (expected, 4)


@pytest.mark.parametrize("flag", [np.True_, 1, 0, None, np.False_])
def test_mha_and_transformer_block_take_any_truthy_causal_flag(flag):
    """``is_causal`` / ``causal`` as NumPy booleans, ints or None mean what ``bool()`` says."""
    mg.manual_seed(2)
    x = mg.randn(2, 4, 8, dtype="float64")
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype="float64")
    got = mha(x, x, x, need_weights=False, is_causal=flag)[0].numpy()
    want = mha(x, x, x, need_weights=False, is_causal=bool(flag))[0].numpy()
    np.testing.assert_array_equal(got, want)
    block = nn.TransformerBlock(8, 2, causal=flag, dtype="float64")
    block(x).sum().backward()


@pytest.mark.parametrize("causal", [True, False])
def test_transformer_block_causality(causal):
    mg.manual_seed(1)
    block = nn.TransformerBlock(8, 2, causal=causal, dtype="float64")
    x = np.random.default_rng(1).standard_normal((2, 5, 8))
    base = block(mg.tensor(x)).numpy()
    for i in range(4):
        out = block(mg.tensor(_perturb_after(x, i, 1))).numpy()
        assert np.allclose(out[:, : i + 1], base[:, : i + 1], rtol=1e-12, atol=1e-12) == causal
    # gradient view: d out[:, i] / d x[:, j] is zero for j > i
    if causal:
        t = mg.tensor(x, requires_grad=True)
        block(t)[:, 2].sum().backward()
        g = t.grad.numpy()
        assert not g[:, 3:].any() and g[:, :3].any()


def test_transformer_block_dropout_only_in_training():
    mg.manual_seed(0)
    block = nn.TransformerBlock(8, 2, dropout=0.5)
    x = mg.randn(2, 4, 8)
    block.eval()
    np.testing.assert_array_equal(block(x).numpy(), block(x).numpy())
    block.train()
    assert not np.array_equal(block(x).numpy(), block(x).numpy())
