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
    assert leaf.name() == "torch::autograd::AccumulateGrad" and leaf.variable is a and leaf.next_functions == ()
    z = a.exp() + a
    (exp, _), (acc, _) = z.grad_fn.next_functions
    assert exp.name() == "ExpBackward0" and acc.variable is a
    assert exp.next_functions[0][0].variable is a


def test_a_number_on_the_left_of_add_and_mul_is_the_second_operand_as_in_pytorch():
    # The walk of pytorch/tutorials' autogradyt_tutorial.py; torch 2.13: AddBackward0 ->
    # ((MulBackward0, 0), (None, 0)) -> ((SinBackward0, 0), (None, 0)) -> ((AccumulateGrad, 0),) -> ().
    # The engine recorded ``2 * b`` as mul(2, b): next_functions[0][0] was None (an AttributeError).
    a = mg.linspace(0.0, 6.0, steps=25, requires_grad=True)
    b = mg.sin(a)
    d = 2 * b + 1
    mul = d.grad_fn.next_functions[0][0]
    sin = mul.next_functions[0][0]
    acc = sin.next_functions[0][0]
    assert [mul.name(), sin.name(), acc.name()] == ["MulBackward0", "SinBackward0",
                                                  "torch::autograd::AccumulateGrad"]
    assert mul.next_functions[1] == (None, 0) and acc.variable is a and acc.next_functions == ()
    for twice in (2 + b, 2.0 * b, True + b):
        assert twice.grad_fn.next_functions[0][0] is b.grad_fn and twice.grad_fn.next_functions[1] == (None, 0)
    d.sum().backward()
    assert mg.allclose(a.grad, 2 * mg.cos(a).detach()) and a.grad.dtype == mg.float32
    i = mg.tensor([1, 2], dtype=mg.int32)
    assert (True + i).dtype == mg.int32 and (2.5 * i).dtype == mg.float32 and (2.5 * i).tolist() == [2.5, 5.0]


def test_a_leafs_accumulate_grad_node_is_one_object_with_metadata():
    """PyTorch's graph walks (a ``seen`` set over ``next_functions``; ``node.metadata[...] = ...`` on
    every node) reach a leaf's AccumulateGrad: it is one object however it is reached, and it has
    ``metadata`` as every node has. The engine made a new one at each read, without ``metadata``."""
    x = mg.ones(2, requires_grad=True)
    a, b = (x * 2).sum(), (x * 3).sum()
    leaf_of_a = a.grad_fn.next_functions[0][0].next_functions[0][0]
    leaf_of_b = b.grad_fn.next_functions[0][0].next_functions[0][0]
    assert leaf_of_a is leaf_of_b
    assert leaf_of_a.variable is x
    leaf_of_a.metadata["name"] = "x"
    del leaf_of_a, leaf_of_b
    assert a.grad_fn.next_functions[0][0].next_functions[0][0].metadata == {"name": "x"}
    assert mg.autograd.graph.get_gradient_edge(x).node.metadata == {"name": "x"}
