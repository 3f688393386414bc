"""Regenerate ``tests/data/linear_cross_entropy_reference.npz``: PyTorch 2.13's
``F.linear_cross_entropy`` on the cases of ``linear_cross_entropy_cases.py``.

    python tests/data/make_linear_cross_entropy_reference.py     # needs torch 2.13; the tests do not

Under ``<case>|<key>``: ``loss``, and the gradients ``gx``, ``gw``, ``gb`` of ``(loss * g).sum()``;
``<case>|warned`` is 1 where the call warned that it ignored ``options``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from linear_cross_entropy_cases import CASES, inputs  # noqa: E402


def options(chunks):
    if chunks is None:
        return None
    if chunks == "auto":
        return torch.nn.LinearCrossEntropyOptions()
    return torch.nn.LinearCrossEntropyOptions(batch_chunk_size=chunks)


def main() -> None:
    out = {}
    for name, case in CASES.items():
        a = inputs(name)
        x, w, b = (torch.tensor(a[k], requires_grad=True) for k in ("x", "w", "b"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = torch.nn.functional.linear_cross_entropy(
                x, w, torch.tensor(a["t"]), linear_bias=b if case["bias"] else None,
                weight=torch.tensor(a["cw"]) if case["weight"] else None, reduction=case["reduction"],
                ignore_index=case["ignore_index"], label_smoothing=case.get("label_smoothing", 0.0),
                options=options(case["chunks"]))
        (loss * torch.tensor(a["g"])).sum().backward()
        out[f"{name}|loss"] = loss.detach().numpy()
        out[f"{name}|gx"], out[f"{name}|gw"] = x.grad.numpy(), w.grad.numpy()
        if case["bias"]:
            out[f"{name}|gb"] = b.grad.numpy()
        out[f"{name}|warned"] = np.array(int(any("options`` ignored" in str(c.message) for c in caught)))
    np.savez_compressed(Path(__file__).parent / "linear_cross_entropy_reference.npz", **out)


if __name__ == "__main__":
    main()
