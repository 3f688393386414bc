"""``mg.autograd.functional`` with ``create_graph=True`` gives results on a graph whatever the inputs,
as PyTorch's: torch 2.13 takes an input that does not require grad as a fresh leaf that does, so
``jacobian(f, x, create_graph=True).requires_grad`` is True (and a backward from it runs) for a plain
``x``, and ``hessian``, ``vjp``'s gradient, ``jvp``/``hvp``'s function value likewise.  Here they were
constants (``requires_grad`` False: a backward from them raised).  The caller's input is untouched,
and without ``create_graph`` nothing changes.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional


def _cube_sum(x):
    return (x ** 3).sum()


CALLS = {  # each: the results as a flat list, and their values (torch 2.13) at x = [1, 2], v = [1, 1]
    "jacobian": (lambda x, v, cg: [AF.jacobian(lambda a: a ** 2, x, create_graph=cg)], [[[2, 0], [0, 4]]]),
    "jacobian vectorize": (lambda x, v, cg: [AF.jacobian(lambda a: a ** 2, x, create_graph=cg, vectorize=True)],
                           [[[2, 0], [0, 4]]]),
    "hessian": (lambda x, v, cg: [AF.hessian(_cube_sum, x, create_graph=cg)], [[[6, 0], [0, 12]]]),
    "vjp": (lambda x, v, cg: list(AF.vjp(lambda a: a ** 2, x, v, create_graph=cg)), [[1, 4], [2, 4]]),
    "jvp": (lambda x, v, cg: list(AF.jvp(lambda a: a ** 2, x, v, create_graph=cg)), [[1, 4], [2, 4]]),
    "hvp": (lambda x, v, cg: list(AF.hvp(_cube_sum, x, v, create_graph=cg)), [9, [6, 12]]),
    "vhp": (lambda x, v, cg: list(AF.vhp(_cube_sum, x, v, create_graph=cg)), [9, [6, 12]]),
}


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", list(CALLS))
def test_results_are_on_a_graph_with_create_graph(name, dtype):
    call, want = CALLS[name]
    x, v = mg.tensor([1.0, 2.0], dtype=dtype), mg.ones(2, dtype=dtype)
    results = call(x, v, True)
    for r, w in zip(results, want):
        assert r.requires_grad and r.dtype == dtype
        np.testing.assert_allclose(r.detach().numpy(), w)
    sum(r.sum() for r in results).backward()  # runs, as PyTorch's
    assert not x.requires_grad and x.grad is None  # the caller's tensor is untouched


@pytest.mark.parametrize("name", list(CALLS))
def test_without_create_graph_the_results_are_constants(name):
    call, want = CALLS[name]
    results = call(mg.tensor([1.0, 2.0], dtype=mg.float64), mg.ones(2, dtype=mg.float64), False)
    assert not any(r.requires_grad for r in results)
    for r, w in zip(results, want):
        np.testing.assert_allclose(r.numpy(), w)


def test_an_input_that_requires_grad_is_differentiated_through():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    H = AF.hessian(_cube_sum, x, create_graph=True)
    (g,) = mg.autograd.grad(H.sum(), x)
    np.testing.assert_allclose(g.numpy(), [6.0, 6.0])
