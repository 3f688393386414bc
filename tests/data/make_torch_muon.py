"""Regenerate ``tests/data/torch_muon.npz``: PyTorch's ``Muon`` trajectories and state.

    python tests/data/make_torch_muon.py        # needs torch; the tests do not

Three matrices (tall, wide, square) take 30 stored gradients, one ``step()`` each, under each
configuration of ``CONFIGS`` (a float lr and a tensor one) in float64 and float32; stored are the
parameters after steps 15 and 30 and, after the last, the momentum buffers.  PyTorch runs the
Newton-Schulz iteration in bfloat16, which NumPy has not; minigrad_ckpt runs it in the parameter's
dtype (docs/from-pytorch.md), so the trajectories here are PyTorch's own ``Muon`` with
``_zeropower_via_newtonschulz`` swapped for the same function minus its ``.bfloat16()`` cast -- every
other line (momentum, Nesterov, decay, lr adjustment, tensor lr) is PyTorch's.  The unpatched
(bfloat16) trajectory of "defaults" is stored too, as ``bf16_*``, to bound the difference.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.optim._muon as torch_muon

CONFIGS = {  # the same keyword arguments are spelled in the test
    "defaults": {"lr": 0.02},
    "plain_momentum": {"lr": 0.05, "nesterov": False, "weight_decay": 0.0},
    "match_rms_adamw": {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw", "momentum": 0.9},
    "own_iteration": {"lr": 0.01, "adjust_lr_fn": "original", "ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5),
                      "eps": 1e-3},
}
SHAPES = [(5, 3), (3, 7), (4, 4)]
STEPS = 30


def in_own_dtype(grad, ns_coefficients, ns_steps, eps):
    """torch 2.13's ``_zeropower_via_newtonschulz`` without ``grad.bfloat16()``."""
    a, b, c = ns_coefficients
    x = grad.T if grad.size(0) > grad.size(1) else grad
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if grad.size(0) > grad.size(1) else x


def trajectory(out, prefix, kwargs, dtype, start, grads, tensor_lr):
    ps = [torch.nn.Parameter(torch.tensor(a, dtype=dtype)) for a in start]
    kwargs = dict(kwargs, lr=torch.tensor(kwargs["lr"])) if tensor_lr else kwargs
    opt = torch.optim.Muon(ps, **kwargs)
    for k, gs in enumerate(grads):
        for p, g in zip(ps, gs):
            p.grad = torch.tensor(g, dtype=dtype)
        opt.step()
        if k + 1 in (STEPS // 2, STEPS):
            for i, p in enumerate(ps):
                out[f"{prefix}_step{k + 1}_{i}"] = p.detach().numpy().copy()
                out[f"{prefix}_step{k + 1}_buf{i}"] = opt.state[p]["momentum_buffer"].numpy().copy()


def main() -> None:
    rng = np.random.default_rng(0)
    start = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(STEPS)]
    out = {f"start{i}": a for i, a in enumerate(start)}
    out.update({f"grad{k}_{i}": g for k, gs in enumerate(grads) for i, g in enumerate(gs)})
    trajectory(out, "bf16_defaults_float64", CONFIGS["defaults"], torch.float64, start, grads, False)
    torch_muon._zeropower_via_newtonschulz = in_own_dtype
    for name, kwargs in CONFIGS.items():
        for dtype in ("float64", "float32"):
            for lr_kind in ("float", "tensor"):
                trajectory(out, f"{name}_{dtype}_{lr_kind}", kwargs, getattr(torch, dtype), start, grads,
                           lr_kind == "tensor")
    np.savez_compressed(Path(__file__).with_name("torch_muon.npz"), torch=np.array(torch.__version__), **out)


if __name__ == "__main__":
    main()
