"""Regenerate ``tests/data/torch_std_extremes.json``: torch 2.13's float32 ``std``/``var``/``std_mean`` of
slices whose spread is tiny (1e-25, 1e-42: the squares underflow float32) or huge (1e20: the squares
overflow it) though the standard deviation itself is representable, with the gradient of ``std(dim=1)``'s
sum and its forward-mode derivative along a fixed tangent.  PyTorch accumulates float32 variances in
double, so its answers are the exact ones rounded to float32.

    python tests/data/make_torch_std_extremes.py     # needs torch; the tests do not

Read by ``tests/test_std_extremes.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.func

OUT = Path(__file__).with_name("torch_std_extremes.json")
ROWS = [[1e-25, -1e-25, 3e-25, 0.0], [1e20, -1e20, 3e20, 0.0], [1e-42, -1e-42, 3e-42, 0.0],
        [1.0, 2.0, 4.0, 8.0], [-3e19, 5e19, 1e18, -2e19]]
TANGENT = [[0.5, -1.0, 2.0, 0.25]] * len(ROWS)


def _list(t: torch.Tensor) -> list:
    return np.asarray(t.detach(), dtype=np.float64).tolist()  # float32 values, exactly, as JSON floats


def main() -> None:
    x = torch.tensor(ROWS, dtype=torch.float32, requires_grad=True)
    x.std(dim=1).sum().backward()
    _, tangent = torch.func.jvp(lambda t: t.std(dim=1), (x.detach(),), (torch.tensor(TANGENT),))
    s, m = torch.std_mean(x.detach(), dim=1)
    out = {
        "rows": _list(x), "tangent": TANGENT,
        "std_dim1": _list(x.std(dim=1)), "std_dim1_correction0": _list(x.std(dim=1, correction=0)),
        "var_dim1": _list(x.var(dim=1)), "std_dim0_keepdim": _list(x[:3].std(dim=0, keepdim=True)),
        "std_first_row": _list(x[0].std()), "std_mean_dim1": [_list(s), _list(m)],
        "grad_std_dim1": _list(x.grad), "jvp_std_dim1": _list(tangent),
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
