"""An optimizer step and ``clip_grad_norm_`` on a gradient holding ``+-inf`` (a diverged update, common in
reinforcement learning) answer PyTorch's NaN and infinite parameters without NumPy's ``RuntimeWarning``
(``invalid value encountered in divide`` for Adam's ``inf / inf``, ``... in multiply`` for the clip's
``inf * 0``).  Found porting minimalRL (continuous PPO clips its gradients, every program steps Adam).

Expected values: torch 2.13 (CPU), one step from ``w = [1, 1, 1]`` with the gradient ``[inf, -inf, 1]``,
written in.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

INF, NAN = math.inf, math.nan
TORCH = {  # name: (factory, parameters after one step)
    "Adam": (lambda p: mg.optim.Adam(p, lr=0.1), [NAN, NAN, 0.9000000357627869]),
    "AdamW": (lambda p: mg.optim.AdamW(p, lr=0.1), [NAN, NAN, 0.8990000486373901]),
    "RMSprop": (lambda p: mg.optim.RMSprop(p, lr=0.1), [NAN, NAN, 5.960464477539063e-08]),
    "Adagrad": (lambda p: mg.optim.Adagrad(p, lr=0.1), [NAN, NAN, 0.8999999761581421]),
    "SGD": (lambda p: mg.optim.SGD(p, lr=0.1, momentum=0.9), [-INF, INF, 0.8999999761581421]),
    "NAdam": (lambda p: mg.optim.NAdam(p, lr=0.1), [NAN, NAN, 0.8943548202514648]),
    "Adamax": (lambda p: mg.optim.Adamax(p, lr=0.1), [NAN, NAN, 0.8999999761581421]),
    "RAdam": (lambda p: mg.optim.RAdam(p, lr=0.1), [-INF, INF, 0.8999999761581421]),
    "Adadelta": (lambda p: mg.optim.Adadelta(p, lr=0.1), [NAN, NAN, 0.9996837973594666]),
}


@pytest.mark.parametrize("name", list(TORCH))
def test_step_on_an_infinite_gradient_is_silent(name):
    factory, expected = TORCH[name]
    w = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    optimizer = factory([w])
    w.grad = mg.tensor([INF, -INF, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        optimizer.step()
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-6)


def test_clip_grad_norm_of_an_infinite_gradient_is_silent():
    # torch 2.13: total norm inf, the coefficient 0: the gradients [nan, 0.] and [0.]
    w = mg.tensor([1.0, 1.0], requires_grad=True)
    v = mg.tensor([2.0], requires_grad=True)
    w.grad, v.grad = mg.tensor([INF, 1.0]), mg.tensor([3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        total = mg.nn.utils.clip_grad_norm_([w, v], 1.0)
    assert total.item() == INF
    np.testing.assert_array_equal(w.grad.numpy(), [NAN, 0.0])
    np.testing.assert_array_equal(v.grad.numpy(), [0.0])
