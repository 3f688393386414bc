"""Regenerate ``tests/data/torch_adafactor.npz``: PyTorch's ``Adafactor`` trajectories and state.

    python tests/data/make_torch_adafactor.py        # needs torch; the tests do not

Three parameters (a matrix, a vector, a stack of matrices) take the five stored gradients, one
``step()`` each, under each configuration of ``CONFIGS`` and in float64 and float32; stored are
the parameters after each step and, after the last, the state (``step``, ``row_var``,
``col_var``, ``variance``).  ``tests/test_optim_adafactor.py`` replays every case with minigrad_ckpt.
The file name does not start with ``test_`` so pytest never collects it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

CONFIGS = {  # the same keyword arguments are spelled in the test
    "defaults": {},
    "decay": {"lr": 0.05, "weight_decay": 0.1, "d": 1.5, "eps": (1e-20, 1e-2), "beta2_decay": -0.5},
    "maximize": {"maximize": True, "lr": 3.0},
}


def main() -> None:
    rng = np.random.default_rng(0)
    start = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((2, 3, 2))]
    grads = [[rng.standard_normal(a.shape) for a in start] for _ in range(5)]
    out = {f"start{i}": a for i, a in enumerate(start)}
    out.update({f"grad{k}_{i}": g for k, gs in enumerate(grads) for i, g in enumerate(gs)})
    for name, kwargs in CONFIGS.items():
        for dtype in ("float64", "float32"):
            ps = [torch.nn.Parameter(torch.tensor(a, dtype=getattr(torch, dtype))) for a in start]
            opt = torch.optim.Adafactor(ps, **kwargs)
            for k, gs in enumerate(grads):
                for p, g in zip(ps, gs):
                    p.grad = torch.tensor(g, dtype=p.dtype)
                opt.step()
                for i, p in enumerate(ps):
                    out[f"{name}_{dtype}_step{k}_{i}"] = p.detach().numpy().copy()
            for i, st in opt.state_dict()["state"].items():
                for key, v in st.items():
                    out[f"{name}_{dtype}_state{i}_{key}"] = v.numpy().copy()
    np.savez_compressed(Path(__file__).with_name("torch_adafactor.npz"), torch=np.array(torch.__version__), **out)


if __name__ == "__main__":
    main()
