"""``backward()`` inside a function that ``mg.func.grad`` (vjp, jvp, jacrev, jacfwd, hessian)
transforms is refused with PyTorch's error: torch 2.13 raises "backward() called inside a
functorch transform. This is not supported, ..." -- the transform differentiates the function
itself.  It ran here, accumulating into the closed-over tensors' ``.grad`` on every call.
``mg.autograd.functional`` is not such a transform in PyTorch: a function it differentiates may
call ``backward()`` (unless it runs inside one of the transforms itself).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
MESSAGE = r"^backward\(\) called inside a functorch transform\. This is not supported"


def _setup():
    w = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    x = mg.tensor([1.0, 2.0], dtype=mg.float64)

    def f(a):
        (w * 3).sum().backward()
        return (a * a).sum()

    return w, x, f


TRANSFORMS = {
    "grad": lambda f, x: mg.func.grad(f)(x),
    "vjp": lambda f, x: mg.func.vjp(f, x),
    "jvp": lambda f, x: mg.func.jvp(f, (x,), (x,)),
    "jacrev": lambda f, x: mg.func.jacrev(f)(x),
    "jacfwd": lambda f, x: mg.func.jacfwd(f)(x),
    "hessian": lambda f, x: mg.func.hessian(f)(x),
    "checkpointed inside grad": lambda f, x: mg.func.grad(
        lambda a: mg.checkpoint.checkpoint(f, a, use_reentrant=False))(x),
    "autograd.functional inside grad": lambda f, x: mg.func.grad(lambda a: AF.jacobian(f, a).sum())(x),
}
ALLOWED = {
    "jacobian": lambda f, x: AF.jacobian(f, x),
    "jacobian forward-mode": lambda f, x: AF.jacobian(f, x, vectorize=True, strategy="forward-mode"),
    "hessian": lambda f, x: AF.hessian(f, x),
    "vjp": lambda f, x: AF.vjp(f, x),
    "jvp": lambda f, x: AF.jvp(f, x, x),
    "hvp": lambda f, x: AF.hvp(f, x, x),
    "vhp": lambda f, x: AF.vhp(f, x, x),
}


@pytest.mark.parametrize("run", list(TRANSFORMS.values()), ids=list(TRANSFORMS))
def test_backward_inside_a_transform_is_refused(run):
    w, x, f = _setup()
    with pytest.raises(RuntimeError, match=MESSAGE):
        run(f, x)
    assert w.grad is None
    (w * 3).sum().backward()  # outside again: allowed
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("run", list(ALLOWED.values()), ids=list(ALLOWED))
def test_autograd_functional_lets_the_function_call_backward(run):
    w, x, f = _setup()
    run(f, x)
    assert w.grad is not None and w.grad.numpy()[0] > 0  # torch 2.13: [3, 3] (one call of f)


def test_grad_inside_a_transform_is_still_allowed():
    w = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)

    def f(a):
        (g,) = mg.autograd.grad((w * a).sum(), w, create_graph=True)
        return (g * a).sum()

    np.testing.assert_array_equal(mg.func.grad(f)(mg.tensor([1.0, 2.0], dtype=mg.float64)).numpy(), [2.0, 4.0])
