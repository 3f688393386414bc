"""``vjp(..., strict=True)`` checks the pullback of all outputs together, as PyTorch's: an input that only
some of the outputs depend on is allowed, and only an input that no output reaches is refused ("The output
of the user-provided function is independent of input j").  Found by a strict/create_graph sweep of
``mg.autograd.functional`` against torch 2.13 after porting PyTorch's test/autograd/test_functional.py:
the engine checked output by output, so ``vjp(lambda a, b: (a * b.sum(), b ** 3), ...)`` raised where
PyTorch answers.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_an_input_some_outputs_reach_is_allowed(dtype, create_graph):
    a, b = mg.tensor([1.0, 2.0], dtype=dtype), mg.tensor([1.0, 3.0], dtype=dtype)
    v = (mg.ones(2, dtype=dtype), mg.ones(2, dtype=dtype))
    (o1, o2), (ga, gb) = AF.vjp(lambda x, y: (x * y.sum(), y ** 3), (a, b), v, strict=True,
                                create_graph=create_graph)
    np.testing.assert_allclose(ga.numpy() if not create_graph else ga.detach().numpy(), [4.0, 4.0])  # y.sum()
    np.testing.assert_allclose(gb.detach().numpy(), [6.0, 30.0])  # x.sum() + 3 y**2
    assert ga.requires_grad == gb.requires_grad == create_graph


def test_one_input_and_an_output_cut_off_from_it_is_allowed():
    x = mg.tensor([1.0, 2.0, 3.0])
    _, g = AF.vjp(lambda a: (a ** 2, a.detach().sum().requires_grad_() * 1.0), x, (mg.ones(3), mg.ones(())),
                  strict=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0, 6.0])


def test_an_input_no_output_reaches_is_refused():
    a, b = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 3.0])
    message = "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."
    with pytest.raises(RuntimeError, match=re.escape(message)):
        AF.vjp(lambda x, y: (x ** 2, x.sum() * 2), (a, b), (mg.ones(2), mg.ones(())), strict=True)
