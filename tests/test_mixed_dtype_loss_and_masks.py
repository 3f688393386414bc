"""A float tensor of another dtype beside the input, as torch 2.13 takes it
(``tests/data/make_torch_mixed_dtype_loss_and_masks.py`` writes the expected answers).

- ``F.binary_cross_entropy_with_logits``: PyTorch writes the loss into ``1 - target``, so it has
  the target's dtype; the engine promoted (a float32 target beside a float64 input gave float64,
  torch float32).  An integer target is PyTorch's cast error there, a bool one its ``-`` error
  (the engine computed with them).
- ``F.scaled_dot_product_attention``: PyTorch takes a bool mask, a float32 one beside any query, or
  one of the query's dtype; the engine refused a float32 mask beside a float64 or float16 query.
  Its messages name the dtypes as PyTorch's (``double``, ``c10::Half``).
- ``F.multi_head_attention_forward`` / ``nn.MultiheadAttention``: the engine cast any float mask to
  the query's dtype and computed; PyTorch refuses a mask of another float dtype with the weights
  (its ``baddbmm``) and applies sdpa's rule without them.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_mixed_dtype_loss_and_masks import (  # noqa: E402
    BCE_CASES,
    MHA_CASES,
    REFUSED,
    SDPA_CASES,
    attention_inputs,
    bce_inputs,
    mha_inputs,
)

REF = np.load(DATA / "torch_mixed_dtype_loss_and_masks.npz")
F = mg.nn.functional
DEVICES = ["cpu", "strict"]


def _tol(dtype):
    return {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}[str(dtype)]


def _device_for(device, *dtypes):
    # strict-f32 refuses float64: the float32-only cases run there too
    return "strict-f32" if device == "strict" and all(d in ("float32", "float16", None) for d in dtypes) else device


def _bce(name, device, wrap=lambda f, *a: f(*a)):
    x, t, w, pw, g = bce_inputs(name)
    reduction = BCE_CASES[name][-1]
    tx = mg.tensor(x, device=device, requires_grad=True)

    def loss(tx):
        return F.binary_cross_entropy_with_logits(
            tx, mg.tensor(t, device=device), None if w is None else mg.tensor(w, device=device),
            reduction=reduction, pos_weight=None if pw is None else mg.tensor(pw, device=device))
    y = wrap(loss, tx)
    (y * mg.tensor(g if reduction == "none" else 1.0, dtype=y.dtype, device=device)).sum().backward()
    return y, tx.grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BCE_CASES))
def test_bce_with_logits_has_the_targets_dtype(name, device):
    xd, td, wd, pd, _ = BCE_CASES[name]
    device = _device_for(device, xd, td, wd, pd)
    y, grad = _bce(name, device)
    assert str(y.dtype) == str(REF[f"bce|{name}|dtype"]) == td
    assert grad.dtype == xd  # (the input's gradient keeps the input's dtype, as PyTorch's)
    tol = max(_tol(xd), _tol(td))  # (PyTorch's log-sigmoid is in the input's dtype)
    np.testing.assert_allclose(y.cpu().numpy(), REF[f"bce|{name}|value"], rtol=tol, atol=tol)
    np.testing.assert_allclose(grad.cpu().numpy(), REF[f"bce|{name}|grad"], rtol=tol, atol=tol)


def test_bce_with_logits_inside_a_checkpoint_is_the_plain_one():
    plain = _bce("x64_t32_weights", "cpu")
    kept = _bce("x64_t32_weights", "cpu", lambda f, x: mg.checkpoint.checkpoint(f, x, use_reentrant=False))
    assert kept[0].dtype == mg.float32
    np.testing.assert_array_equal(kept[0].numpy(), plain[0].numpy())
    np.testing.assert_array_equal(kept[1].numpy(), plain[1].numpy())


@pytest.mark.parametrize("target, message", [
    (mg.tensor([[0, 1, 1]]), "result type Double can't be cast to the desired output type Long"),
    (mg.tensor([[False, True, True]]), "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                        "Use the `^` or `logical_xor()` operator instead."),
])
def test_bce_with_logits_refuses_an_integer_or_bool_target_as_pytorch(target, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        F.binary_cross_entropy_with_logits(mg.zeros(1, 3, dtype=mg.float64), target)
    with pytest.raises(RuntimeError, match=re.escape(message)):  # (Bernoulli's log_prob is the loss: torch's too)
        mg.distributions.Bernoulli(logits=mg.zeros(3, dtype=mg.float64)).log_prob(target[0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(SDPA_CASES))
def test_sdpa_takes_a_float32_mask_beside_a_wider_or_half_query(name, device):
    qd, md = SDPA_CASES[name]
    device = _device_for(device, qd, md)
    q, k, v, mask, g = attention_inputs(qd, md)
    tq = mg.tensor(q, device=device, requires_grad=True)

    def attend(tq):
        return F.scaled_dot_product_attention(tq, mg.tensor(k, device=device), mg.tensor(v, device=device),
                                              mg.tensor(mask, device=device))
    for wrap in (lambda f, x: f(x), lambda f, x: mg.checkpoint.checkpoint(f, x, use_reentrant=False)):
        tq.grad = None
        y = wrap(attend, tq)
        y.backward(mg.tensor(g, dtype=y.dtype, device=device))
        assert str(y.dtype) == str(REF[f"sdpa|{name}|dtype"]) == qd and tq.grad.dtype == qd
        tol = 1e-2 if qd == "float16" else 1e-12  # (PyTorch's flash kernel rounds its probabilities to half)
        np.testing.assert_allclose(y.cpu().numpy(), REF[f"sdpa|{name}|value"], rtol=tol, atol=tol)
        np.testing.assert_allclose(tq.grad.cpu().numpy(), REF[f"sdpa|{name}|grad"], rtol=tol, atol=tol)


def _mha(a, which, need_weights, device):
    t = {k: mg.tensor(v, device=device) for k, v in a.items()}
    t["query"].requires_grad_(True)
    y, _ = F.multi_head_attention_forward(t["query"], t["query"], t["query"], 4, 2, t["in_proj_weight"],
                                          t["in_proj_bias"], None, None, False, 0.0, t["out_proj_weight"],
                                          t["out_proj_bias"], need_weights=need_weights, **{which: t[which]})
    return y, t


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(MHA_CASES))
def test_mha_without_the_weights_takes_a_float32_mask_beside_a_float64_query(name, device):
    qd, md, which = MHA_CASES[name]
    y, t = _mha(mha_inputs(qd, md, which), which, False, device)
    y.backward(t["g"].to(y.dtype))
    assert y.dtype == mg.float64
    np.testing.assert_allclose(y.cpu().numpy(), REF[f"mha|{name}|value"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t["query"].grad.cpu().numpy(), REF[f"mha|{name}|grad"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_mask_of_another_float_dtype_is_refused_as_pytorch(name, device):
    fn, qd, md, which, need_weights = REFUSED[name]
    device = _device_for(device, qd, md)
    kind, message = str(REF[f"refused|{name}"]).split(": ", 1)
    assert kind == "RuntimeError"
    with pytest.raises(RuntimeError) as caught:
        if fn.startswith("sdpa"):
            q, k, v, mask, _ = attention_inputs(qd, md)
            kv = (k.astype("float32"), v.astype("float32")) if fn == "sdpa_kv32" else (k, v)
            F.scaled_dot_product_attention(mg.tensor(q, device=device), *(mg.tensor(x, device=device) for x in kv),
                                           None if mask is None else mg.tensor(mask, device=device))
        else:
            _mha(mha_inputs(qd, md, which), which, need_weights, device)
    assert str(caught.value) == message


def test_the_module_refuses_a_float64_mask_beside_float32_weights():
    mha = mg.nn.MultiheadAttention(4, 2, batch_first=True)
    x = mg.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="Input dtypes must be the same, got: input double, batch1: float"):
        mha(x, x, x, attn_mask=mg.zeros(3, 3, dtype=mg.float64))
    out, w = mha(x, x, x, attn_mask=mg.zeros(3, 3, dtype=mg.float32))
    assert out.dtype == w.dtype == mg.float32


def test_under_the_func_transforms_the_dtypes_are_the_same():
    x, t, _, _, _ = bce_inputs("x64_t32")
    tx, tt = mg.tensor(x), mg.tensor(t)

    def loss(x):
        return F.binary_cross_entropy_with_logits(x, tt)
    grad = mg.func.grad(loss)(tx)
    assert grad.dtype == mg.float64
    np.testing.assert_allclose(grad.numpy(), REF["bce|x64_t32|grad"], rtol=2e-6, atol=2e-6)
    per_row = mg.func.vmap(lambda x, t: F.binary_cross_entropy_with_logits(x, t))(tx, tt)
    assert per_row.dtype == mg.float32 and per_row.shape == (4,)
    q, k, v, mask, _ = attention_inputs("float64", "float32")
    out = mg.func.vmap(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mg.tensor(mask)))(
        mg.tensor(q), mg.tensor(k), mg.tensor(v))
    np.testing.assert_allclose(out.numpy(), REF["sdpa|q64_m32|value"], rtol=1e-12, atol=1e-12)
