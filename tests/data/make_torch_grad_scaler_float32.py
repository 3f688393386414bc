"""Record torch 2.13's GradScaler arithmetic: its scale is a float32 tensor, so ``init_scale``,
every growth and back-off (``float32(scale * factor)``, computed in double), ``new_scale`` and a
loaded scale are rounded to float32; a growth that would overflow float32 keeps the old scale;
``unscale_`` multiplies by ``float32(1 / double(scale))``; ``get_scale()`` and ``state_dict()``
before the first ``scale()`` give ``init_scale`` as passed.
``python tests/data/make_torch_grad_scaler_float32.py`` writes ``tests/data/torch_grad_scaler_float32.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (init_scale, growth_factor, backoff_factor, growth_interval, dtype, steps whose loss is inf)
CASES = {
    "odd_factors_float32": (1000.1, 1.7, 0.3, 1, "float32", [1, 4]),
    "odd_factors_float64": (1000.1, 1.7, 0.3, 2, "float64", [1]),
    "growth_at_the_float32_limit": (2.0 ** 126, 2.0, 0.5, 1, "float32", []),
}
BEYOND_FLOAT32 = 2.0 ** 140  # an init_scale or new_scale float32 cannot hold
STEPS = 6
W0 = [1.0, -2.0, 0.7]


def hexes(values):
    return [float(v).hex() for v in values]


def run(torch, case):
    init, growth, backoff, interval, dtype, inf_steps = case
    w = torch.tensor(W0, dtype=getattr(torch, dtype), requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=init, growth_factor=growth, backoff_factor=backoff,
                                  growth_interval=interval)
    out = {"before": float(scaler.get_scale()).hex(), "state_before": float(scaler.state_dict()["scale"]).hex(),
           "scales": [], "scaled": [], "params": []}
    for i in range(STEPS):
        opt.zero_grad()
        loss = (w * w * 0.37).sum() * (float("inf") if i in inf_steps else 1.0)
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.step(opt)
        scaler.update()
        out["scales"].append(float(scaler.get_scale()).hex())
        out["scaled"].append(float(scaled.item()).hex())
        out["params"].append(hexes(w.detach().tolist()))
    scaler.update(new_scale=123.456)
    out["new_scale"] = float(scaler.get_scale()).hex()
    fresh = torch.amp.GradScaler("cpu")
    fresh.load_state_dict({**scaler.state_dict(), "scale": 777.77})
    out["loaded_before_scale"] = float(fresh.get_scale()).hex()
    fresh.scale(torch.ones(()))
    out["loaded_after_scale"] = float(fresh.get_scale()).hex()
    return out


def refusals(torch):
    """What scale() with an init_scale, and update() with a new_scale, beyond float32 raise."""
    out = {}
    try:
        torch.amp.GradScaler("cpu", init_scale=BEYOND_FLOAT32).scale(torch.ones(()))
    except Exception as exc:
        out["init_scale"] = [type(exc).__name__, str(exc)]
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(torch.ones(()))
    try:
        scaler.update(new_scale=BEYOND_FLOAT32)
    except Exception as exc:
        out["new_scale"] = [type(exc).__name__, str(exc)]
    return out


def main() -> None:
    import torch

    out = {"torch": torch.__version__, "steps": STEPS, "w0": W0,
           "cases": {name: {"args": case, **run(torch, case)} for name, case in CASES.items()},
           "beyond_float32": refusals(torch)}
    (HERE / "torch_grad_scaler_float32.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
