"""A second backward through a graph whose nodes saved nothing runs, as PyTorch's: torch 2.13
frees the *saved* tensors after a backward, so ``y = (x + 1).sum(); y.backward(); y.backward()``
gives ``x.grad`` 2, and only a node that saved a value (``x.exp()``, ``x * x``, ``x * 2``, whose
``2`` PyTorch saves as a tensor) raises "backward through the graph a second time".  The engine
marked every node freed, so the second backward raised for every graph.

Each case: the function, and the gradient of two backward passes as torch 2.13 gives it (None:
the second pass raises).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

F = mg.nn.functional

CASES = {
    "add a number": (lambda x: (x + 1).sum(), [2.0, 2.0]),
    "subtract from a number": (lambda x: (1 - x).sum(), [-2.0, -2.0]),
    "neg": (lambda x: (-x).sum(), [-2.0, -2.0]),
    "reshape": (lambda x: x.reshape(2, 1).sum(), [2.0, 2.0]),
    "index": (lambda x: x[0] + x[1], [2.0, 2.0]),
    "expand": (lambda x: x.unsqueeze(0).expand(3, 2).sum(), [6.0, 6.0]),
    "mean": (lambda x: x.mean(), [1.0, 1.0]),
    "cat": (lambda x: mg.cat([x, x]).sum(), [4.0, 4.0]),
    "flip and subtract": (lambda x: (x - x.flip(0)).sum(), [0.0, 0.0]),
    "pad": (lambda x: F.pad(x, (1, 1)).sum(), [2.0, 2.0]),
    "cumsum": (lambda x: x.cumsum(0).sum(), [4.0, 2.0]),
    "split": (lambda x: x.split(1)[0].sum(), [2.0, 0.0]),
    "add a constant tensor": (lambda x: (x + mg.ones(2, dtype=x.dtype, device=x.device)).sum(), [2.0, 2.0]),
    "exp": (lambda x: x.exp().sum(), None),
    "square": (lambda x: (x * x).sum(), None),
    "times a number": (lambda x: (x * 2).sum(), None),
    "divide by a number": (lambda x: (x / 2).sum(), None),
    "times a constant tensor": (lambda x: (x * mg.ones(2, dtype=x.dtype, device=x.device)).sum(), None),
    "where": (lambda x: mg.where(x > 1, x, -x).sum(), None),
    "index by a tensor": (lambda x: x[mg.tensor([0, 1, 1], device=x.device)].sum(), None),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_second_backward_as_pytorch(name, dtype, device):
    fn, want = CASES[name]
    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = fn(x)
    y.backward()
    if want is None:
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
        return
    y.backward()
    assert x.grad.dtype == dtype
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if CASES[n][1] is not None])
def test_grad_twice_through_a_graph_that_saved_nothing(name):
    fn, want = CASES[name]
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    y = fn(x)
    first = mg.autograd.grad(y, x)[0]
    second = mg.autograd.grad(y, x)[0]
    np.testing.assert_array_equal(first.numpy(), np.asarray(want) / 2)
    np.testing.assert_array_equal(second.numpy(), first.numpy())


def test_a_graph_that_saved_something_upstream_still_refuses():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    y = (x.exp() + 1).reshape(2, 1).sum()  # Add and Reshape saved nothing; Exp its output
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_backward_twice_says_it_in_pytorchs_words():
    # PyTorch's tests match "Specify retain_graph=True"; the backward pass said it in words of its own
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True if you need to backward through the graph a "
                                           "second time or if you need to access saved tensors after calling backward"):
        y.backward()
