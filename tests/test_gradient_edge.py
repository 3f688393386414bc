"""``mg.autograd.graph.get_gradient_edge`` / ``GradientEdge`` and ``mg.autograd.grad`` taking edges as inputs and
outputs, against torch 2.13 (its answers beside each; torch is not imported here).  The engine had neither."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import GradientEdge, get_gradient_edge

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_an_edge_is_the_gradient_of_the_value_before_an_in_place_write(device, dtype):
    # torch 2.13: e = get_gradient_edge(y); y.mul_(3); grad((y * y).sum(), e) is ([36., 72.],) -- the gradient of
    # y's old value -- and e is (MulBackward0, 0)
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    y = x * 2
    e = get_gradient_edge(y)
    assert isinstance(e, GradientEdge) and e.node is y.grad_fn and e.output_nr == 0
    y.mul_(3)
    (g,) = mg.autograd.grad((y * y).sum(), e, retain_graph=True)
    assert g.tolist() == [36.0, 72.0] and g.dtype == dtype and g.device == x.device
    gy, gx = mg.autograd.grad((y * y).sum(), [e, x])
    assert gy.tolist() == [36.0, 72.0] and gx.tolist() == [72.0, 144.0]


def test_a_leafs_edge_an_edge_as_output_and_create_graph():
    # torch 2.13: a leaf's edge is its AccumulateGrad (grad gives [2., 4.] twice for [e, x]); an edge among the
    # outputs takes grad_outputs ([2., 2.]); with create_graph the gradient of an edge differentiates again
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    e = get_gradient_edge(x)
    assert e.node.name() == "torch::autograd::AccumulateGrad" and e.node.variable is x
    assert [g.tolist() for g in mg.autograd.grad((x * x).sum(), [e, x])] == [[2.0, 4.0], [2.0, 4.0]]
    y = x * 2
    (g,) = mg.autograd.grad(get_gradient_edge(y), x, grad_outputs=mg.ones(2))
    assert g.tolist() == [2.0, 2.0]
    y = x * 2
    (g,) = mg.autograd.grad((y ** 2).sum(), get_gradient_edge(y), create_graph=True)
    assert g.requires_grad and mg.autograd.grad(g.sum(), x)[0].tolist() == [4.0, 4.0]
    (b,) = mg.autograd.grad((y ** 2).sum(), get_gradient_edge(y), mg.ones(1), is_grads_batched=True)
    assert b.tolist() == [[4.0, 8.0]]


def test_refusals():
    # torch 2.13's words: a tensor that does not require grad has no edge; materialize_grads refuses an edge
    with pytest.raises(RuntimeError, match="^It is not possible to get the gradient edge for a Tensor that does not "
                                           "require gradients$"):
        get_gradient_edge(mg.tensor([1.0]))
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^materialize_grads cannot be used when the given input is a GradientEdge$"):
        mg.autograd.grad((x * 2).sum(), [get_gradient_edge(w)], allow_unused=True, materialize_grads=True)

    class Two(mg.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2, v * 3

        @staticmethod
        def backward(ctx, a, b):
            return a * 2 + b * 3

    a, b = Two.apply(x)
    assert get_gradient_edge(b).output_nr == 1 and get_gradient_edge(a).node is b.grad_fn  # torch's (node, 1)
    with pytest.raises(NotImplementedError, match="several outputs"):  # (torch answers [3., 6.]: not offered here)
        mg.autograd.grad((a * b).sum(), get_gradient_edge(a))


def test_materialize_grads_refuses_only_an_unused_edge():
    # torch 2.13: an edge that the outputs reach is differentiated as usual, and a plain tensor input
    # beside it that they do not reach gets its zeros; only an unused edge (no tensor to shape zeros
    # after) is refused
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0], requires_grad=True)
    h = x * 2
    edge = get_gradient_edge(h)
    (g,) = mg.autograd.grad((h * 3).sum(), edge, materialize_grads=True)
    assert g.tolist() == [3.0, 3.0]
    gh, gy = mg.autograd.grad((h * 3).sum(), (edge, y), materialize_grads=True)
    assert gh.tolist() == [3.0, 3.0] and gy.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="^materialize_grads cannot be used when the given input is a GradientEdge$"):
        mg.autograd.grad((y * 3).sum(), (edge, y), materialize_grads=True)
