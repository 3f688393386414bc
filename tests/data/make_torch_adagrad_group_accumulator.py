"""Record which ``initial_accumulator_value`` PyTorch's Adagrad starts each parameter's ``sum`` from
when a parameter group gives its own: at construction and for a group added later with
``add_param_group``, it reads the optimizer's (``self.defaults``), never the group's.
``python tests/data/make_torch_adagrad_group_accumulator.py`` writes
``tests/data/torch_adagrad_group_accumulator.json`` (needs torch; the tests do not, and import the inputs from here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
START = {"a": [1.0, -2.0], "b": [3.0], "c": [0.5, 0.25, -1.0]}
GRADS = [{"a": [0.5, -1.0], "b": [2.0], "c": [0.1, 0.2, -0.3]}, {"a": [-0.25, 0.75], "b": [1.5], "c": [-1.0, 0.5, 0.0]}]
OPTIONS = dict(lr=0.1, initial_accumulator_value=0.5)


def run(lib, adagrad, complex_b: bool = False) -> dict:
    """Groups ``a`` (the optimizer's value), ``b`` (its own 5.0) and ``c`` added after the first step (its
    own 2.0); two steps.  The sums and the parameters, by name (a complex ``b``'s as [re, im] pairs)."""
    b = np.array(START["b"]) * (1 + 1j if complex_b else 1)
    params = {"a": lib.tensor(np.array(START["a"]), requires_grad=True), "b": lib.tensor(b, requires_grad=True),
              "c": lib.tensor(np.array(START["c"]), requires_grad=True)}
    opt = adagrad([{"params": [params["a"]]}, {"params": [params["b"]], "initial_accumulator_value": 5.0}],
                  **OPTIONS)
    for i, grads in enumerate(GRADS):
        if i == 1:
            opt.add_param_group({"params": [params["c"]], "initial_accumulator_value": 2.0})
        for name, p in params.items():
            if i or name != "c":
                p.grad = lib.tensor(np.array(grads[name]) * (1 - 0.5j if complex_b and name == "b" else 1))
        opt.step()

    def values(t):
        a = t.detach().numpy()
        return np.stack([a.real, a.imag], -1).tolist() if np.iscomplexobj(a) else a.tolist()
    return {name: {"sum": values(opt.state[p]["sum"]), "param": values(p)} for name, p in params.items()}


def main() -> None:
    import torch

    torch.set_default_dtype(torch.float64)
    out = {"torch": torch.__version__, "real": run(torch, torch.optim.Adagrad),
           "complex": run(torch, torch.optim.Adagrad, complex_b=True)}
    (HERE / "torch_adagrad_group_accumulator.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
