"""Regenerate ``tests/data/torch_module_api.npz``: PyTorch's answers for layer options that
``torch_reference.npz`` does not cover (LSTM ``proj_size``; MultiheadAttention ``kdim``/``vdim``,
``add_bias_kv``, ``add_zero_attn``; the norms' ``bias=False``; Conv3d's ``padding_mode``), in float64, in
the same layout (see ``make_torch_reference.py``, whose helpers this reuses).

    python tests/data/make_torch_module_api.py        # needs torch; the tests do not

A file of its own so that regenerating it leaves ``torch_reference.npz`` byte for byte as it is.
Besides the arrays, each case's ``__meta__`` entry lists torch's ``state_dict()`` keys in order.
``tests/test_module_api_vs_torch.py`` replays the cases.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import make_torch_reference as ref  # noqa: E402  (sets torch's default dtype to float64)
from torch import nn  # noqa: E402

OUT = Path(__file__).with_name("torch_module_api.npz")
ref.rng = np.random.default_rng(20261203)
randn = ref.randn


def case(name: str, kind: str, module: nn.Module, init: dict, inputs: dict, call: dict) -> None:
    floating = tuple(k for k, a in inputs.items() if a.dtype.kind == "f" and not k.endswith("mask"))
    ref.module_case(name, kind, module, init, inputs, call, floating)
    ref.META[name]["state_keys"] = list(module.state_dict())


def lstm_projection_cases() -> None:
    L, N, I, H, P = 4, 3, 5, 6, 3
    specs = [
        ("lstm_proj", {"input_size": I, "hidden_size": H, "proj_size": P}, {"x": randn(L, N, I)},
         {"input": "@x"}),
        ("lstm_proj_2layers_bidir_bf_states", {"input_size": I, "hidden_size": H, "proj_size": P, "num_layers": 2,
                                               "batch_first": True, "bidirectional": True},
         {"x": randn(N, L, I), "h0": randn(4, N, P), "c0": randn(4, N, H)}, {"input": "@x", "hx": ["@h0", "@c0"]}),
        ("lstm_proj_unbatched_nobias", {"input_size": I, "hidden_size": H, "proj_size": 1, "bias": False},
         {"x": randn(L, I)}, {"input": "@x"}),
    ]
    for name, init, inputs, call in specs:
        case(name, "module", nn.LSTM(**init), init, inputs, call)
        ref.META[name]["cls"] = "LSTM"


def mha_kdim_vdim_cases() -> None:
    e, h, L, S, N, kd, vd = 8, 2, 4, 5, 3, 3, 6
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, 3:] = True
    am = np.zeros((L, S), dtype=bool)
    am[0, 2] = True
    cross = {"query": "@q", "key": "@k", "value": "@v"}
    specs = [
        ("mha_kdim_vdim", {"kdim": kd, "vdim": vd}, {"q": randn(L, N, e), "k": randn(S, N, kd), "v": randn(S, N, vd)},
         cross),
        ("mha_kdim_vdim_bf_masks_heads", {"kdim": kd, "vdim": vd, "batch_first": True},
         {"q": randn(N, L, e), "k": randn(N, S, kd), "v": randn(N, S, vd), "kpm_mask": kpm, "am_mask": am},
         {**cross, "key_padding_mask": "@kpm_mask", "attn_mask": "@am_mask", "average_attn_weights": False}),
        ("mha_kdim_nobias_unbatched", {"kdim": kd, "vdim": kd, "bias": False},
         {"q": randn(L, e), "kv": randn(S, kd)}, {"query": "@q", "key": "@kv", "value": "@kv"}),
        ("mha_bias_kv_zero_attn_masks", {"add_bias_kv": True, "add_zero_attn": True},
         {"q": randn(L, N, e), "k": randn(S, N, e), "v": randn(S, N, e), "kpm_mask": kpm, "am_mask": am},
         {**cross, "key_padding_mask": "@kpm_mask", "attn_mask": "@am_mask"}),
        ("mha_bias_kv_self", {"add_bias_kv": True}, {"x": randn(L, N, e)},
         {"query": "@x", "key": "@x", "value": "@x"}),
        ("mha_zero_attn_kdim_float_mask", {"add_zero_attn": True, "kdim": kd, "vdim": vd},
         {"q": randn(L, N, e), "k": randn(S, N, kd), "v": randn(S, N, vd), "am_mask": randn(L, S)},
         {**cross, "attn_mask": "@am_mask"}),
    ]
    for name, extra, inputs, call in specs:
        init = {"embed_dim": e, "num_heads": h, **extra}
        case(name, "mha", nn.MultiheadAttention(**init), init, inputs, call)


def norm_without_bias_cases() -> None:
    """PyTorch's keyword-only ``bias=False`` of the norms: an affine scale, no shift."""
    specs = [
        ("batchnorm2d_nobias", "BatchNorm2d", {"num_features": 3, "bias": False}, randn(4, 3, 2, 2)),
        ("groupnorm_nobias", "GroupNorm", {"num_groups": 2, "num_channels": 4, "bias": False}, randn(3, 4, 5)),
        ("instancenorm1d_affine_nobias", "InstanceNorm1d", {"num_features": 3, "affine": True, "bias": False},
         randn(2, 3, 6)),
    ]
    for name, cls, init, x in specs:
        case(name, "module", getattr(nn, cls)(**init), init, {"x": x}, {"input": "@x"})
        ref.META[name]["cls"] = cls


def conv3d_padding_mode_cases() -> None:
    """Conv3d's ``padding_mode``: the input padded in that mode first, then a convolution without padding."""
    for mode, padding, stride in (("reflect", 1, 1), ("replicate", (1, 2, 0), 2), ("circular", "same", 1)):
        init = {"in_channels": 2, "out_channels": 3, "kernel_size": 3, "padding": padding, "stride": stride,
                "padding_mode": mode}
        name = f"conv3d_padding_{mode}"
        case(name, "module", nn.Conv3d(**init), init, {"x": randn(2, 2, 4, 5, 3)}, {"input": "@x"})
        ref.META[name]["cls"] = "Conv3d"


def main() -> None:
    lstm_projection_cases()
    mha_kdim_vdim_cases()
    norm_without_bias_cases()
    conv3d_padding_mode_cases()
    meta = {"torch": ref.torch.__version__, "numpy": np.__version__, "cases": ref.META, "aliases": ref.ALIASES}
    ref.ARRAYS["__meta__"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **ref.ARRAYS)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB, {len(ref.META)} cases)")


if __name__ == "__main__":
    main()
