"""Record the order of torch 2.13's ``optimizer.state_dict()["state"]``: the order the parameters
got their state (``optimizer.state``'s insertion order, an entry under another key in its place),
not their positions -- and ``load_state_dict`` keeps it.  The program: two layers, the second
stepped alone first, then both; ``state["global_step"]`` set between.
``python tests/data/make_torch_optim_state_order.py`` writes ``tests/data/torch_optim_state_order.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPTIMIZERS = {"SGD": {"lr": 0.1, "momentum": 0.9}, "Adam": {"lr": 0.1}, "RMSprop": {"lr": 0.01}}


def run(torch, name, kw):
    lin1, lin2 = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)
    params = [*lin1.parameters(), *lin2.parameters()]
    opt = getattr(torch.optim, name)(params, **kw)
    x = torch.ones(2, 3)
    opt.zero_grad()
    lin2(x).sum().backward()
    opt.step()
    opt.state["global_step"] = 1
    opt.zero_grad()
    lin2(lin1(x)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    fresh = getattr(torch.optim, name)([torch.zeros_like(p, requires_grad=True) for p in params], **kw)
    fresh.load_state_dict(sd)
    return {"state_dict": [str(k) for k in sd["state"]], "reloaded": [str(k) for k in fresh.state_dict()["state"]]}


def main() -> None:
    import torch

    out = {"torch": torch.__version__, "optimizers": {n: run(torch, n, kw) for n, kw in OPTIMIZERS.items()}}
    (HERE / "torch_optim_state_order.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
