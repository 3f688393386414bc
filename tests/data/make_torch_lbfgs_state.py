"""Record PyTorch's LBFGS on a problem whose gradients both engines are handed (computed here in
NumPy from the parameters' values, so only the optimizer's own arithmetic can differ): the
parameters after each step, in float64 and float32, and the layout of ``state_dict()["state"][0]``
(its keys in order, and for each value its kind: a tensor's dtype and shape, a list's items, a
number's type).  ``python tests/data/make_torch_lbfgs_state.py`` writes
``tests/data/torch_lbfgs_state.json`` (needs torch; the tests do not, and import the inputs from here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
STEPS = 5
SIZES = (4, 2)  # two parameters, one flat vector to LBFGS
_RNG = np.random.default_rng(0)
_M = _RNG.standard_normal((6, 6))
A = _M @ _M.T / 6 + np.eye(6)
B = _RNG.standard_normal(6)
X0 = np.linspace(-1.5, 1.2, 6)
CONFIGS = {
    "fixed_step": dict(lr=1, max_iter=5, history_size=3),
    "one_iteration": dict(lr=0.5, max_iter=1, history_size=4),
    "strong_wolfe": dict(lr=1, max_iter=4, history_size=2, line_search_fn="strong_wolfe"),
}


def loss_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
    """``0.5 x.A.x - b.x + 0.1 sum(x^4)`` and its gradient, in float64, from ``x`` (any float dtype)."""
    x = x.astype(np.float64)
    return float(0.5 * x @ A @ x - B @ x + 0.1 * (x ** 4).sum()), A @ x - B + 0.4 * x ** 3


def kind(v) -> object:
    """A state value's layout: ``["tensor", dtype, shape]``, a list of the items' kinds, or the type's name."""
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ["tensor", str(v.dtype).split(".")[-1], list(v.shape)]
    if isinstance(v, list):
        return [kind(x) for x in v]
    return type(v).__name__


def run(lib, optim_cls, dtype: str, config: dict) -> tuple[list, object]:
    """``STEPS`` steps of LBFGS from ``X0``; the parameters after each, and the optimizer."""
    start = np.split(X0.astype(dtype), np.cumsum(SIZES)[:-1])
    params = [lib.tensor(x, requires_grad=True) for x in start]
    opt = optim_cls(params, **config)

    def closure():
        x = np.concatenate([p.detach().numpy() for p in params])
        loss, grad = loss_and_grad(x)
        for p, g in zip(params, np.split(grad.astype(dtype), np.cumsum(SIZES)[:-1])):
            p.grad = lib.tensor(g)
        return loss

    path = []
    for _ in range(STEPS):
        opt.step(closure)
        path.append([float(v) for p in params for v in p.detach().numpy()])
    return path, opt


def main() -> None:
    import torch

    out = {"torch": torch.__version__, "runs": {}}
    for dtype in ("float64", "float32"):
        for name, config in CONFIGS.items():
            path, opt = run(torch, torch.optim.LBFGS, dtype, config)
            state = opt.state_dict()["state"][0]
            out["runs"][f"{name}/{dtype}"] = {"path": path, "state": [[k, kind(v)] for k, v in state.items()]}
    (HERE / "torch_lbfgs_state.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
