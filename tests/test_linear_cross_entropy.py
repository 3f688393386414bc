"""``F.linear_cross_entropy``, ``nn.LinearCrossEntropyLoss`` and ``nn.LinearCrossEntropyOptions``:
PyTorch 2.13's answers (pasted, and ``tests/data/linear_cross_entropy_reference.npz``), the chunked
path equal to the reference to round-off in every mode of differentiation, and its point -- the
``(N, C)`` logits never held whole.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.ops.linear_cross_entropy import LinearLogSumExp
from minigrad_ckpt.utils.checkpoint import checkpoint

sys.path.insert(0, str(Path(__file__).parent / "data"))
from linear_cross_entropy_cases import CASES, inputs  # noqa: E402

REFERENCE = np.load(Path(__file__).parent / "data" / "linear_cross_entropy_reference.npz")
Options = nn.LinearCrossEntropyOptions


def _options(chunks):
    if chunks is None:
        return None
    return Options() if chunks == "auto" else Options(batch_chunk_size=chunks)


def _call(name, case, a):
    x, w, b = (mg.tensor(a[k], requires_grad=True) for k in ("x", "w", "b"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.linear_cross_entropy(x, w, mg.tensor(a["t"]), linear_bias=b if case["bias"] else None,
                                      weight=mg.tensor(a["cw"]) if case["weight"] else None,
                                      reduction=case["reduction"], ignore_index=case["ignore_index"],
                                      label_smoothing=case.get("label_smoothing", 0.0),
                                      options=_options(case["chunks"]))
    return x, w, b, loss, caught


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_equals_torch(name):
    case, a = CASES[name], inputs(name)
    x, w, b, loss, caught = _call(name, case, a)
    (loss * mg.tensor(a["g"])).sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), REFERENCE[f"{name}|loss"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), REFERENCE[f"{name}|gx"], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), REFERENCE[f"{name}|gw"], rtol=1e-11, atol=1e-12)
    if case["bias"]:
        np.testing.assert_allclose(b.grad.numpy(), REFERENCE[f"{name}|gb"], rtol=1e-11, atol=1e-12)
    warned = any("options`` ignored" in str(c.message) for c in caught)
    assert warned == bool(REFERENCE[f"{name}|warned"])


def _head(seed=0, n=9, d=4, c=7):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, c, n)
    t[2] = -100
    return (mg.tensor(rng.standard_normal((n, d))), mg.tensor(rng.standard_normal((c, d))),
            mg.tensor(rng.standard_normal(c)), mg.tensor(t), mg.tensor(rng.random(c) + 0.5))


def _loss(options, reduction="mean"):
    *_, t, cw = _head()
    return lambda x, w, b: F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction=reduction,
                                                  options=options)


CHUNKED = Options(batch_chunk_size=4)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_forward_mode_tangents_equal_the_reference(reduction):
    x, w, b, *_ = _head()
    rng = np.random.default_rng(1)
    tangents = tuple(mg.tensor(rng.standard_normal(v.shape)) for v in (x, w, b))
    _, ref = mg.func.jvp(_loss(None, reduction), (x, w, b), tangents)
    _, chunked = mg.func.jvp(_loss(CHUNKED, reduction), (x, w, b), tangents)
    _close(chunked.numpy(), ref.numpy())


def test_func_grad_vmap_and_hessian_equal_the_reference():
    x, w, b, *_ = _head()
    for a, r in zip(mg.func.grad(_loss(CHUNKED), argnums=(0, 1, 2))(x, w, b),
                    mg.func.grad(_loss(None), argnums=(0, 1, 2))(x, w, b)):
        _close(a.numpy(), r.numpy())
    xs = mg.tensor(np.random.default_rng(2).standard_normal((3,) + tuple(x.shape)))
    per_sample = [mg.func.vmap(mg.func.grad(lambda v, o=o: _loss(o)(v, w, b)))(xs) for o in (CHUNKED, None)]
    _close(per_sample[0].numpy(), per_sample[1].numpy())
    hessians = [mg.func.hessian(lambda v, o=o: _loss(o)(x, w, v))(b) for o in (CHUNKED, None)]
    _close(hessians[0].numpy(), hessians[1].numpy())


def test_inside_a_checkpoint_and_a_second_backward():
    x0, w0, *_ = _head()
    grads = []
    for options, checkpointed in ((None, False), (CHUNKED, True)):
        x, w = mg.tensor(x0.numpy(), requires_grad=True), mg.tensor(w0.numpy(), requires_grad=True)
        f = lambda v, options=options, w=w: _loss(options)(v, w, None)  # noqa: E731
        (checkpoint(f, x, use_reentrant=False) if checkpointed else f(x)).backward()
        grads.append((x.grad.numpy(), w.grad.numpy()))
    for a, r in zip(*grads):
        _close(a, r)
    # PyTorch's chunked backward consumes buffers it computed in forward; this one recomputes its
    # chunks, so retain_graph=True works with the default options (a decision, docs/from-pytorch.md)
    x = mg.tensor(x0.numpy(), requires_grad=True)
    loss = _loss(CHUNKED)(x, w0, None)
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first)


@pytest.mark.parametrize("device, dtype", [("strict", mg.float64), ("strict-f32", mg.float32)])
def test_on_the_strict_device(device, dtype):
    x0, w0, b0, t0, cw0 = _head()
    x, w, b = (mg.tensor(v.numpy(), dtype=dtype, device=device, requires_grad=True) for v in (x0, w0, b0))
    t, cw = mg.tensor(t0.numpy(), device=device), mg.tensor(cw0.numpy(), dtype=dtype, device=device)
    loss = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction="none", options=CHUNKED)
    loss.sum().backward()
    host = [mg.tensor(v.numpy(), dtype=dtype) for v in (x0, w0, b0, cw0)]
    ref = F.linear_cross_entropy(host[0], host[1], t0, linear_bias=host[2], weight=host[3], reduction="none")
    np.testing.assert_allclose(loss.detach().cpu().numpy(), ref.numpy(), rtol=1e-5 if dtype == mg.float32 else 1e-12)
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 1 with size 7"):
        F.linear_cross_entropy(x, w, mg.tensor([0] * 8 + [7], device=device), options=CHUNKED)


def test_the_logits_are_never_held_whole():
    # A GPT head in small: 512 positions, 4096 classes, 64 features. The plain head keeps its
    # (512, 4096) logits for backward (8 MiB of float32) and sends a gradient of that size; the
    # chunked one keeps the input's rows and one log-sum-exp per row. (At 4096 x 32768 x 256 the
    # ledger's peaks were 1024 MiB and 68 MiB, tracemalloc's 1024 MiB and 108 MiB.)
    rng = np.random.default_rng(0)
    h0 = rng.standard_normal((512, 64)).astype(np.float32)
    w0 = (rng.standard_normal((4096, 64)) * 0.02).astype(np.float32)
    t = mg.tensor(rng.integers(0, 4096, 512))
    peaks, grads = {}, {}
    for name, loss_of in (("plain", lambda h, w: F.cross_entropy(F.linear(h, w), t)),
                          ("chunked", lambda h, w: F.linear_cross_entropy(h, w, t, options=Options()))):
        h, w = mg.tensor(h0, requires_grad=True), mg.tensor(w0, requires_grad=True)
        with mg.memory.track() as ledger:
            loss_of(h, w).backward()
        peaks[name], grads[name] = (ledger.peak("saved"), ledger.peak("total")), (h.grad.numpy(), w.grad.numpy())
    logits_bytes = 512 * 4096 * 4
    assert peaks["plain"][0] >= logits_bytes
    # in flight: the weight's (4096, 64) gradient, twice as its two terms meet -- 1/8 of the logits
    assert peaks["chunked"][0] < logits_bytes / 20 and peaks["chunked"][1] < peaks["plain"][1] / 6
    for a, r in zip(grads["chunked"], grads["plain"]):
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-7)


def test_the_op_saves_its_output_and_recomputes_each_chunk():
    op = LinearLogSumExp(chunk_rows=2)
    x, w = np.random.default_rng(3).standard_normal((5, 3)), np.random.default_rng(4).standard_normal((4, 3))
    np.testing.assert_allclose(op.forward(np, x, w, None), op.reference(np, x, w, None), rtol=1e-15)
    assert LinearLogSumExp.save_output


def test_options_match_torch():
    # torch 2.13: LinearCrossEntropyOptions()._adjust(...) and its refusals
    cpu = mg.zeros(1).device
    adjusted = [(Options(), (4096, 256, 32768, mg.float32, cpu), (16, "aspect_ratio:2", "compact", mg.float32)),
                (Options(), (4096, 256, 32768, mg.float16, cpu), (32, "aspect_ratio", "accurate", mg.float32)),
                (Options(), (4096, 256, 32768, mg.float16, None), (16, "aspect_ratio:2", "compact", mg.float16)),
                (Options(batch_chunk_size=100), (4096, 256, 32768, mg.float32, cpu),
                 (100, None, "compact", mg.float32)),
                (Options(chunking_method="aspect_ratio:4"), (1000, 64, 50000, mg.float64, cpu),
                 (1, "aspect_ratio:4", "compact", mg.float64)),
                (Options(batch_chunk_size=10), (7, 4, 6, mg.float64, cpu), (7, None, "compact", mg.float64))]
    for options, args, expected in adjusted:
        got = options._adjust(*args)
        assert (got.batch_chunk_size, got.chunking_method, got.acc_policy, got.acc_dtype) == expected
    with pytest.raises(ValueError, match=r"^batch_chunk_size \(=8\) and chunking_method \('aspect_ratio'\) give "
                                         r"different chunk sizes \(8 vs 32\); pass only one\.$"):
        Options(batch_chunk_size=8, chunking_method="aspect_ratio")._adjust(4096, 256, 32768, mg.float32, cpu)
    refusals = {"acc_policy": ("x", "invalid acc_policy: 'x'"),
                "chunking_method": ("aspect_ratio:0", "invalid chunking_method: 'aspect_ratio:0'"),
                "batch_chunk_size": (0, "batch_chunk_size must be positive int or None, got 0"),
                "acc_dtype": ("float32", "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                                         "torch.float32, torch.float64}, got 'float32'. Pass acc_dtype=None to let "
                                         "the op pick automatically.")}
    for field, (value, message) in refusals.items():
        with pytest.raises(ValueError) as info:
            Options(**{field: value})
        assert str(info.value) == message
    assert repr(Options()) == ("LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, "
                               "chunking_method='auto', acc_policy='auto', acc_dtype=None)")


X, W = mg.tensor(np.ones((3, 4))), mg.tensor(np.ones((5, 4)))
ERRORS = [  # torch 2.13's RuntimeErrors, word for word
    (lambda: F.linear_cross_entropy(mg.ones(2, 3, 4), W, mg.tensor([0, 1])),
     "expected input with dimensionality 1 or 2, got 3"),
    (lambda: F.linear_cross_entropy(X, mg.ones(4), mg.tensor([0, 1, 2])),
     "expected linear_weight with dimensionality at least 2, got 1"),
    (lambda: F.linear_cross_entropy(X, mg.ones(5, 3), mg.tensor([0, 1, 2])),
     "expected equal input and linear_weight last dimensions (in_features), got 4 and 3, respectively"),
    (lambda: F.linear_cross_entropy(X, W, mg.tensor([0, 1, 2]), linear_bias=mg.ones(5, 2)),
     "expected linear_bias shape (5,), got (5, 2)"),
    (lambda: F.linear_cross_entropy(mg.ones(4), mg.ones(5, 2, 3, 4), mg.tensor(np.zeros((2, 3), np.int64))),
     "K-dimensional loss defined by linear_weight shape (5, 2, 3, 4) requires batched input, (N, 4), got unbatched "
     "input with shape (4,)"),
    (lambda: F.linear_cross_entropy(X, W, mg.full((3, 5), 0.2), ignore_index=-100),
     "ignore_index cannot be specified when target contains probabilities"),
    (lambda: F.linear_cross_entropy(X, W, mg.tensor([0, 7, 1]), options=Options()),
     "index 7 is out of bounds for dimension 1 with size 5"),
    (lambda: F.linear_cross_entropy(X, W, mg.tensor([0, -1, 1]), options=Options()),
     "index -1 is out of bounds for dimension 1 with size 5"),
    (lambda: F.linear_cross_entropy(X, W, mg.tensor([0, 1, 2]), options=Options(acc_dtype=mg.float32)),
     "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got torch.float32 acc_dtype "
     "and torch.float64 inputs."),
    (lambda: nn.LinearCrossEntropyLoss(4, 5, weight=mg.ones(4)), "expected weight shape to be (5,), got (4,)"),
    (lambda: nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5),
     "expected label_smoothing to be in range [0, 1], got 1.5"),
]


@pytest.mark.parametrize("call, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_errors_are_torchs(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_the_fallback_warning_is_torchs_at_the_callers_line():
    with pytest.warns(UserWarning) as caught:
        F.linear_cross_entropy(X, W, mg.tensor([1, 2, 3]), label_smoothing=0.1, reduction="sum", options=Options())
    assert str(caught[0].message) == (
        "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
        "label_smoothing == 0, target.dtype == int64, out_features == (). Got reduction='sum', label_smoothing=0.1, "
        "target.dtype=torch.int64, out_features=(), tracing=False, linear_bias.shape=None.")
    assert caught[0].filename == __file__


def test_float16_accumulates_in_float32_as_torch():
    # torch 2.13 (CPU): acc_dtype float32 under "auto"; its answers for these inputs
    rng = np.random.default_rng(1)
    x, w = mg.tensor(rng.standard_normal((3, 4))).half(), mg.tensor(rng.standard_normal((5, 4))).half()
    t = mg.tensor([0, 1, 2])
    loss = F.linear_cross_entropy(x, w, t, reduction="none", options=Options())
    assert loss.dtype == mg.float16
    ref = F.linear_cross_entropy(x.float(), w.float(), t, reduction="none").half()
    np.testing.assert_array_equal(loss.numpy(), ref.numpy())


def test_the_layer_is_torchs():
    layer = nn.LinearCrossEntropyLoss(4, 6, bias=True, options=Options(batch_chunk_size=2))
    assert repr(layer) == (
        "LinearCrossEntropyLoss(\n  in_features=4, num_classes=6, out_features=(), bias=True, reduction=mean, "
        "ignore_index=None, label_smoothing=0.0, options=LinearCrossEntropyOptions(allow_retain_graph=False, "
        "batch_chunk_size=2, chunking_method='auto', acc_policy='auto', acc_dtype=None)\n"
        "  (linear): Linear(in_features=4, out_features=6, bias=True)\n)")
    mg.manual_seed(0)
    k_dim = nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3), weight=mg.ones(10, dtype=mg.float64),
                                      dtype=mg.float64)
    assert list(k_dim.state_dict()) == ["weight", "linear.weight"]  # flat: (120, 5), as torch's
    assert tuple(k_dim.linear.weight.shape) == (120, 5)
    x, t = mg.randn(2, 5, dtype=mg.float64, requires_grad=True), mg.randint(0, 10, (2, 4, 3))
    loss = k_dim(x, t)
    expected = F.cross_entropy(F.linear(x, k_dim.linear.weight).reshape(2, 10, 4, 3), t)
    _close(loss.item(), expected.item())
    loss.backward()
    assert k_dim.linear.weight.grad.shape == (120, 5)


@pytest.mark.parametrize("options", [None, Options()], ids=["reference", "chunked"])
def test_an_input_or_bias_of_another_dtype_is_refused_on_both_paths(options):
    # torch 2.13's chunked path: "expected m1 and m2 to have the same dtype, but got: double != float";
    # the chunked path here answered in float64, silently, before it checked as linear checks
    t = mg.zeros(8, dtype=mg.int64)
    with pytest.raises(RuntimeError, match=r"^expected m1 and m2 to have the same dtype, but got: double != float"):
        F.linear_cross_entropy(mg.randn(8, 5).double(), mg.randn(11, 5), t, options=options)
    with pytest.raises(RuntimeError, match=r"^self and mat2 must have the same dtype, but got Double and Float"):
        F.linear_cross_entropy(mg.randn(8, 5), mg.randn(11, 5), t, linear_bias=mg.randn(11).double(), options=options)
