"""Regenerate ``tests/data/torch_special_extremes.json``: PyTorch's values and gradients of
special functions at their extremal arguments (clamping ``eps``, poles, negative and tiny
arguments), float64 and float32, for ``tests/test_special_extremes.py``.

    python tests/data/make_torch_special_extremes.py     # needs torch; the tests do not

Each case is ``[function, leading constants, keywords, arguments, differentiated]``; the file holds, per case and
dtype, the value and the gradient of ``sum(f(x))`` with respect to each differentiated argument
(NaN and infinities as JSON's NaN/Infinity).
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

OUT = Path(__file__).with_name("torch_special_extremes.json")
INF, NAN = float("inf"), float("nan")
P = [-1.0, -0.0, 0.0, 1e-7, 0.05, 0.3, 0.5, 0.9999999, 1.0, 2.0, NAN, INF, -INF]

# zeta(x, q) for q < 0 and an integer x (a real sum: SciPy's and PyTorch's finite values), x the
# one argument without a derivative; beside q's poles and positive q
ZX, ZQ = [2.0, 3.0, 4.0, 5.0, 7.0], [-0.5, -2.5, -1.3, -3.75, -0.999, -1e-3, -7.2, -100.3, -0.0, -1.0, 0.5, 2.0]
ZETA = [[x for x in ZX for _ in ZQ], [q for _ in ZX for q in ZQ]]

# polygamma(n, x) just below 0 (subnormal x too), where the pole's term is all
TINY = [-5e-324, -1e-310, -1e-300, -1e-45, -1e-39, -1e-30, -1e-19, -0.3, -2.5]

# [function, leading constants (PyTorch's order), keywords, arguments, the indices differentiated]
CASES = [["logit", [], {"eps": eps}, [P], [0]] for eps in (None, 0.0, 1e-6, 0.3, 0.5, 0.7, -0.1)]
CASES += [["zeta", [], {}, ZETA, [1]]]
CASES += [["polygamma", [n], {}, [TINY], [0]] for n in (1, 2, 3, 4)]
# torch.mvlgamma has no domain check: the sum of lgammas below (p - 1) / 2 too
CASES += [["mvlgamma", [], {"p": p}, [[0.3, 0.5, 0.75, -0.5, -0.0, -1.25, 2.0, NAN]], [0]] for p in (1, 2, 3)]


def run(name: str, lead: list, kw: dict, args: list, wrt: list, dtype: torch.dtype) -> dict:
    xs = [torch.tensor(a, dtype=dtype, requires_grad=i in wrt) for i, a in enumerate(args)]
    out = getattr(torch.special, name, None) or getattr(torch, name)
    out = out(*lead, *xs, **kw)
    grads = torch.autograd.grad(out.sum(), [xs[i] for i in wrt])
    return {"value": out.tolist(), "grads": [g.tolist() for g in grads]}


def main() -> None:
    cases = []
    for name, lead, kw, args, wrt in CASES:
        answers = {str(dt).split(".")[1]: run(name, lead, kw, args, wrt, dt) for dt in (torch.float64, torch.float32)}
        cases.append({"name": name, "lead": lead, "kw": kw, "args": args, "wrt": wrt, **answers})
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=None) + "\n")


if __name__ == "__main__":
    main()
