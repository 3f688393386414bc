"""The cases of ``tests/test_linear_cross_entropy.py``, shared with the script that asked PyTorch
2.13 for their answers (``make_linear_cross_entropy_reference.py``).

Each case: a name -> the call's keywords.  ``inputs(name)`` draws its float64 arrays from a fixed
seed: ``x`` (``(N, d)`` or ``(d,)``), ``w`` (``(C, *out_features, d)``), ``b``, the class weight
``cw``, the target ``t`` (class indices with some at ``ignore_index``, or probabilities) and the
upstream gradient ``g`` of the loss's shape.  ``chunks`` is ``batch_chunk_size`` (None: the
reference path, ``options=None``; ``"auto"``: ``LinearCrossEntropyOptions()``).
"""

from __future__ import annotations

import zlib

import numpy as np

N, D, C = 7, 4, 6
CASES: dict[str, dict] = {}
for chunks in (None, "auto", 1, 3):
    for reduction in ("mean", "sum", "none"):
        for bias, weight, ignore in ((False, False, None), (True, False, 2), (True, True, None), (False, True, 2)):
            name = f"{chunks}-{reduction}-b{int(bias)}-w{int(weight)}-i{ignore}"
            CASES[name] = dict(chunks=chunks, reduction=reduction, bias=bias, weight=weight, ignore_index=ignore)
    CASES[f"{chunks}-unbatched"] = dict(chunks=chunks, reduction="none", bias=True, weight=False, ignore_index=None,
                                        unbatched=True)
    CASES[f"{chunks}-all-ignored"] = dict(chunks=chunks, reduction="sum", bias=True, weight=True, ignore_index=1,
                                          all_ignored=True)
# the reference's own ground, and what the chunked path hands to it (with a warning)
CASES["probabilities"] = dict(chunks=None, reduction="mean", bias=True, weight=True, ignore_index=None, probs=True)
CASES["probabilities-options"] = dict(chunks="auto", reduction="none", bias=False, weight=False, ignore_index=None,
                                      probs=True)
CASES["label-smoothing-options"] = dict(chunks=3, reduction="mean", bias=True, weight=True, ignore_index=2,
                                        label_smoothing=0.2)
CASES["k-dim"] = dict(chunks=None, reduction="mean", bias=True, weight=False, ignore_index=None, out_features=(2, 3))
CASES["k-dim-options"] = dict(chunks=2, reduction="none", bias=True, weight=True, ignore_index=0, out_features=(3,))
CASES["k-dim-probabilities"] = dict(chunks=None, reduction="sum", bias=False, weight=False, ignore_index=None,
                                    out_features=(2,), probs=True)


def inputs(name: str) -> dict[str, np.ndarray]:
    case = CASES[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = tuple(case.get("out_features", ()))
    x = rng.standard_normal((D,) if case.get("unbatched") else (N, D))
    lead = x.shape[:-1]
    w, b, cw = rng.standard_normal((C, *out, D)), rng.standard_normal((C, *out)), rng.random(C) + 0.5
    if case.get("probs"):
        t = rng.random((*lead, C, *out))
        t /= t.sum(axis=len(lead), keepdims=True)
    else:
        t = rng.integers(0, C, (*lead, *out))
        ignore = case["ignore_index"] if case["ignore_index"] is not None else -100
        if case.get("all_ignored"):
            t[...] = ignore
        elif t.ndim:
            t.reshape(-1)[[1, 4]] = ignore
    g_shape = (*lead, *out) if case["reduction"] == "none" else ()
    return dict(x=x, w=w, b=b, cw=cw, t=t, g=rng.standard_normal(g_shape))
