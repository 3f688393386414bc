"""Regenerate ``tests/data/torch_3d_ops.npz``: PyTorch's answers for ``conv_transpose3d``,
``adaptive_max_pool3d`` and ``max_unpool3d`` and their layers, in float64, including inputs
with the edge values floating point is made of (+-inf, NaN, -0.0, the largest and smallest
normal magnitudes, a subnormal).

    python tests/data/make_torch_3d_ops.py        # needs torch; the tests do not

The cases are made and stored exactly as ``make_torch_nn_reference.py``'s (its ``case``), in a
file of their own; ``tests/test_nn_vs_torch.py`` replays both files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
import make_torch_nn_reference as ref  # noqa: E402  (its case() and stores, with a fresh seed below)

OUT = Path(__file__).with_name("torch_3d_ops.npz")
ref.rng = np.random.default_rng(20261203)
randn = ref.randn
case = ref.case
EDGES = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.7976931348623157e308, -1.7976931348623157e308,
                  2.2250738585072014e-308, -2.2250738585072014e-308, 5e-324, -5e-324])


def with_edges(x: np.ndarray, every: int, edges: np.ndarray = EDGES) -> np.ndarray:
    """``x`` with every ``every``-th element (from a random start) replaced by the next edge value."""
    x = x.copy()
    flat = x.reshape(-1)
    start = int(ref.rng.integers(every))
    for j, i in enumerate(range(start, flat.size, every)):
        flat[i] = edges[j % len(edges)]
    return x


def conv_transpose3d_cases() -> None:
    x, w, b = randn(2, 4, 3, 4, 3), randn(4, 3, 2, 3, 2), randn(6)
    for tag, kw in [("plain", {}),
                    ("strided", {"stride": [2, 1, 3], "padding": [0, 1, 1], "output_padding": [1, 0, 2]}),
                    ("groups_dilation", {"groups": 2, "dilation": [2, 1, 2], "stride": 2, "padding": [1, 0, 2],
                                         "output_padding": 1}),
                    ("crop", {"padding": [2, 3, 1], "stride": [3, 2, 2]})]:
        g = kw.get("groups", 1)
        case(f"conv_transpose3d_{tag}", "F", "conv_transpose3d", {"x": x, "w": w, "b": b[:3 * g]},
             ["@x", "@w", "@b"], kw)
    case("conv_transpose3d_unbatched", "F", "conv_transpose3d", {"x": x[0], "w": w}, ["@x", "@w"], {"stride": 2})
    # edge values in the input, finite weights: each output sums only the input terms that reach it.
    # Not the largest finite magnitudes: whether a sum of them overflows depends on the order of the terms
    case("conv_transpose3d_edges", "F", "conv_transpose3d", {"x": with_edges(x, 7, EDGES[np.abs(EDGES) < 1e300]),
                                                            "w": w}, ["@x", "@w"],
         {"stride": [2, 1, 2], "padding": 1}, grad=("x",))


def adaptive_max_pool3d_cases() -> None:
    x = randn(2, 3, 5, 6, 7)
    for tag, size in [("even", [1, 3, 7]), ("uneven", [3, 4, 5]), ("none", [2, None, 3]), ("int", 4),
                      ("larger", [7, 8, 9])]:
        case(f"adaptive_max_pool3d_{tag}", "F", "adaptive_max_pool3d", {"x": x}, ["@x", size],
             {"return_indices": True})
    case("adaptive_max_pool3d_unbatched", "F", "adaptive_max_pool3d", {"x": x[0]}, ["@x", [2, 3, 4]])
    # NaN is a window's maximum (PyTorch's adaptive kernels keep the last NaN they meet), ties of
    # -0.0 and 0.0 go to the first
    case("adaptive_max_pool3d_edges", "F", "adaptive_max_pool3d", {"x": with_edges(x, 5)}, ["@x", [3, 2, 4]],
         {"return_indices": True})
    ties = np.zeros((1, 2, 2, 3, 2))
    ties[0, 0, 0, 0, 0] = -0.0
    ties[0, 1] = np.nan
    case("adaptive_max_pool3d_ties", "F", "adaptive_max_pool3d", {"x": ties}, ["@x", 1], {"return_indices": True})
    case("layer_AdaptiveMaxPool3d", "nn", "AdaptiveMaxPool3d", {"x": x}, ["@x"],
         init={"output_size": [2, 3, 2], "return_indices": True})


def max_unpool3d_cases() -> None:
    x = randn(2, 3, 4, 6, 8)
    for tag, kw, sizes in [("plain", {"kernel_size": 2}, (None, [4, 6, 8], [2, 3, 4, 6, 8], [5, 7, 9])),
                           ("gaps", {"kernel_size": 2, "stride": [3, 2, 3], "padding": [1, 0, 1]}, ([4, 6, 8],))]:
        out, idx = F.max_pool3d(torch.tensor(x), return_indices=True, **kw)
        for size in sizes:
            size_tag = "" if size is None else "_" + "x".join(map(str, size))
            case(f"max_unpool3d_{tag}{size_tag}", "F", "max_unpool3d", {"v": out.numpy(), "i": idx.numpy()},
                 ["@v", "@i"], {**kw, "output_size": size})
    # overlapping windows pick some elements twice: the values only (PyTorch's backward gives each copy the
    # gradient of the one position written; the engine's is the derivative of the write, docs/from-pytorch.md)
    kw = {"kernel_size": [3, 2, 3], "stride": [2, 1, 2], "padding": [1, 0, 1]}
    out, idx = F.max_pool3d(torch.tensor(x), return_indices=True, **kw)
    case("max_unpool3d_overlapping", "F", "max_unpool3d", {"v": out.numpy(), "i": idx.numpy()}, ["@v", "@i"],
         {**kw, "output_size": [4, 6, 8]}, grad=())
    out, idx = F.max_pool3d(torch.tensor(x[0]), 2, return_indices=True)
    case("max_unpool3d_unbatched_edges", "F", "max_unpool3d", {"v": with_edges(out.numpy(), 3), "i": idx.numpy()},
         ["@v", "@i", 2])
    case("layer_MaxUnpool3d", "nn", "MaxUnpool3d", {"v": out.numpy(), "i": idx.numpy()}, ["@v", "@i"],
         {"output_size": [4, 7, 8]}, init={"kernel_size": 2})


def main() -> None:
    torch.manual_seed(0)
    for group in (conv_transpose3d_cases, adaptive_max_pool3d_cases, max_unpool3d_cases):
        group()
    ref.ARRAYS["__meta__"] = np.frombuffer(json.dumps(ref.META, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **ref.ARRAYS)
    print(f"{OUT.name}: {len(ref.META)} cases, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
