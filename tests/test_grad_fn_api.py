"""PyTorch's view of a tensor's history: ``grad_fn.name()`` and ``grad_fn.next_functions``.

Tutorials walk the graph this way (``loss.grad_fn.next_functions[0][0]``); both were
AttributeErrors.  torch 2.13, for the program below: ``SumBackward0`` ->
``((MulBackward0, 0),)`` -> ``((AccumulateGrad, 0), (None, 0))`` with ``.variable is a``.
"""

from __future__ import annotations

import minigrad_ckpt as mg


def test_walking_the_graph_as_in_pytorch():
    a = mg.randn(3, requires_grad=True)
    b = mg.randn(3)
    y = (a * b).sum()
    assert y.grad_fn.name() == "SumBackward0"
    ((mul, zero),) = y.grad_fn.next_functions
    assert zero == 0 and mul.name() == "MulBackward0"
    (leaf, _), (constant, _) = mul.next_functions
    assert constant is None
    assert leaf.name() == "AccumulateGrad" and leaf.variable is a and leaf.next_functions == ()
    z = a.exp() + a
    (exp, _), (acc, _) = z.grad_fn.next_functions
    assert exp.name() == "ExpBackward0" and acc.variable is a
    assert exp.next_functions[0][0].variable is a
