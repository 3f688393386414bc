"""``mg.autograd.functional`` runs with grad mode on whatever the caller's, as PyTorch's does: under
``no_grad()``, ``create_graph=True`` still gives results on a graph, differentiable further.  Found by
porting PyTorch's test/autograd/test_functional.py (its ``test_*_no_grad``): the engine's answers were
constants there (``mg.func``'s transforms, on which these stand, follow the caller's grad mode, as
``torch.func``'s do), so a backward from them raised.  Without ``create_graph`` they stay constants.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.checkpoint import checkpoint

AF = mg.autograd.functional


def _cube_sum(x):
    return (x ** 3).sum()


def _checkpointed_cube_sum(x):
    return checkpoint(lambda a: a ** 3, x, use_reentrant=False).sum()


# each: the results, and d(sum of results)/dx by hand at x = [1, 2], v = [1, 1]
CALLS = {
    "jacobian": (lambda x, v, f: [AF.jacobian(lambda a: a ** 2, x, create_graph=True)], [2, 2]),
    "hessian": (lambda x, v, f: [AF.hessian(f, x, create_graph=True)], [6, 6]),
    "vjp": (lambda x, v, f: list(AF.vjp(lambda a: a ** 2, x, v, create_graph=True)), [2 + 2, 4 + 2]),
    "jvp": (lambda x, v, f: list(AF.jvp(lambda a: a ** 2, x, v, create_graph=True)), [2 + 2, 4 + 2]),
    "hvp": (lambda x, v, f: list(AF.hvp(f, x, v, create_graph=True)), [3 + 6, 12 + 6]),
    "vhp": (lambda x, v, f: list(AF.vhp(f, x, v, create_graph=True)), [3 + 6, 12 + 6]),
}


@pytest.mark.parametrize("func", [_cube_sum, _checkpointed_cube_sum], ids=["plain", "checkpointed"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", list(CALLS))
def test_create_graph_under_no_grad_gives_results_on_a_graph(name, dtype, func):
    call, want = CALLS[name]
    x = mg.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    with mg.no_grad():
        results = call(x, mg.ones(2, dtype=dtype), func)
    assert all(r.requires_grad and r.grad_fn is not None for r in results)
    (g,) = mg.autograd.grad(sum(r.sum() for r in results), x)
    assert g.dtype == dtype
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_without_create_graph_under_no_grad_the_results_are_constants(name):
    x, v = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True), mg.ones(2, dtype=mg.float64)
    api = getattr(AF, name)
    with mg.no_grad():
        if name in ("jacobian", "hessian"):
            results = [api(_cube_sum if name == "hessian" else (lambda a: a ** 2), x)]
        else:
            results = list(api(_cube_sum if name in ("hvp", "vhp") else (lambda a: a ** 2), x, v))
    assert not any(r.requires_grad for r in results)
    assert any(np.abs(r.numpy()).sum() > 0 for r in results)


def test_the_function_sees_grad_mode_on_under_no_grad():
    seen = []

    def f(a):
        seen.append(mg.is_grad_enabled())
        return a ** 2

    with mg.no_grad():
        AF.vjp(f, mg.tensor([1.0, 2.0]), mg.ones(2))
    assert seen == [True]  # (torch 2.13: True)
