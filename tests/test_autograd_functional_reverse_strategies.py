"""``mg.autograd.functional`` follows torch 2.13's strategies, so a custom ``Function`` with a
differentiable ``backward`` but no ``jvp`` works wherever it works in PyTorch: ``jacobian`` (default
``strategy="reverse-mode"``) and ``vjp`` are reverse mode, ``hessian`` (default
``outer_jacobian_strategy="reverse-mode"``) and ``vhp`` are reverse over reverse, and ``jvp`` and
``hvp`` are the double-backward trick (a backward pass differentiated once more), not forward mode.
Here ``hessian``, ``jvp`` and ``hvp`` used forward mode and raised ``MissingJvpError``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
W = np.array([0.5, -1.0, 0.25])
X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, -2.0, 0.5])


class MulExp(mg.autograd.Function):
    """``a * exp(b)``: a backward made of tensor ops (differentiable again), and no ``jvp``."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b.exp()

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        e = b.exp()
        return g * e, g * a * e


DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _setup(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    w = mg.tensor(W, dtype=dtype, device=device)
    return mg.tensor(X, dtype=dtype, device=device), mg.tensor(V, dtype=dtype, device=device), w


def _vector_f(w):
    return lambda a: MulExp.apply(a, a * w)


def _scalar_f(w):
    return lambda a: MulExp.apply(a, a * w).sum()


# f(x) = x exp(w x) elementwise: f' = exp(wx)(1 + wx); of the sum, the Hessian is diagonal, w exp(wx)(2 + wx)
VALUE = X * np.exp(W * X)
SLOPE = np.exp(W * X) * (1 + W * X)
CURVE = W * np.exp(W * X) * (2 + W * X)


def _check(got, want, dtype):
    tol = 1e-5 if dtype == mg.float32 else 1e-12
    assert got.dtype == dtype
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=tol, atol=tol)


def test_the_expected_values_are_central_differences():
    h = 1e-6
    f = lambda x: x * np.exp(W * x)  # noqa: E731
    np.testing.assert_allclose((f(X + h) - f(X - h)) / (2 * h), SLOPE, rtol=1e-8)
    g = lambda x: np.exp(W * x) * (1 + W * x)  # noqa: E731
    np.testing.assert_allclose((g(X + h) - g(X - h)) / (2 * h), CURVE, rtol=1e-8)


CALLS = {  # each: the call, and its results' values
    "jacobian": (lambda x, v, w, cg, st: [AF.jacobian(_vector_f(w), x, create_graph=cg, strict=st)],
                 [np.diag(SLOPE)]),
    "hessian": (lambda x, v, w, cg, st: [AF.hessian(_scalar_f(w), x, create_graph=cg, strict=st)],
                [np.diag(CURVE)]),
    "vjp": (lambda x, v, w, cg, st: list(AF.vjp(_vector_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE, SLOPE * V]),
    "jvp": (lambda x, v, w, cg, st: list(AF.jvp(_vector_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE, SLOPE * V]),
    "hvp": (lambda x, v, w, cg, st: list(AF.hvp(_scalar_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE.sum(), CURVE * V]),
    "vhp": (lambda x, v, w, cg, st: list(AF.vhp(_scalar_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE.sum(), CURVE * V]),
}


@pytest.mark.parametrize("strict_mode", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", list(CALLS))
def test_a_function_without_jvp_goes_through_every_entry_point(name, device, dtype, create_graph, strict_mode):
    x, v, w = _setup(device, dtype)
    call, want = CALLS[name]
    results = call(x, v, w, create_graph, strict_mode)
    for r, expected in zip(results, want):
        _check(r, expected, dtype)
        assert r.requires_grad == create_graph
    if create_graph:
        sum(r.sum() for r in results).backward()  # the results are on a graph, as PyTorch's
