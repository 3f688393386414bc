"""Regenerate ``tests/data/torch_operators.npz``: PyTorch's answers to ``operator_cases.CASES``.

    python tests/data/make_torch_operators.py        # needs torch; the tests do not

For each case it stores, in float64: ``<case>|out<i>`` (each output), ``<case>|cot<i>``
(a random cotangent for each differentiable output) and ``<case>|grad_<input>`` (the
gradient of ``sum_i (out_i * cot_i).sum()`` for each float input; absent where PyTorch
gives none, or where its backward fails: then the case checks values only).
``tests/test_operators_vs_torch.py`` replays the cases with minigrad_ckpt.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from operator_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_operators.npz")


def outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def main() -> None:
    rng = np.random.default_rng(7)
    arrays: dict[str, np.ndarray] = {}
    for case in CASES:
        tensors = {k: torch.tensor(v, requires_grad=v.dtype == np.float64) for k, v in case.inputs.items()}
        outs = outputs(case.call(torch, **tensors))
        total = 0
        for n, o in enumerate(outs):
            arrays[f"{case.name}|out{n}"] = o.detach().numpy()
            if o.requires_grad:
                cot = rng.standard_normal(o.shape)
                arrays[f"{case.name}|cot{n}"] = cot
                total = total + (o * torch.tensor(cot)).sum()
        wrt = [k for k, t in tensors.items() if t.requires_grad]
        if isinstance(total, torch.Tensor) and wrt:
            try:
                grads = torch.autograd.grad(total, [tensors[k] for k in wrt], allow_unused=True)
            except RuntimeError as e:  # PyTorch's own backward fails: store the values only
                print(f"{case.name}: no gradients stored ({str(e).splitlines()[0]})")
                arrays[f"{case.name}|backward_failed"] = np.array(True)
                continue
            for k, g in zip(wrt, grads):
                if g is not None:
                    arrays[f"{case.name}|grad_{k}"] = g.numpy()
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(arrays)} arrays for {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
