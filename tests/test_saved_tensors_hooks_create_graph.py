"""Saved-tensor hooks with ``create_graph=True``: backward computes with what the unpack hook gives
back, as without ``create_graph`` (found by a differential probe against torch 2.13).

A leaf's saved value was taken from the leaf itself when the gradient was to be differentiated, so a
pack hook that changed values (``t * 2``) changed ``x.grad`` of a plain backward but not the gradient
``mg.autograd.grad(..., create_graph=True)`` returned: one program, two first derivatives.  PyTorch
hands the unpacked tensor the leaf's gradient accumulator: the values are the hook's, and the second
derivative flows to the leaf through them as through the leaf.  With ``sin`` and a pack hook doubling
its input, the first derivative is ``cos(2x)`` and the second ``-sin(2x)``, with or without a checkpoint.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import saved_tensors_hooks
from minigrad_ckpt.checkpoint import checkpoint

X = np.array([0.3, -1.2, 0.7, 2.0])


def _doubled(fn):
    with saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        return fn()


@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
def test_the_unpacked_value_of_a_leaf_is_used_and_differentiated(checkpointed):
    x = mg.tensor(X, requires_grad=True)
    if checkpointed:
        y = checkpoint(lambda a: _doubled(lambda: mg.sin(a).sum()), x, use_reentrant=False)
    else:
        y = _doubled(lambda: mg.sin(x).sum())
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.cos(2 * X), rtol=1e-12)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(2 * X), rtol=1e-12)


def test_create_graph_gives_the_first_derivative_of_a_plain_backward():
    x = mg.tensor(X, requires_grad=True)
    y = _doubled(lambda: (mg.sin(x) * mg.exp(x) + x * x).sum())
    (g,) = mg.autograd.grad(y, x, create_graph=True, retain_graph=True)
    y.backward()
    np.testing.assert_allclose(g.detach().numpy(), x.grad.numpy(), rtol=1e-12)


def test_identity_hooks_change_nothing():
    x = mg.tensor(X, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (mg.sin(x) * x).sum()
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), np.cos(X) * X + np.sin(X))
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(X) * X + 2 * np.cos(X), rtol=1e-12)


@pytest.mark.parametrize("pack", [lambda t: t * 1e-20, lambda t: t + 1e-3, lambda t: t.to(mg.float16)],
                         ids=["tiny", "shifted", "float16"])
def test_the_unpacked_values_are_the_hooks_bit_for_bit(pack):
    """The first derivative with ``create_graph`` is the plain backward's, bit for bit, whatever the hook
    gives back: ``leaf + (v - leaf)`` rounds (``1 + (1e-20 - 1)`` is 0, not 1e-20)."""
    grads = []
    for create_graph in (False, True):
        x = mg.tensor(X, requires_grad=True)
        with saved_tensors_hooks(pack, lambda t: t.to(mg.float64)):
            y = (x * x * 3.0).sum()
        (g,) = mg.autograd.grad(y, x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    assert np.abs(grads[0]).max() > 0
    np.testing.assert_array_equal(grads[1], grads[0])
