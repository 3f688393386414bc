"""Regenerate ``tests/data/torch_nn_reference.npz``: PyTorch's answers for the keyword
variants of pooling and convolution and for the functions, layers, ``linalg`` and
``special`` names added beside them, in float64.

    python tests/data/make_torch_nn_reference.py        # needs torch; the tests do not

Each case is one call ``<namespace>.<fn>(*args, **kwargs)`` (namespace ``F`` is
``torch.nn.functional``, ``nn`` a layer built with ``init`` and called on the
arguments, ``linalg`` and ``special`` PyTorch's modules, ``torch`` the top level) on
inputs from a fixed seed.  Stored, in one compressed ``.npz``:

``<case>|<name>``       the inputs
``<case>|out<i>``       the outputs (integer outputs such as pooling indices too)
``<case>|cot<i>``       a random cotangent per floating output; the gradients are
                        those of ``sum_i (out_i * cot_i).sum()``
``<case>|grad_<name>``  the gradients of the floating inputs
``__meta__``            JSON: ``{case: {"ns", "fn", "args", "kwargs", "init", "grad"}}``

``tests/test_nn_vs_torch.py`` replays every case (no torch import).  Array
arguments are written ``"@name"``; everything else is a literal.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

OUT = Path(__file__).with_name("torch_nn_reference.npz")
torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(20261202)
ARRAYS: dict[str, np.ndarray] = {}
META: dict[str, dict] = {}


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def resolve(v, env: dict):
    if isinstance(v, str) and v.startswith("@"):
        return env[v[1:]]
    if isinstance(v, list):
        return [resolve(a, env) for a in v]
    return v


def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [o for part in out for o in flat(part)]
    return [out]


NAMESPACES = {"F": F, "linalg": torch.linalg, "special": torch.special, "torch": torch}


def case(name: str, ns: str, fn: str, inputs: dict, args: list, kwargs: dict | None = None,
         init: dict | None = None, grad: tuple[str, ...] | None = None) -> None:
    """Run one call in float64, store inputs, outputs, cotangents and gradients."""
    assert name not in META, name
    kwargs = kwargs or {}
    if grad is None:
        grad = tuple(k for k, v in inputs.items() if np.asarray(v).dtype.kind == "f")
    env = {}
    for k, v in inputs.items():
        ARRAYS[f"{name}|{k}"] = np.asarray(v)
        env[k] = torch.tensor(np.asarray(v), requires_grad=k in grad)
    if ns == "nn":
        f = getattr(nn, fn)(**(init or {}))
    else:
        f = getattr(NAMESPACES[ns], fn)
    out = flat(f(*resolve(args, env), **{k: resolve(v, env) for k, v in kwargs.items()}))
    total = 0.0
    for i, o in enumerate(out):
        ARRAYS[f"{name}|out{i}"] = o.detach().numpy().copy()
        if o.dtype.is_floating_point and o.requires_grad:
            cot = randn(*o.shape)
            ARRAYS[f"{name}|cot{i}"] = cot
            total = total + (o * torch.tensor(cot)).sum()
    if grad:
        total.backward()
        for k in grad:
            ARRAYS[f"{name}|grad_{k}"] = env[k].grad.numpy().copy()
    META[name] = {"ns": ns, "fn": fn, "args": args, "kwargs": kwargs, "init": init or {}, "grad": list(grad)}


def pooling_cases() -> None:
    x2, x1 = randn(2, 3, 7, 8), randn(2, 3, 11)
    for tag, kw in [("ceil", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
                    ("ceil_dil", {"kernel_size": (2, 3), "stride": 2, "dilation": (2, 1), "ceil_mode": True}),
                    ("ceil_exact", {"kernel_size": 2, "ceil_mode": True}),
                    ("plain", {"kernel_size": 3, "stride": (2, 1), "padding": (1, 0)})]:
        case(f"max_pool2d_{tag}", "F", "max_pool2d", {"x": x2}, ["@x"], {**kw, "return_indices": True})
        case(f"MaxPool2d_{tag}", "nn", "MaxPool2d", {"x": x2}, ["@x"], init={**kw, "return_indices": True})
    for tag, kw in [("ceil", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
                    ("ceil_dil", {"kernel_size": 2, "stride": 3, "dilation": 3, "ceil_mode": True})]:
        case(f"max_pool1d_{tag}", "F", "max_pool1d", {"x": x1}, ["@x"], {**kw, "return_indices": True})
        case(f"MaxPool1d_{tag}", "nn", "MaxPool1d", {"x": x1[0]}, ["@x"], init={**kw, "return_indices": True})
    for ceil in (False, True):
        for include in (False, True):
            for override in (None, 5):
                tag = f"{'ceil' if ceil else 'floor'}_{'incl' if include else 'excl'}_{override}"
                kw = {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": ceil,
                      "count_include_pad": include, "divisor_override": override}
                case(f"avg_pool2d_{tag}", "F", "avg_pool2d", {"x": x2}, ["@x"], kw)
            kw1 = {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": ceil, "count_include_pad": include}
            case(f"avg_pool1d_{tag[:-5]}", "F", "avg_pool1d", {"x": x1}, ["@x"], kw1)
    case("avg_pool2d_positional_ceil", "F", "avg_pool2d", {"x": x2}, ["@x", 3, 2, 1, True, False])
    case("AvgPool2d_ceil_override", "nn", "AvgPool2d", {"x": x2}, ["@x"],
         init={"kernel_size": (3, 2), "stride": (2, 3), "ceil_mode": True, "divisor_override": 4})
    case("AvgPool1d_ceil", "nn", "AvgPool1d", {"x": x1}, ["@x"],
         init={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    xa = randn(2, 3, 7, 9)
    case("adaptive_max_pool2d_indices", "F", "adaptive_max_pool2d", {"x": xa}, ["@x", [3, 4]],
         {"return_indices": True})
    case("AdaptiveMaxPool2d_indices", "nn", "AdaptiveMaxPool2d", {"x": xa[0]}, ["@x"],
         init={"output_size": (4, 2), "return_indices": True})
    ties = np.repeat(np.repeat(randn(1, 2, 2, 2), 2, axis=2), 2, axis=3)  # every window one value, four times
    case("adaptive_max_pool2d_ties", "F", "adaptive_max_pool2d", {"x": ties}, ["@x", 3])


def conv_same_cases() -> None:
    x2, x1 = randn(2, 3, 6, 7), randn(2, 3, 9)
    for tag, k, d in [("even", (2, 4), 1), ("even_dil2", (2, 4), 2), ("mixed", (3, 4), (1, 2)),
                      ("odd", (3, 3), 1)]:
        case(f"conv2d_same_{tag}", "F", "conv2d", {"x": x2, "w": randn(4, 3, *k), "b": randn(4)},
             ["@x", "@w", "@b"], {"padding": "same", "dilation": d})
    case("conv2d_valid", "F", "conv2d", {"x": x2, "w": randn(4, 3, 2, 4)}, ["@x", "@w"], {"padding": "valid"})
    case("conv2d_same_groups", "F", "conv2d", {"x": randn(1, 4, 5, 5), "w": randn(6, 2, 2, 2)}, ["@x", "@w"],
         {"padding": "same", "groups": 2})
    for k in (2, 4, 5):
        case(f"conv1d_same_{k}", "F", "conv1d", {"x": x1, "w": randn(2, 3, k)}, ["@x", "@w"], {"padding": "same"})


CASE_GROUPS = [pooling_cases, conv_same_cases]


def main() -> None:
    for group in CASE_GROUPS:
        group()
    ARRAYS["__meta__"] = np.frombuffer(json.dumps(META, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **ARRAYS)
    print(f"{OUT.name}: {len(META)} cases, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
