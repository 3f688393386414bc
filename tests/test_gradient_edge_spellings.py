"""PyTorch's spellings around ``GradientEdge`` that its own tests use: ``t.output_nr`` (so that
``GradientEdge(t.grad_fn, t.output_nr)`` is the edge ``get_gradient_edge(t)`` gives), and
``mg.autograd.backward`` taking edges among its ``tensors`` and ``inputs``, as ``mg.autograd.grad``
does.  Both were missing: ``output_nr`` an AttributeError, an edge given to backward a TypeError
("output 0 is a Node, not a Tensor")."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import GradientEdge, get_gradient_edge


class _Halves(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:2].clone(), x[2:].clone()

    @staticmethod
    def backward(ctx, ga, gb):
        return mg.cat([ga, gb])


def _leaf():
    return mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=mg.float64, requires_grad=True)


def test_output_nr_numbers_a_custom_functions_outputs():
    a, b = _Halves.apply(_leaf())
    assert (a.output_nr, b.output_nr) == (0, 1)
    assert (_leaf().output_nr, (_leaf() * 2).output_nr) == (0, 0)


@pytest.mark.parametrize("make", [lambda x: x * 3.0, lambda x: _Halves.apply(x)[1]],
                         ids=["op output", "custom function output 1"])
def test_an_edge_built_from_output_nr_is_get_gradient_edge(make):
    t = make(_leaf())
    assert GradientEdge(t.grad_fn, t.output_nr) == get_gradient_edge(t)


def test_backward_takes_edges_as_its_tensors_and_inputs():
    x = _leaf()
    h = x * x
    out = (h * 3.0).sum()
    mg.autograd.backward(out, inputs=(get_gradient_edge(x),), retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 6.0 * np.array([1.0, 2.0, 3.0, 4.0]))
    x.grad = None
    edge = get_gradient_edge(h)  # backward from an edge: its gradient given, as from a tensor
    mg.autograd.backward((edge,), grad_tensors=(mg.ones(4, dtype=mg.float64),))
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.array([1.0, 2.0, 3.0, 4.0]))


def test_backward_from_an_edge_checks_the_gradients_shape():
    x = _leaf()
    edge = get_gradient_edge(x * x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        mg.autograd.backward(edge, grad_tensors=mg.ones(3, dtype=mg.float64))
