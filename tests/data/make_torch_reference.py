"""Regenerate ``tests/data/torch_reference.npz``: PyTorch's answers, in float64.

    python tests/data/make_torch_reference.py        # needs torch; the tests do not

Every case takes its inputs from a fixed NumPy seed, runs PyTorch in float64
and stores, in one compressed ``.npz``:

``<case>|<name>``       the inputs (and, for layers, the weights by state-dict name)
``<case>|out<i>``       the outputs
``<case>|cot<i>``       a random cotangent per output; the gradients are those of
                        ``sum_i (out_i * cot_i).sum()``
``<case>|grad_<name>``  the gradients of the inputs / weights listed in ``grad``
``<case>|after_<name>`` state after the call (BatchNorm running statistics)
``__meta__``            JSON: one entry per case saying how to make the call

``tests/test_vs_torch_reference.py`` replays every case with minigrad_ckpt
(no torch import) and compares to float64 round-off.  Array arguments are
written ``"@name"`` in the JSON; everything else is a literal.

The file name does not start with ``test_`` so pytest never collects it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

OUT = Path(__file__).with_name("torch_reference.npz")
torch.set_default_dtype(torch.float64)

rng = np.random.default_rng(20240611)
ARRAYS: dict[str, np.ndarray] = {}
META: dict[str, dict] = {}
ALIASES: dict[str, str] = {}  # key -> key of an identical array stored earlier (keeps the file small)
_SEEN: dict[tuple, str] = {}


def randn(*shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.standard_normal(shape) * scale


def to_torch(a: np.ndarray, grad: bool = False) -> torch.Tensor:
    t = torch.from_numpy(np.array(a, copy=True))
    if grad:
        t.requires_grad_(True)
    return t


def store(case: str, name: str, value) -> None:
    key = f"{case}|{name}"
    assert key not in ARRAYS, key
    assert key not in ALIASES, key
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    value = np.array(value, copy=True)
    fingerprint = (value.dtype.str, value.shape, value.tobytes())
    if fingerprint in _SEEN:
        ALIASES[key] = _SEEN[fingerprint]
    else:
        _SEEN[fingerprint] = key
        ARRAYS[key] = value


def resolve(v, env: dict):
    if isinstance(v, str) and v.startswith("@"):
        return env[v[1:]]
    if isinstance(v, list):
        return tuple(resolve(a, env) for a in v)
    return v


def as_outputs(out) -> list:
    """The outputs as a flat list (an LSTM returns ``(output, (h_n, c_n))``)."""
    if not isinstance(out, (tuple, list)):
        return [out]
    flat = []
    for o in out:
        flat += as_outputs(o) if isinstance(o, (tuple, list)) else [o]
    return flat


def backprop(case: str, outs: list, env: dict, grad: list[str]) -> None:
    """Store outputs and cotangents, backpropagate ``sum(out * cot)``, store gradients."""
    total = 0.0
    for i, o in enumerate(outs):
        if o is None:
            continue
        store(case, f"out{i}", o)
        if o.dtype.is_floating_point and o.requires_grad:
            cot = randn(*o.shape)
            store(case, f"cot{i}", cot)
            total = total + (o * to_torch(cot)).sum()
    if grad:
        total.backward()
        for name in grad:
            g = env[name].grad
            assert g is not None, (case, name)
            store(case, f"grad_{name}", g)


# --------------------------------------------------------------- functional
TORCH_FN = {"sigmoid": torch.sigmoid, "tanh": torch.tanh}


def functional(case: str, fn: str, inputs: dict[str, np.ndarray], args: list, kwargs: dict | None = None,
               grad: tuple[str, ...] | None = None, after: tuple[str, ...] = ()) -> None:
    """One ``nn.functional`` call: ``fn(*args, **kwargs)`` with ``@name`` array references."""
    kwargs = kwargs or {}
    if grad is None:  # every floating input that is not state
        grad = tuple(k for k, v in inputs.items() if v.dtype.kind == "f" and k not in after)
    env = {}
    for name, a in inputs.items():
        store(case, name, a)
        env[name] = to_torch(a, grad=name in grad)
    f = TORCH_FN.get(fn) or getattr(F, fn)
    with sdpa_kernel(SDPBackend.MATH):
        out = f(*resolve(list(args), env), **{k: resolve(v, env) for k, v in kwargs.items()})
    backprop(case, as_outputs(out), env, list(grad))
    for name in after:
        store(case, f"after_{name}", env[name])
    META[case] = {"kind": "functional", "fn": fn, "args": args, "kwargs": kwargs, "grad": list(grad),
                  "after": list(after)}


def activation_cases() -> None:
    x = randn(4, 6, scale=3.0)
    x[0, :3] = 0.0  # subgradients at 0
    for fn, kw in [("relu", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
                   ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("sigmoid", {}),
                   ("tanh", {})]:
        tag = "_".join([fn] + [f"{k}{v}" for k, v in kw.items()])
        functional(f"act_{tag}", fn, {"x": x}, ["@x"], kw)
    big = randn(3, 4, 5, scale=40.0)
    for fn in ("softmax", "log_softmax"):
        for dim in (-1, 0, 1):
            functional(f"{fn}_dim{dim}", fn, {"x": big}, ["@x"], {"dim": dim})


def loss_cases() -> None:
    n, c = 7, 5
    x = randn(n, c, scale=2.0)
    t = rng.integers(0, c, n)
    t_ign = t.copy()
    t_ign[[1, 4]] = -100
    t_ign2 = t.copy()
    t_ign2[[0, 3]] = 2
    w = rng.uniform(0.2, 2.0, c)
    inp = {"x": x, "t": t}
    for red in ("mean", "sum", "none"):
        functional(f"ce_{red}", "cross_entropy", inp, ["@x", "@t"], {"reduction": red})
        functional(f"ce_weight_{red}", "cross_entropy", {**inp, "w": w}, ["@x", "@t"],
                   {"weight": "@w", "reduction": red}, grad=("x",))
        functional(f"ce_ignore_{red}", "cross_entropy", {"x": x, "t": t_ign}, ["@x", "@t"],
                   {"reduction": red})
        functional(f"ce_smooth_{red}", "cross_entropy", inp, ["@x", "@t"],
                   {"reduction": red, "label_smoothing": 0.1})
        functional(f"ce_smooth_weight_ignore_{red}", "cross_entropy", {"x": x, "t": t_ign, "w": w},
                   ["@x", "@t"], {"weight": "@w", "reduction": red, "label_smoothing": 0.25},
                   grad=("x",))
    functional("ce_ignore_index2_weight", "cross_entropy", {"x": x, "t": t_ign2, "w": w}, ["@x", "@t"],
               {"weight": "@w", "ignore_index": 2}, grad=("x",))
    functional("ce_smooth_weight_mean", "cross_entropy", {**inp, "w": w}, ["@x", "@t"],
               {"weight": "@w", "label_smoothing": 0.3}, grad=("x",))
    functional("ce_smooth_1", "cross_entropy", inp, ["@x", "@t"], {"label_smoothing": 1.0})
    functional("ce_unbatched", "cross_entropy", {"x": randn(c), "t": np.array(3)}, ["@x", "@t"])
    # K-dimensional: (N, C, d1, d2)
    xk = randn(2, 4, 3, 2, scale=2.0)
    tk = rng.integers(0, 4, (2, 3, 2))
    tk[0, 1, 0] = tk[1, 2, 1] = -100
    wk = rng.uniform(0.2, 2.0, 4)
    for red in ("mean", "sum", "none"):
        functional(f"ce_kdim_{red}", "cross_entropy", {"x": xk, "t": tk, "w": wk}, ["@x", "@t"],
                   {"weight": "@w", "reduction": red}, grad=("x",))
        functional(f"ce_kdim_smooth_{red}", "cross_entropy", {"x": xk, "t": tk, "w": wk}, ["@x", "@t"],
                   {"weight": "@w", "reduction": red, "label_smoothing": 0.2}, grad=("x",))
    # probability targets
    p = np.exp(randn(n, c))
    p /= p.sum(1, keepdims=True)
    for red in ("mean", "sum", "none"):
        functional(f"ce_prob_{red}", "cross_entropy", {"x": x, "p": p}, ["@x", "@p"], {"reduction": red})
    functional("ce_prob_weight_smooth", "cross_entropy", {"x": x, "p": p, "w": w}, ["@x", "@p"],
               {"weight": "@w", "label_smoothing": 0.15}, grad=("x", "p"))
    pk = np.exp(randn(2, 4, 3, 2))
    pk /= pk.sum(1, keepdims=True)
    functional("ce_prob_kdim", "cross_entropy", {"x": xk, "p": pk, "w": wk}, ["@x", "@p"],
               {"weight": "@w"}, grad=("x", "p"))
    # nll_loss on log-probabilities
    logp = np.log(p)
    for red in ("mean", "sum", "none"):
        functional(f"nll_{red}", "nll_loss", {"x": logp, "t": t_ign, "w": w}, ["@x", "@t"],
                   {"weight": "@w", "reduction": red}, grad=("x",))
    functional("nll_plain", "nll_loss", {"x": logp, "t": t}, ["@x", "@t"])
    functional("nll_kdim", "nll_loss", {"x": xk, "t": tk}, ["@x", "@t"])
    functional("nll_ignore_index1", "nll_loss", {"x": logp, "t": t}, ["@x", "@t"], {"ignore_index": 1})
    # mse
    a, b = randn(3, 4), randn(3, 4)
    for red in ("mean", "sum", "none"):
        functional(f"mse_{red}", "mse_loss", {"x": a, "y": b}, ["@x", "@y"], {"reduction": red})
    # binary cross entropy with logits (incl. large logits)
    z = randn(6, 3, scale=3.0)
    z[0, 0], z[1, 1], z[2, 2] = 60.0, -60.0, 0.0
    y = rng.uniform(0.0, 1.0, (6, 3))
    y[3] = (y[3] > 0.5).astype(float)
    pw = rng.uniform(0.5, 3.0, 3)
    bw = rng.uniform(0.2, 2.0, (6, 1))
    for red in ("mean", "sum", "none"):
        functional(f"bce_{red}", "binary_cross_entropy_with_logits", {"x": z, "y": y}, ["@x", "@y"],
                   {"reduction": red})
        functional(f"bce_posw_{red}", "binary_cross_entropy_with_logits", {"x": z, "y": y, "pw": pw},
                   ["@x", "@y"], {"pos_weight": "@pw", "reduction": red}, grad=("x", "y"))
    functional("bce_weight_posw", "binary_cross_entropy_with_logits",
               {"x": z, "y": y, "w": bw, "pw": pw}, ["@x", "@y"],
               {"weight": "@w", "pos_weight": "@pw"}, grad=("x", "y"))


def layer_cases() -> None:
    x, w, b = randn(5, 4), randn(3, 4), randn(3)
    functional("linear", "linear", {"x": x, "w": w, "b": b}, ["@x", "@w", "@b"])
    functional("linear_nobias", "linear", {"x": x, "w": w}, ["@x", "@w"])
    functional("linear_3d", "linear", {"x": randn(2, 3, 4), "w": w, "b": b}, ["@x", "@w", "@b"])
    functional("linear_1d", "linear", {"x": randn(4), "w": w, "b": b}, ["@x", "@w", "@b"])

    xc = randn(2, 4, 7, 6)
    conv = [
        ("basic", (6, 4, 3, 3), {}),
        ("stride2_pad1", (6, 4, 3, 3), {"stride": 2, "padding": 1}),
        ("stride21_pad12", (5, 4, 3, 2), {"stride": [2, 1], "padding": [1, 2]}),
        ("dilation2", (6, 4, 3, 3), {"dilation": 2, "padding": 1}),
        ("dilation12_stride2", (3, 4, 2, 3), {"dilation": [1, 2], "stride": 2}),
        ("groups2", (6, 2, 3, 3), {"groups": 2, "padding": 1}),
        ("depthwise", (8, 1, 3, 3), {"groups": 4, "stride": 2}),
        ("same", (6, 4, 3, 3), {"padding": "same"}),
        ("same_dilation", (6, 4, 3, 5), {"padding": "same", "dilation": [2, 1]}),
        ("valid", (6, 4, 2, 2), {"padding": "valid"}),
        ("1x1", (3, 4, 1, 1), {}),
    ]
    for tag, wshape, kw in conv:
        inputs = {"x": xc, "w": randn(*wshape), "b": randn(wshape[0])}
        functional(f"conv2d_{tag}", "conv2d", inputs, ["@x", "@w", "@b"], kw)
    functional("conv2d_nobias", "conv2d", {"x": xc, "w": randn(6, 4, 3, 3)}, ["@x", "@w"], {"padding": 1})
    functional("conv2d_unbatched", "conv2d", {"x": randn(4, 5, 5), "w": randn(2, 4, 3, 3), "b": randn(2)},
               ["@x", "@w", "@b"], {"stride": 2, "padding": 1})

    xp = randn(2, 3, 7, 8)
    ties = rng.integers(0, 3, (2, 2, 6, 6)).astype(float)  # many equal maxima per window
    pools = [
        ("k2", xp, {"kernel_size": 2}),
        ("k3_s2_p1", xp, {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("k32_s12_p10", xp, {"kernel_size": [3, 2], "stride": [1, 2], "padding": [1, 0]}),
        ("k2_d2", xp, {"kernel_size": 2, "dilation": 2}),
        ("k3_s1_p1_d2", xp, {"kernel_size": 3, "stride": 1, "padding": 1, "dilation": 2}),
        ("ties_k2", ties, {"kernel_size": 2}),
        ("ties_k3_s1_p1", ties, {"kernel_size": 3, "stride": 1, "padding": 1}),
        ("unbatched", randn(3, 5, 5), {"kernel_size": 2, "stride": 1}),
    ]
    for tag, a, kw in pools:
        functional(f"max_pool2d_{tag}", "max_pool2d", {"x": a}, ["@x"], kw)
    avgs = [
        ("k2", {"kernel_size": 2}),
        ("k3_s2_p1", {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("k3_s2_p1_nopad", {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
        ("k32_s12_p10_nopad", {"kernel_size": [3, 2], "stride": [1, 2], "padding": [1, 0],
                               "count_include_pad": False}),
        ("k3_s1_p1", {"kernel_size": 3, "stride": 1, "padding": 1}),
        ("k2_s1", {"kernel_size": 2, "stride": 1}),
    ]
    for tag, kw in avgs:
        functional(f"avg_pool2d_{tag}", "avg_pool2d", {"x": xp}, ["@x"], kw)
    functional("avg_pool2d_unbatched", "avg_pool2d", {"x": randn(3, 5, 5)}, ["@x"],
               {"kernel_size": 3, "padding": 1, "count_include_pad": False})

    xl = randn(3, 4, 5, scale=2.0) + 1.0
    functional("layer_norm_last", "layer_norm", {"x": xl, "w": randn(5), "b": randn(5)},
               ["@x", [5], "@w", "@b"])
    functional("layer_norm_last2", "layer_norm", {"x": xl, "w": randn(4, 5), "b": randn(4, 5)},
               ["@x", [4, 5], "@w", "@b"])
    functional("layer_norm_noaffine", "layer_norm", {"x": xl}, ["@x", [5]])
    functional("layer_norm_eps", "layer_norm", {"x": xl, "w": randn(5)}, ["@x", [5], "@w"], {"eps": 1e-2})

    for tag, shape in (("2d", (6, 3)), ("3d", (4, 3, 5)), ("4d", (3, 3, 4, 2))):
        xb = randn(*shape, scale=2.0) + 0.5
        state = {"rm": randn(3), "rv": rng.uniform(0.5, 2.0, 3)}
        wb = {"w": randn(3), "b": randn(3)}
        functional(f"batch_norm_train_{tag}", "batch_norm", {"x": xb, **state, **wb},
                   ["@x", "@rm", "@rv", "@w", "@b"], {"training": True, "momentum": 0.3},
                   after=("rm", "rv"))
        functional(f"batch_norm_eval_{tag}", "batch_norm", {"x": xb, **state, **wb},
                   ["@x", "@rm", "@rv", "@w", "@b"], {"training": False, "eps": 1e-3},
                   after=("rm", "rv"))
    functional("batch_norm_train_nostats", "batch_norm", {"x": randn(5, 3, 2)}, ["@x", None, None],
               {"training": True})
    functional("batch_norm_train_default_momentum", "batch_norm",
               {"x": randn(8, 3), "rm": np.zeros(3), "rv": np.ones(3)}, ["@x", "@rm", "@rv"],
               {"training": True}, after=("rm", "rv"))

    functional("dropout_eval", "dropout", {"x": randn(3, 4)}, ["@x"], {"p": 0.5, "training": False})
    functional("dropout_p0", "dropout", {"x": randn(3, 4)}, ["@x"], {"p": 0.0})
    ids = rng.integers(0, 6, (3, 4))
    ids[0, 0] = ids[1, 1] = ids[2, 2] = 5  # repeated ids accumulate
    functional("embedding", "embedding", {"ids": ids, "w": randn(6, 3)}, ["@ids", "@w"])
    functional("embedding_1d", "embedding", {"ids": np.array([2, 0, 2, 2]), "w": randn(4, 5)}, ["@ids", "@w"])


def sdpa_cases() -> None:
    q, k, v = randn(2, 3, 4, 8), randn(2, 3, 4, 8), randn(2, 3, 4, 6)
    qkv = {"q": q, "k": k, "v": v}
    functional("sdpa_plain", "scaled_dot_product_attention", qkv, ["@q", "@k", "@v"])
    functional("sdpa_causal", "scaled_dot_product_attention", qkv, ["@q", "@k", "@v"], {"is_causal": True})
    bmask = rng.uniform(size=(4, 4)) > 0.4
    bmask[:, 0] = True  # no fully-masked row
    functional("sdpa_bool_mask", "scaled_dot_product_attention", {**qkv, "m": bmask}, ["@q", "@k", "@v"],
               {"attn_mask": "@m"})
    functional("sdpa_float_mask", "scaled_dot_product_attention", {**qkv, "m": randn(2, 1, 4, 4)},
               ["@q", "@k", "@v"], {"attn_mask": "@m"}, grad=("q", "k", "v"))
    functional("sdpa_scale", "scaled_dot_product_attention", qkv, ["@q", "@k", "@v"], {"scale": 0.3})
    k2, v2 = randn(2, 3, 6, 8), randn(2, 3, 6, 6)
    functional("sdpa_cross_causal", "scaled_dot_product_attention", {"q": q, "k": k2, "v": v2},
               ["@q", "@k", "@v"], {"is_causal": True})
    functional("sdpa_3d", "scaled_dot_product_attention",
               {"q": randn(3, 5, 4), "k": randn(3, 5, 4), "v": randn(3, 5, 4)}, ["@q", "@k", "@v"],
               {"is_causal": True})


# -------------------------------------------------------------------- modules
def module_case(case: str, kind: str, module: nn.Module, init: dict, inputs: dict, call: dict,
                grad_inputs: tuple[str, ...]) -> None:
    """Run ``module(**call)`` with random weights; store weights, outputs and all gradients."""
    params = {}
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(to_torch(randn(*p.shape, scale=0.5)))
            params[name] = p
    env = {}
    for name, a in inputs.items():
        store(case, name, a)
        env[name] = to_torch(a, grad=name in grad_inputs)
    for name, p in params.items():
        store(case, f"p.{name}", p)
        env[f"p.{name}"] = p
    with sdpa_kernel(SDPBackend.MATH):
        out = module(**{k: resolve(v, env) for k, v in call.items()})
    backprop(case, as_outputs(out), env, list(grad_inputs) + [f"p.{n}" for n in params])
    META[case] = {"kind": kind, "init": init, "call": call, "grad": list(grad_inputs),
                  "params": list(params)}


def mha_cases() -> None:
    e, h = 8, 2
    L, S, N = 4, 5, 3
    for bf in (False, True):
        def seq(length: int, bf: bool = bf) -> np.ndarray:
            return randn(N, length, e) if bf else randn(length, N, e)

        tag = "bf" if bf else "sf"
        kpm = rng.uniform(size=(N, S)) > 0.6
        kpm[:, 0] = False
        kpm_self = rng.uniform(size=(N, L)) > 0.6
        kpm_self[:, 0] = False
        am = rng.uniform(size=(L, S)) > 0.7
        am[:, 1] = False
        causal = np.triu(np.ones((L, L), dtype=bool), 1)
        specs = [
            ("self", {"x": seq(L)}, {"query": "@x", "key": "@x", "value": "@x"}, ("x",)),
            ("self_kpm_heads", {"x": seq(L), "kpm": kpm_self},
             {"query": "@x", "key": "@x", "value": "@x", "key_padding_mask": "@kpm",
              "average_attn_weights": False}, ("x",)),
            ("cross_masks", {"q": seq(L), "k": seq(S), "v": seq(S), "kpm": kpm, "am": am},
             {"query": "@q", "key": "@k", "value": "@v", "key_padding_mask": "@kpm", "attn_mask": "@am"},
             ("q", "k", "v")),
            ("cross_float_masks", {"q": seq(L), "k": seq(S), "v": seq(S), "kpm": randn(N, S),
                                   "am": randn(N * h, L, S)},
             {"query": "@q", "key": "@k", "value": "@v", "key_padding_mask": "@kpm", "attn_mask": "@am",
              "average_attn_weights": False}, ("q", "k", "v")),
            ("self_causal", {"x": seq(L), "am": causal},
             {"query": "@x", "key": "@x", "value": "@x", "attn_mask": "@am", "is_causal": True,
              "need_weights": False}, ("x",)),
            ("kv_shared", {"q": seq(L), "kv": seq(S)}, {"query": "@q", "key": "@kv", "value": "@kv"},
             ("q", "kv")),
        ]
        for name, inputs, call, g in specs:
            init = {"embed_dim": e, "num_heads": h, "batch_first": bf}
            module_case(f"mha_{tag}_{name}", "mha", nn.MultiheadAttention(**init), init, inputs, call, g)
    init = {"embed_dim": e, "num_heads": 4, "bias": False}
    module_case("mha_unbatched_nobias", "mha", nn.MultiheadAttention(**init), init,
                {"x": randn(L, e), "kpm": np.array([False, False, True, False])},
                {"query": "@x", "key": "@x", "value": "@x", "key_padding_mask": "@kpm"}, ("x",))


class TorchBlock(nn.Module):
    """minigrad_ckpt.nn.TransformerBlock spelled with torch modules (same parameter names)."""

    def __init__(self, d: int, h: int, causal: bool, mlp_ratio: int = 4) -> None:
        super().__init__()
        self.causal = causal
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp_ratio * d), nn.GELU(), nn.Linear(mlp_ratio * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hdn = self.ln1(x)
        L = x.shape[1]
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1) if self.causal else None
        a, _ = self.attn(hdn, hdn, hdn, need_weights=False, attn_mask=mask, is_causal=self.causal)
        x = x + a
        return x + self.mlp(self.ln2(x))


def block_cases() -> None:
    for causal in (False, True):
        init = {"d_model": 8, "n_heads": 2, "causal": causal}
        module_case(f"block_causal{int(causal)}", "block", TorchBlock(8, 2, causal), init,
                    {"x": randn(2, 5, 8)}, {"x": "@x"}, ("x",))


def batchnorm_module_cases() -> None:
    """BatchNorm1d/2d over several training steps, then eval: running stats and num_batches_tracked."""
    specs = [
        ("bn1d_m01", nn.BatchNorm1d, {"num_features": 3}, (6, 3)),
        ("bn1d_3d_cumulative", nn.BatchNorm1d, {"num_features": 3, "momentum": None}, (4, 3, 5)),
        ("bn2d_m03", nn.BatchNorm2d, {"num_features": 3, "momentum": 0.3, "eps": 1e-3}, (2, 3, 4, 3)),
        ("bn2d_cumulative", nn.BatchNorm2d, {"num_features": 3, "momentum": None}, (3, 3, 2, 2)),
    ]
    for case, cls, init, shape in specs:
        m = cls(**init)
        with torch.no_grad():
            m.weight.copy_(to_torch(randn(3)))
            m.bias.copy_(to_torch(randn(3)))
        store(case, "p.weight", m.weight)
        store(case, "p.bias", m.bias)
        env = {"p.weight": m.weight, "p.bias": m.bias}
        outs = []
        names = []
        for i in range(4):
            a = randn(*shape, scale=1.0 + i) + i
            name = f"x{i}"
            store(case, name, a)
            env[name] = to_torch(a, grad=True)
            names.append(name)
            m.train(i < 3)
            outs.append(m(env[name]))
        backprop(case, outs, env, names + ["p.weight", "p.bias"])
        for buf in ("running_mean", "running_var", "num_batches_tracked"):
            store(case, f"after_{buf}", getattr(m, buf))
        META[case] = {"kind": "batchnorm", "cls": cls.__name__, "init": init, "steps": 4, "train_steps": 3}


# ----------------------------------------------------------------- training
def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 3))


MLP_INIT = {name: rng.uniform(-0.5, 0.5, p.shape) for name, p in mlp().named_parameters()}
TRAIN_X = randn(10, 12, 5)
TRAIN_Y = rng.integers(0, 3, (10, 12))

SCHEDULERS = {name: getattr(torch.optim.lr_scheduler, name) for name in (
    "StepLR", "CosineAnnealingLR", "LinearLR", "MultiStepLR", "ExponentialLR", "LambdaLR", "SequentialLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "ReduceLROnPlateau")}
# LambdaLR's functions, by name (the same table is in tests/test_vs_torch_reference.py)
LAMBDAS = {"exp095": lambda e: 0.95**e, "inv": lambda e: 1.0 / (1.0 + e), "warmup3": lambda e: min(1.0, (e + 1) / 3)}


def make_sched(optimizer, spec):
    """A scheduler from ``[name, kwargs]``: LambdaLR names its function in LAMBDAS, SequentialLR
    lists its schedulers as specs."""
    name, kw = spec
    kw = dict(kw)
    if name == "LambdaLR":
        kw["lr_lambda"] = LAMBDAS[kw["lr_lambda"]]
    if name == "SequentialLR":
        kw["schedulers"] = [make_sched(optimizer, sub) for sub in kw["schedulers"]]
    return SCHEDULERS[name](optimizer, **kw)


def sched_step(scheduler, metric: float) -> None:
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        scheduler.step(metric)
    else:
        scheduler.step()


def momentum_of(group) -> float:
    return group["betas"][0] if "betas" in group else group.get("momentum", 0.0)


def training_case(case: str, opt: str, opt_kwargs: dict, clip: float | None, groups: list | None = None,
                  sched: tuple[str, dict] | None = None) -> None:
    model = mlp()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(to_torch(MLP_INIT[name]))
    params = dict(model.named_parameters())
    if groups:
        param_groups = [{**g, "params": [params[n] for n in g["params"]]} for g in groups]
    else:
        param_groups = list(params.values())
    optimizer = getattr(torch.optim, opt)(param_groups, **opt_kwargs)
    scheduler = make_sched(optimizer, sched) if sched else None
    losses, norms, lrs, moms = [], [], [], []
    for step in range(TRAIN_X.shape[0]):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(to_torch(TRAIN_X[step])), to_torch(TRAIN_Y[step]))
        loss.backward()
        if clip is not None:
            norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), clip)))
        optimizer.step()
        if scheduler is not None:
            sched_step(scheduler, loss.item())
        losses.append(loss.item())
        lrs.append([g["lr"] for g in optimizer.param_groups])
        moms.append([momentum_of(g) for g in optimizer.param_groups])
    store(case, "losses", np.array(losses))
    store(case, "lrs", np.array(lrs))
    store(case, "moms", np.array(moms))
    if clip is not None:
        store(case, "norms", np.array(norms))
    for name, p in params.items():
        store(case, f"final.{name}", p)
    META[case] = {"kind": "train", "opt": opt, "opt_kwargs": opt_kwargs, "clip": clip, "groups": groups,
                  "sched": list(sched) if sched else None, "params": list(params)}


def training_cases() -> None:
    for name, p in MLP_INIT.items():
        store("mlp", f"init.{name}", p)
    store("mlp", "x", TRAIN_X)
    store("mlp", "y", TRAIN_Y)
    training_case("train_adamw", "AdamW", {"lr": 0.01, "weight_decay": 0.1}, clip=0.6)
    training_case("train_adamw_defaults", "AdamW", {}, clip=None)
    training_case("train_adamw_groups_cosine", "AdamW",
                  {"lr": 0.005, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.05}, clip=0.5,
                  groups=[{"params": ["0.weight", "0.bias"], "lr": 0.02},
                          {"params": ["2.weight", "2.bias", "4.weight", "4.bias"], "weight_decay": 0.0}],
                  sched=("CosineAnnealingLR", {"T_max": 6, "eta_min": 1e-3}))
    training_case("train_adam", "Adam", {"lr": 0.02}, clip=0.7, sched=("StepLR", {"step_size": 3, "gamma": 0.5}))
    training_case("train_adam_amsgrad_wd", "Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05},
                  clip=0.8)
    training_case("train_adamw_amsgrad", "AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.2},
                  clip=None)
    training_case("train_sgd", "SGD", {"lr": 0.1}, clip=0.6)
    training_case("train_sgd_momentum", "SGD", {"lr": 0.1, "momentum": 0.9}, clip=0.55)
    training_case("train_sgd_nesterov_wd", "SGD",
                  {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}, clip=0.7,
                  sched=("LinearLR", {"start_factor": 0.25, "total_iters": 4}))
    training_case("train_sgd_dampening", "SGD",
                  {"lr": 0.1, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}, clip=None)
    # the other optimizers, and every scheduler in a training run
    training_case("train_rmsprop", "RMSprop", {"lr": 0.01}, clip=0.6)
    training_case("train_rmsprop_centered_momentum_wd", "RMSprop",
                  {"lr": 0.005, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.01, "momentum": 0.7,
                   "centered": True}, clip=None, sched=("ExponentialLR", {"gamma": 0.9}))
    training_case("train_rmsprop_momentum", "RMSprop", {"lr": 0.01, "momentum": 0.5}, clip=0.7,
                  sched=("MultiStepLR", {"milestones": [2, 5, 5, 8], "gamma": 0.5}))
    training_case("train_adagrad", "Adagrad", {"lr": 0.05}, clip=0.6)
    training_case("train_adagrad_decay_wd_init", "Adagrad",
                  {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.02, "initial_accumulator_value": 0.1,
                   "eps": 1e-8}, clip=None, sched=("LambdaLR", {"lr_lambda": "exp095"}))
    training_case("train_adamax", "Adamax", {}, clip=0.6)
    training_case("train_adamax_wd", "Adamax", {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.05},
                  clip=None, sched=("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 1e-4}))
    training_case("train_nadam", "NAdam", {}, clip=0.6)
    training_case("train_nadam_wd", "NAdam", {"lr": 0.01, "weight_decay": 0.05, "momentum_decay": 0.01},
                  clip=None, sched=("ReduceLROnPlateau", {"factor": 0.5, "patience": 1, "threshold": 0.05}))
    training_case("train_nadam_decoupled", "NAdam",
                  {"lr": 0.01, "betas": (0.85, 0.99), "weight_decay": 0.1, "decoupled_weight_decay": True},
                  clip=0.8)
    training_case("train_radam", "RAdam", {"lr": 0.01}, clip=0.6)
    training_case("train_radam_wd_beta", "RAdam", {"lr": 0.02, "betas": (0.9, 0.9), "weight_decay": 0.05},
                  clip=None, sched=("OneCycleLR", {"max_lr": 0.05, "total_steps": 10}))
    training_case("train_radam_decoupled", "RAdam",
                  {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}, clip=0.7,
                  sched=("SequentialLR", {"schedulers": [["LinearLR", {"start_factor": 0.2, "total_iters": 3}],
                                                         ["ExponentialLR", {"gamma": 0.8}]],
                                          "milestones": [3]}))
    training_case("train_sgd_nesterov_onecycle", "SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True},
                  clip=0.6, sched=("OneCycleLR", {"max_lr": 0.2, "total_steps": 12, "pct_start": 0.25,
                                                  "anneal_strategy": "linear", "three_phase": True}))
    training_case("train_adam_amsgrad_onecycle", "Adam", {"lr": 0.01, "amsgrad": True}, clip=None,
                  sched=("OneCycleLR", {"max_lr": [0.03], "epochs": 2, "steps_per_epoch": 5,
                                        "base_momentum": 0.8, "max_momentum": 0.9, "div_factor": 10.0}))


def scheduler_cases() -> None:
    specs = [
        ("StepLR", {"step_size": 3, "gamma": 0.5}),
        ("StepLR", {"step_size": 1}),
        ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
        ("CosineAnnealingLR", {"T_max": 10}),
        ("LinearLR", {}),
        ("LinearLR", {"start_factor": 0.25, "total_iters": 4}),
        ("LinearLR", {"start_factor": 0.5, "end_factor": 0.1, "total_iters": 6}),
    ]
    specs += [
        ("MultiStepLR", {"milestones": [3, 7, 7, 12]}),
        ("MultiStepLR", {"milestones": [10, 2], "gamma": 0.3}),
        ("ExponentialLR", {"gamma": 0.8}),
        ("LambdaLR", {"lr_lambda": "inv"}),
        ("LambdaLR", {"lr_lambda": "warmup3"}),
        ("CosineAnnealingWarmRestarts", {"T_0": 4}),
        ("CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 3, "eta_min": 0.001}),
        ("OneCycleLR", {"max_lr": [0.5, 0.2], "total_steps": 16}),
        ("OneCycleLR", {"max_lr": 0.4, "total_steps": 20, "pct_start": 0.4, "anneal_strategy": "linear",
                        "three_phase": True, "final_div_factor": 100.0}),
        ("OneCycleLR", {"max_lr": 0.3, "epochs": 4, "steps_per_epoch": 4, "cycle_momentum": False}),
        ("SequentialLR", {"schedulers": [["LinearLR", {"start_factor": 0.1, "total_iters": 4}],
                                         ["CosineAnnealingLR", {"T_max": 6}], ["ExponentialLR", {"gamma": 0.9}]],
                          "milestones": [4, 10]}),
        ("SequentialLR", {"schedulers": [["ExponentialLR", {"gamma": 0.5}], ["StepLR", {"step_size": 2}]],
                          "milestones": [3]}),
        ("ReduceLROnPlateau", {"patience": 2, "factor": 0.5, "cooldown": 1}),
        ("ReduceLROnPlateau", {"mode": "max", "threshold_mode": "abs", "threshold": 0.1, "patience": 0,
                               "min_lr": [0.02, 0.001]}),
    ]
    base = [0.1, 0.03]
    metrics = [1.0, 0.9, 0.95, 0.93, 0.97, 0.85, 0.86, 0.86, 0.9, 0.7, 0.71, 0.72, 0.73, 0.74, 0.6, 0.61]
    for i, (name, kw) in enumerate(specs):
        case = f"sched_{i}_{name}"
        ps = [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]
        opt = torch.optim.SGD([{"params": [ps[0]], "lr": base[0]}, {"params": [ps[1]], "lr": base[1]}])
        sched = make_sched(opt, [name, kw])
        lrs, moms = [sched.get_last_lr()], [[momentum_of(g) for g in opt.param_groups]]
        for e in range(16):
            opt.step()
            sched_step(sched, metrics[e])
            lrs.append(sched.get_last_lr())
            moms.append([momentum_of(g) for g in opt.param_groups])
        store(case, "lrs", np.array(lrs))
        store(case, "moms", np.array(moms))
        META[case] = {"kind": "sched", "name": name, "kwargs": kw, "base_lrs": base, "epochs": 16,
                      "metrics": metrics}


def layer_and_loss_function_cases() -> None:
    """Activations, 1-D layers, adaptive pooling, transposed convolution, norms, losses."""
    x = randn(3, 4, 5, scale=3.0)
    x[0, 0, :3] = 0.0
    functional("softplus", "softplus", {"x": x}, ["@x"])
    functional("softplus_beta_thr", "softplus", {"x": x}, ["@x", 2.0, 3.0])
    functional("elu", "elu", {"x": x}, ["@x"])
    functional("elu_alpha", "elu", {"x": x}, ["@x"], {"alpha": 0.5})
    xb = x.copy()
    xb[1, 0, :4] = [-1.0, 1.0, -0.5, 2.0]  # exactly at the bounds: zero gradient, as in PyTorch
    functional("hardtanh", "hardtanh", {"x": xb}, ["@x"])
    functional("hardtanh_bounds", "hardtanh", {"x": xb}, ["@x", -0.5, 2.0])
    functional("mish", "mish", {"x": x}, ["@x"])
    functional("logsigmoid", "logsigmoid", {"x": randn(4, 6, scale=10.0)}, ["@x"])
    functional("prelu_1", "prelu", {"x": x, "w": np.array([0.3])}, ["@x", "@w"])
    functional("prelu_channels", "prelu", {"x": x, "w": randn(4)}, ["@x", "@w"])
    functional("dropout2d_eval", "dropout2d", {"x": randn(2, 3, 2, 2)}, ["@x"], {"p": 0.5, "training": False})

    xl = randn(2, 4, 9)
    for tag, wshape, kw in [("basic", (6, 4, 3), {}), ("stride2_pad1", (5, 4, 3), {"stride": 2, "padding": 1}),
                            ("dil2_groups2", (6, 2, 2), {"dilation": 2, "groups": 2}),
                            ("same", (3, 4, 3), {"padding": "same"})]:
        functional(f"conv1d_{tag}", "conv1d", {"x": xl, "w": randn(*wshape), "b": randn(wshape[0])},
                   ["@x", "@w", "@b"], kw)
    functional("conv1d_unbatched_nobias", "conv1d", {"x": randn(4, 7), "w": randn(2, 4, 3)}, ["@x", "@w"])
    functional("max_pool1d_k2", "max_pool1d", {"x": xl}, ["@x", 2])
    functional("max_pool1d_k3_s2_p1_d1", "max_pool1d", {"x": xl}, ["@x", 3],
               {"stride": 2, "padding": 1})
    functional("avg_pool1d_k3_s2_p1", "avg_pool1d", {"x": xl}, ["@x", 3], {"stride": 2, "padding": 1})
    functional("avg_pool1d_nopad", "avg_pool1d", {"x": xl}, ["@x", 3],
               {"stride": 2, "padding": 1, "count_include_pad": False})
    xa = randn(2, 3, 7, 5)
    for tag, size in [("1", 1), ("3x2", [3, 2]), ("4", 4), ("none5", [None, 5]), ("7x5", [7, 5])]:
        functional(f"adaptive_avg_pool2d_{tag}", "adaptive_avg_pool2d", {"x": xa}, ["@x", size])
        functional(f"adaptive_max_pool2d_{tag}", "adaptive_max_pool2d", {"x": xa}, ["@x", size])
    functional("adaptive_avg_pool2d_even", "adaptive_avg_pool2d", {"x": randn(2, 3, 6, 4)}, ["@x", [3, 2]])

    xt = randn(2, 4, 4, 3)
    for tag, wshape, kw in [("basic", (4, 3, 3, 3), {}),
                            ("stride2", (4, 2, 3, 3), {"stride": 2}),
                            ("stride2_pad1_outpad1", (4, 3, 3, 2), {"stride": 2, "padding": 1,
                                                                    "output_padding": 1}),
                            ("stride21_pad10", (4, 2, 2, 3), {"stride": [2, 1], "padding": [1, 0]}),
                            ("groups2", (4, 3, 3, 3), {"groups": 2, "stride": 2}),
                            ("dilation2", (4, 2, 2, 2), {"dilation": 2, "padding": 1}),
                            ("pad_beyond_kernel", (4, 2, 2, 2), {"padding": 2, "stride": 3})]:
        functional(f"conv_transpose2d_{tag}", "conv_transpose2d",
                   {"x": xt, "w": randn(*wshape), "b": randn(wshape[1] * kw.get("groups", 1))},
                   ["@x", "@w", "@b"], kw)
    functional("conv_transpose2d_unbatched_nobias", "conv_transpose2d", {"x": randn(4, 3, 3),
               "w": randn(4, 2, 2, 2)}, ["@x", "@w"], {"stride": 2})

    xg = randn(3, 6, 2, 3, scale=2.0) + 1.0
    functional("group_norm_3", "group_norm", {"x": xg, "w": randn(6), "b": randn(6)}, ["@x", 3, "@w", "@b"])
    functional("group_norm_1_eps", "group_norm", {"x": xg}, ["@x", 1], {"eps": 1e-2})
    functional("group_norm_6_2d", "group_norm", {"x": randn(4, 6), "w": randn(6)}, ["@x", 6, "@w"])
    functional("rms_norm", "rms_norm", {"x": xl, "w": randn(9)}, ["@x", [9], "@w"])
    functional("rms_norm_2axes_eps", "rms_norm", {"x": xl}, ["@x", [4, 9]], {"eps": 1e-3})

    ids = rng.integers(0, 6, (3, 4))
    ids[0, :2] = 2
    functional("embedding_padding_idx", "embedding", {"ids": ids, "w": randn(6, 3)}, ["@ids", "@w"],
               {"padding_idx": 2})
    functional("embedding_padding_idx_neg", "embedding", {"ids": ids, "w": randn(6, 3)}, ["@ids", "@w"],
               {"padding_idx": -1})
    functional("embedding_max_norm", "embedding", {"ids": ids, "w": randn(6, 3, scale=2.0)}, ["@ids", "@w"],
               {"max_norm": 1.5}, grad=("w",), after=("w",))
    functional("embedding_max_norm_l1", "embedding", {"ids": ids, "w": randn(6, 3, scale=2.0)}, ["@ids", "@w"],
               {"max_norm": 1.0, "norm_type": 1.0}, grad=("w",), after=("w",))

    a, b = randn(4, 5), randn(4, 5)
    b[0, 0] = a[0, 0]  # |d| = 0
    b[1, 1] = a[1, 1] - 1.0  # |d| = beta = delta exactly
    for red in ("mean", "sum", "none"):
        functional(f"l1_{red}", "l1_loss", {"x": a, "y": b}, ["@x", "@y"], {"reduction": red})
        functional(f"smooth_l1_{red}", "smooth_l1_loss", {"x": a, "y": b}, ["@x", "@y"], {"reduction": red})
        functional(f"huber_{red}", "huber_loss", {"x": a, "y": b}, ["@x", "@y"], {"reduction": red})
    functional("smooth_l1_beta", "smooth_l1_loss", {"x": a, "y": b}, ["@x", "@y"], {"beta": 0.5})
    functional("smooth_l1_beta0", "smooth_l1_loss", {"x": a, "y": b}, ["@x", "@y"], {"beta": 0.0})
    functional("huber_delta", "huber_loss", {"x": a, "y": b}, ["@x", "@y"], {"delta": 0.3})
    pr = rng.uniform(0.02, 0.98, (5, 3))
    yb = rng.uniform(0, 1, (5, 3))
    yb[0] = (yb[0] > 0.5).astype(float)
    for red in ("mean", "sum", "none"):
        functional(f"bce_prob_{red}", "binary_cross_entropy", {"x": pr, "y": yb}, ["@x", "@y"],
                   {"reduction": red})
    functional("bce_prob_weight", "binary_cross_entropy", {"x": pr, "y": yb, "w": rng.uniform(0.5, 2, (5, 3))},
               ["@x", "@y"], {"weight": "@w"}, grad=("x", "y"))
    logq = np.log(np.exp(randn(4, 5)) / np.exp(randn(4, 5)).sum(1, keepdims=True))
    pt = np.exp(randn(4, 5))
    pt /= pt.sum(1, keepdims=True)
    pt[0, 0] = 0.0  # 0 * log 0 = 0
    for red in ("mean", "sum", "none", "batchmean"):
        functional(f"kl_div_{red}", "kl_div", {"x": logq, "t": pt}, ["@x", "@t"], {"reduction": red},
                   grad=("x",))
    functional("kl_div_log_target", "kl_div", {"x": logq, "t": np.log(pt + 0.1)}, ["@x", "@t"],
               {"reduction": "batchmean", "log_target": True})
    functional("kl_div_target_grad", "kl_div", {"x": logq, "t": pt + 0.01}, ["@x", "@t"], {"reduction": "sum"})
    c1, c2 = randn(6, 4), randn(6, 4)
    yc = np.array([1, -1, 1, -1, -1, 1])
    for red in ("mean", "sum", "none"):
        functional(f"cosine_embedding_{red}", "cosine_embedding_loss", {"x1": c1, "x2": c2, "y": yc},
                   ["@x1", "@x2", "@y"], {"reduction": red})
    functional("cosine_embedding_margin", "cosine_embedding_loss", {"x1": c1, "x2": c2, "y": yc},
               ["@x1", "@x2", "@y"], {"margin": 0.2})


def recurrent_cases() -> None:
    """RNN/LSTM/GRU and cells: outputs, final states and every gradient, for several configurations."""
    L, N, I, H = 4, 3, 5, 6
    specs = [
        ("rnn_tanh_2layers_h0", "RNN", {"input_size": I, "hidden_size": H, "num_layers": 2},
         {"x": randn(L, N, I), "h0": randn(2, N, H)}, {"input": "@x", "hx": "@h0"}),
        ("rnn_relu_bidir_bf_nobias", "RNN", {"input_size": I, "hidden_size": H, "nonlinearity": "relu",
                                             "bias": False, "batch_first": True, "bidirectional": True},
         {"x": randn(N, L, I)}, {"input": "@x"}),
        ("lstm_plain", "LSTM", {"input_size": I, "hidden_size": H}, {"x": randn(L, N, I)}, {"input": "@x"}),
        ("lstm_2layers_bidir_bf_states", "LSTM", {"input_size": I, "hidden_size": H, "num_layers": 2,
                                                  "batch_first": True, "bidirectional": True},
         {"x": randn(N, L, I), "h0": randn(4, N, H), "c0": randn(4, N, H)}, {"input": "@x", "hx": ["@h0", "@c0"]}),
        ("lstm_unbatched_states", "LSTM", {"input_size": I, "hidden_size": H, "num_layers": 2},
         {"x": randn(L, I), "h0": randn(2, H), "c0": randn(2, H)}, {"input": "@x", "hx": ["@h0", "@c0"]}),
        ("lstm_nobias_bidir", "LSTM", {"input_size": I, "hidden_size": H, "bias": False, "bidirectional": True},
         {"x": randn(L, N, I)}, {"input": "@x"}),
        ("gru_2layers_h0", "GRU", {"input_size": I, "hidden_size": H, "num_layers": 2},
         {"x": randn(L, N, I), "h0": randn(2, N, H)}, {"input": "@x", "hx": "@h0"}),
        ("gru_bidir_bf_nobias", "GRU", {"input_size": I, "hidden_size": H, "bias": False, "batch_first": True,
                                        "bidirectional": True}, {"x": randn(N, L, I)}, {"input": "@x"}),
        ("gru_unbatched", "GRU", {"input_size": I, "hidden_size": H}, {"x": randn(L, I)}, {"input": "@x"}),
        ("lstmcell_state", "LSTMCell", {"input_size": I, "hidden_size": H},
         {"x": randn(N, I), "h": randn(N, H), "c": randn(N, H)}, {"input": "@x", "hx": ["@h", "@c"]}),
        ("lstmcell_nostate_unbatched", "LSTMCell", {"input_size": I, "hidden_size": H}, {"x": randn(I)},
         {"input": "@x"}),
        ("grucell_state", "GRUCell", {"input_size": I, "hidden_size": H}, {"x": randn(N, I), "h": randn(N, H)},
         {"input": "@x", "hx": "@h"}),
        ("grucell_nobias", "GRUCell", {"input_size": I, "hidden_size": H, "bias": False}, {"x": randn(N, I)},
         {"input": "@x"}),
        ("rnncell_relu", "RNNCell", {"input_size": I, "hidden_size": H, "nonlinearity": "relu"},
         {"x": randn(N, I), "h": randn(N, H)}, {"input": "@x", "hx": "@h"}),
    ]
    for case, cls, init, inputs, call in specs:
        grads = tuple(k for k in inputs)
        module_case(case, "module", getattr(nn, cls)(**init), init, inputs, call, grads)
        META[case]["cls"] = cls


def transformer_cases() -> None:
    d, h, ff, L, N = 8, 2, 16, 5, 3
    kpm = np.zeros((N, L), dtype=bool)
    kpm[0, 3:] = True
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    specs = [
        ("tel_post_relu", "TransformerEncoderLayer",
         {"d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": 0.0}, {"x": randn(L, N, d)}, {"src": "@x"}),
        ("tel_pre_gelu_bf_masks", "TransformerEncoderLayer",
         {"d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": 0.0, "activation": "gelu",
          "batch_first": True, "norm_first": True},
         {"x": randn(N, L, d), "kpm": kpm, "m": causal}, {"src": "@x", "src_mask": "@m",
                                                          "src_key_padding_mask": "@kpm"}),
        ("tel_nobias_eps", "TransformerEncoderLayer",
         {"d_model": d, "nhead": 4, "dim_feedforward": ff, "dropout": 0.0, "bias": False, "layer_norm_eps": 1e-3},
         {"x": randn(L, N, d)}, {"src": "@x"}),
    ]
    for case, cls, init, inputs, call in specs:
        module_case(case, "module", getattr(nn, cls)(**init), init, inputs, call, ("x",))
        META[case]["cls"] = cls
    init = {"d_model": d, "nhead": h, "dim_feedforward": ff, "dropout": 0.0, "batch_first": True}
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(**init), num_layers=2, norm=nn.LayerNorm(d),
                                enable_nested_tensor=False)
    module_case("transformer_encoder_2_norm", "encoder", enc, init, {"x": randn(N, L, d), "kpm": kpm},
                {"src": "@x", "src_key_padding_mask": "@kpm"}, ("x",))
    META["transformer_encoder_2_norm"].update(num_layers=2, norm=True)


def main() -> None:
    activation_cases()
    loss_cases()
    layer_cases()
    sdpa_cases()
    mha_cases()
    block_cases()
    batchnorm_module_cases()
    training_cases()
    scheduler_cases()
    layer_and_loss_function_cases()
    recurrent_cases()
    transformer_cases()
    meta = {"torch": torch.__version__, "numpy": np.__version__, "cases": META, "aliases": ALIASES}
    ARRAYS["__meta__"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **ARRAYS)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB, {len(META)} cases, {len(ARRAYS)} arrays, "
          f"{len(ALIASES)} aliases)")


if __name__ == "__main__":
    main()
