"""The documented choice for forward mode's outputs of functions linear in the primal (docs/from-pytorch.md):
``mg.func.jvp``'s tangent and ``jacfwd``'s Jacobian do not depend on the primal and are not on its graph,
even where it requires grad -- as torch 2.13's for ``-x``, ``x + 1``, ``sum``, indexing, ``reshape`` (its
backward then fails: "element 0 of tensors does not require grad"); torch's ``2 * x``, ``x / 2``, ``A @ x``
are connected with a zero derivative only because their forward formulas read the primal.  A nonlinear or
piecewise-linear function keeps the tangent on the graph, as torch's (``relu``, ``abs``: zeros)."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

LINEAR = {"2x": lambda x: 2 * x, "neg": lambda x: -x, "x+1": lambda x: x + 1, "sum": lambda x: x.sum(),
          "index": lambda x: x[0], "reshape": lambda x: x.reshape(2, 1), "x/2": lambda x: x / 2}
CONNECTED = {"relu": (mg.relu, [0.0, 0.0]), "abs": (mg.abs, [0.0, 0.0]), "square": (lambda x: x * x, [2.0, 2.0])}
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("name", list(LINEAR))
def test_a_linear_functions_tangent_is_off_the_primals_graph(name, device, dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    _, tangent = mg.func.jvp(LINEAR[name], (x,), (mg.ones_like(x),))
    assert not tangent.requires_grad
    assert not mg.func.jacfwd(LINEAR[name])(x).requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.autograd.grad(tangent.sum(), x)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("name", list(CONNECTED))
def test_a_nonlinear_functions_tangent_stays_on_it(name, device, dtype):
    f, want = CONNECTED[name]
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    _, tangent = mg.func.jvp(f, (x,), (mg.ones_like(x),))
    assert mg.autograd.grad(tangent.sum(), x)[0].tolist() == want
    assert mg.autograd.grad(mg.func.jacfwd(f)(x).sum(), x)[0].tolist() == want
