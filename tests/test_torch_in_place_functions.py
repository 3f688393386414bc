"""PyTorch's top-level in-place functions: ``torch.sin_(b)``, ``torch.clamp_(x, 0, 1)``,
``torch.zero_(x)``, ... -- each ``input.<name>(...)``.  pytorch/tutorials' tensors_deeper_tutorial.py
writes ``torch.sin_(b)``: ``mg.sin_`` was an AttributeError (only the nn ones, ``mg.relu_`` and
friends, were there).  torch 2.13: the input itself comes back, changed; a leaf that requires grad is
refused; ``torch.sin_(3.0)`` is a TypeError naming the argument.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.functional.torch_functions import TORCH_IN_PLACE

# the functions of one tensor argument: each checked against Tensor's out-of-place method of its name
UNARY = [n for n in TORCH_IN_PLACE if n not in ("addmv_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "fill_",
                                                "index_put_", "ldexp_", "xlogy_", "detach_", "zero_",
                                                "conj_physical_", "gcd_", "lcm_")]


def test_the_tensors_tutorial_sin_():
    b = mg.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    assert mg.sin_(b) is b
    np.testing.assert_allclose(b.numpy(), [0.0, 0.70710677, 1.0, 0.70710677], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_each_writes_its_methods_answer_into_its_input(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    for name in UNARY:
        x = mg.tensor([0.2, 0.45, 0.7], dtype=dtype, device=device)
        want = getattr(x, name[:-1])().numpy().copy()
        assert getattr(mg, name)(x) is x, name
        np.testing.assert_array_equal(x.numpy(), want, err_msg=name)
    x = mg.tensor([-2.0, 0.5, 3.0], dtype=dtype, device=device)
    assert mg.clamp_(x, min=0.0, max=1.0) is x and x.tolist() == [0.0, 0.5, 1.0]
    assert mg.clamp_min_(x, 0.25).tolist() == [0.25, 0.5, 1.0] and mg.clamp_max_(x, 0.75).tolist() == [0.25, 0.5, 0.75]
    assert mg.fill_(x, 3).tolist() == [3.0, 3.0, 3.0] and mg.zero_(x) is x and x.tolist() == [0.0, 0.0, 0.0]
    m = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, device=device)
    v = mg.tensor([1.0, -1.0], dtype=dtype, device=device)
    y = mg.ones(2, dtype=dtype, device=device)
    assert mg.addmv_(y, m, v, beta=2).tolist() == [1.0, 1.0]


def test_the_in_place_rules_hold():
    w = mg.tensor([0.5, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        mg.exp_(w)
    h = w * 2
    assert mg.tanh_(h) is h  # recorded: the gradient is tanh's
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * (1 - np.tanh(2 * np.array([0.5, -1.0], np.float32)) ** 2),
                               rtol=1e-6)
    with pytest.raises(TypeError, match=r"sin_\(\): argument 'input' \(position 1\) must be Tensor, not float"):
        mg.sin_(3.0)
    assert mg.sin_(input=mg.zeros(2)).tolist() == [0.0, 0.0]
