"""Regenerate ``tests/data/torch_mixed_dtype_loss_and_masks.npz``: torch 2.13's answers where a
float tensor of another dtype meets the input --

- ``F.binary_cross_entropy_with_logits``: the loss is written into ``1 - target``, so it has the
  target's dtype (a float32 target beside a float64 input gives float32); value, dtype and the
  input's gradient of ``sum(loss * G)``, with and without ``weight`` / ``pos_weight``;
- ``F.scaled_dot_product_attention``: a float32 mask is taken beside a float64 or float16 query
  (value, dtype, the query's gradient); a float64 (or float16, int) mask beside a float32 query is
  refused, as are ``F.multi_head_attention_forward``'s masks of another float dtype (its
  ``baddbmm`` with the weights, sdpa's rule without them): the exception type and message.

    python tests/data/make_torch_mixed_dtype_loss_and_masks.py     # needs torch; the tests do not

Read by ``tests/test_mixed_dtype_loss_and_masks.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

# name -> (input dtype, target dtype, weight dtype or None, pos_weight dtype or None, reduction)
BCE_CASES = {
    "x64_t32": ("float64", "float32", None, None, "mean"),
    "x64_t32_none": ("float64", "float32", None, None, "none"),
    "x64_t32_weights": ("float64", "float32", "float64", "float64", "sum"),
    "x32_t64": ("float32", "float64", None, None, "mean"),
    "x32_t32_w64": ("float32", "float32", "float64", "float64", "none"),
    "x32_t16": ("float32", "float16", None, None, "none"),
}
# name -> (query dtype, mask dtype): computed
SDPA_CASES = {"q64_m32": ("float64", "float32"), "q16_m32": ("float16", "float32")}
# name -> (function, query dtype, mask dtype, which mask, need_weights): refused
REFUSED = {
    "sdpa_q32_m64": ("sdpa", "float32", "float64", "attn_mask", None),
    "sdpa_q32_m16": ("sdpa", "float32", "float16", "attn_mask", None),
    "sdpa_q64_m16": ("sdpa", "float64", "float16", "attn_mask", None),
    "sdpa_q32_mint64": ("sdpa", "float32", "int64", "attn_mask", None),
    "sdpa_q32_muint8": ("sdpa", "float32", "uint8", "attn_mask", None),
    "sdpa_qkv_differ": ("sdpa_kv32", "float64", None, None, None),
    "mha_q32_attn64_weights": ("mha", "float32", "float64", "attn_mask", True),
    "mha_q32_kpm64_weights": ("mha", "float32", "float64", "key_padding_mask", True),
    "mha_q64_attn32_weights": ("mha", "float64", "float32", "attn_mask", True),
    "mha_q32_attn64": ("mha", "float32", "float64", "attn_mask", False),
    "mha_q32_kpm64": ("mha", "float32", "float64", "key_padding_mask", False),
}
# name -> (query dtype, mask dtype, which mask): multi_head_attention_forward computes without the weights
MHA_CASES = {"mha_q64_attn32": ("float64", "float32", "attn_mask"),
             "mha_q64_kpm32": ("float64", "float32", "key_padding_mask")}


def bce_inputs(name: str) -> tuple[np.ndarray, ...]:
    xd, td, wd, pd, _ = BCE_CASES[name]
    rng = np.random.default_rng(5)
    x = (rng.normal(size=(4, 3)) * 3).astype(xd)
    t = rng.random((4, 3)).astype(td)
    w = None if wd is None else rng.uniform(0.5, 2.0, (3,)).astype(wd)
    pw = None if pd is None else rng.uniform(0.5, 3.0, (3,)).astype(pd)
    g = np.linspace(0.5, 1.5, 12).reshape(4, 3)
    return x, t, w, pw, g


def attention_inputs(qd: str, md: str | None) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(9)
    q, k, v = (rng.normal(size=(2, 3, 4)).astype(qd) for _ in range(3))
    mask = None if md is None else (rng.normal(size=(3, 3)) * 2).astype(md)
    g = np.linspace(0.5, 1.5, q.size).reshape(q.shape)
    return q, k, v, mask, g


def mha_inputs(qd: str, md: str, which: str) -> dict:
    """(L=3, N=2, E=4) inputs, 2 heads, and the projection weights of ``F.multi_head_attention_forward``."""
    rng = np.random.default_rng(13)
    q = rng.normal(size=(3, 2, 4)).astype(qd)
    mask = (rng.normal(size=(3, 3) if which == "attn_mask" else (2, 3)) * 2).astype(md)
    return {"query": q, "in_proj_weight": rng.normal(size=(12, 4)).astype(qd) * 0.5,
            "in_proj_bias": rng.normal(size=(12,)).astype(qd), "out_proj_weight": rng.normal(size=(4, 4)).astype(qd),
            "out_proj_bias": rng.normal(size=(4,)).astype(qd), which: mask,
            "g": np.linspace(0.5, 1.5, q.size).reshape(q.shape)}


def _refusal(torch, name: str) -> str:
    """PyTorch's exception, ``"Type: message"``, for the refused case ``name``."""
    F = torch.nn.functional
    fn, qd, md, which, need_weights = REFUSED[name]
    try:
        if fn.startswith("sdpa"):
            q, k, v, mask, _ = attention_inputs(qd, md)
            kv = (k.astype("float32"), v.astype("float32")) if fn == "sdpa_kv32" else (k, v)
            F.scaled_dot_product_attention(torch.tensor(q), *map(torch.tensor, kv),
                                           None if mask is None else torch.tensor(mask))
        else:
            a = {key: torch.tensor(val) for key, val in mha_inputs(qd, md, which).items()}
            F.multi_head_attention_forward(a["query"], a["query"], a["query"], 4, 2, a["in_proj_weight"],
                                           a["in_proj_bias"], None, None, False, 0.0, a["out_proj_weight"],
                                           a["out_proj_bias"], need_weights=need_weights, **{which: a[which]})
    except Exception as e:  # noqa: BLE001  (the type and message are the answer)
        return f"{type(e).__name__}: {e}"
    return "no error"


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch
    import torch.nn.functional as F

    out = {}
    for name, (*_, reduction) in BCE_CASES.items():
        x, t, w, pw, g = bce_inputs(name)
        tx = torch.tensor(x, requires_grad=True)
        y = F.binary_cross_entropy_with_logits(tx, torch.tensor(t), None if w is None else torch.tensor(w),
                                               reduction=reduction, pos_weight=None if pw is None else torch.tensor(pw))
        (y * torch.tensor(g if reduction == "none" else 1.0, dtype=y.dtype)).sum().backward()
        out[f"bce|{name}|value"], out[f"bce|{name}|grad"] = y.detach().numpy(), tx.grad.numpy()
        out[f"bce|{name}|dtype"] = np.array(str(y.dtype).replace("torch.", ""))
    for name, (qd, md) in SDPA_CASES.items():
        q, k, v, mask, g = attention_inputs(qd, md)
        tq = torch.tensor(q, requires_grad=True)
        y = F.scaled_dot_product_attention(tq, torch.tensor(k), torch.tensor(v), torch.tensor(mask))
        y.backward(torch.tensor(g, dtype=y.dtype))
        out[f"sdpa|{name}|value"], out[f"sdpa|{name}|grad"] = y.detach().numpy(), tq.grad.numpy()
        out[f"sdpa|{name}|dtype"] = np.array(str(y.dtype).replace("torch.", ""))
    for name, (qd, md, which) in MHA_CASES.items():
        a = {k: torch.tensor(v) for k, v in mha_inputs(qd, md, which).items()}
        a["query"].requires_grad_(True)
        y, _ = F.multi_head_attention_forward(a["query"], a["query"], a["query"], 4, 2, a["in_proj_weight"],
                                              a["in_proj_bias"], None, None, False, 0.0, a["out_proj_weight"],
                                              a["out_proj_bias"], need_weights=False,
                                              **{which: a[which]})
        y.backward(a["g"].to(y.dtype))
        out[f"mha|{name}|value"], out[f"mha|{name}|grad"] = y.detach().numpy(), a["query"].grad.numpy()
    for name in REFUSED:
        out[f"refused|{name}"] = np.array(_refusal(torch, name))
    path = Path(__file__).with_name("torch_mixed_dtype_loss_and_masks.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
