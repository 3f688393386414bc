"""A leaf's new ``.grad`` is laid out as PyTorch's ``AccumulateGrad`` lays it out (its "layout contract"): with
the leaf's strides where the leaf fills its memory densely, row-major otherwise -- whatever layout the last
op's backward produced.  Before, ``.grad`` kept that op's layout: a channels-last conv weight (``model.to(
memory_format=channels_last)``, the performance guide's recipe) got a row-major gradient, a transposed
leaf a row-major one, and a row-major weight used through ``w.t()`` a transposed one (``w.grad.is_contiguous()``
False where PyTorch says True).  Values never changed; the strides below are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

CASES = ["cpu-float64", "cpu-float32", "strict-float64"]


def _setup(case):
    device, dtype = case.split("-")
    return device, getattr(mg, dtype)


def _leaf(values, device, dtype):
    return mg.tensor(values, dtype=dtype, device=device)


@pytest.mark.parametrize("case", CASES)
def test_a_channels_last_conv_weight_gets_a_channels_last_gradient(case):
    device, dtype = _setup(case)
    conv = mg.nn.Conv2d(4, 3, 3, padding=1).to(device=device, dtype=dtype).to(memory_format=mg.channels_last)
    x = mg.randn(2, 4, 5, 5, dtype=dtype, device=device).to(memory_format=mg.channels_last).requires_grad_()
    conv(x).square().sum().backward()
    assert conv.weight.stride() == conv.weight.grad.stride() == (36, 1, 12, 4)
    assert conv.weight.grad.is_contiguous(memory_format=mg.channels_last)
    assert x.grad.stride() == (100, 1, 20, 4)  # the input too, a leaf laid out channels last
    row_major = mg.nn.Conv2d(4, 3, 3, padding=1).to(device=device, dtype=dtype)
    row_major.load_state_dict(conv.state_dict())
    row_major(x.detach().contiguous()).square().sum().backward()
    np.testing.assert_array_equal(conv.weight.grad.numpy(), row_major.weight.grad.numpy())
    assert row_major.weight.grad.stride() == (36, 9, 3, 1)


@pytest.mark.parametrize("case", CASES)
def test_a_row_major_leaf_read_through_a_transpose_gets_a_row_major_gradient(case):
    device, dtype = _setup(case)
    w = _leaf(np.arange(12.0).reshape(3, 4), device, dtype).requires_grad_()
    (w.t() * _leaf(np.arange(12.0).reshape(4, 3), device, dtype)).sum().backward()
    assert w.grad.stride() == (4, 1) and w.grad.is_contiguous()
    np.testing.assert_array_equal(w.grad.numpy(), np.arange(12.0).reshape(4, 3).T)
    a = _leaf(np.ones((3, 4)), device, dtype).requires_grad_()
    (a.t() @ _leaf(np.ones((3, 2)), device, dtype)).sum().backward()
    assert a.grad.stride() == (4, 1)


@pytest.mark.parametrize("case", CASES)
def test_a_transposed_leaf_gets_a_transposed_gradient_and_a_strided_one_a_row_major(case):
    device, dtype = _setup(case)
    t = _leaf(np.arange(12.0).reshape(4, 3), device, dtype).t().detach().requires_grad_()
    (t * 2).sum().backward()
    assert t.stride() == t.grad.stride() == (1, 3)
    strided = _leaf(np.arange(24.0).reshape(4, 6), device, dtype)[:, ::2].detach().requires_grad_()
    (strided.t() * 1).sum().backward()
    assert strided.grad.stride() == (3, 1)
    expanded = _leaf(np.arange(3.0).reshape(3, 1), device, dtype).expand(3, 4).detach().requires_grad_()
    (expanded.t() * 1).sum().backward()
    assert expanded.grad.stride() == (4, 1)


def test_a_second_backward_adds_into_the_same_gradient_in_its_layout():
    w = mg.randn(3, 4, dtype=mg.float64).requires_grad_()
    (w * 1).sum().backward()
    first = w.grad
    (w.t() * 2).sum().backward()
    assert w.grad is first and first.stride() == (4, 1)
    np.testing.assert_array_equal(first.numpy(), np.full((3, 4), 3.0))


def test_inside_a_checkpoint_the_gradient_keeps_the_contract():
    w = mg.randn(3, 4, dtype=mg.float64).requires_grad_()
    x = mg.randn(3, 2, dtype=mg.float64)
    out = mg.checkpoint.checkpoint(lambda a: (w.t() @ a).tanh(), x, use_reentrant=False)
    out.sum().backward()
    assert w.grad.stride() == (4, 1)
    expected = mg.func.grad(lambda v: (v.t() @ x).tanh().sum())(w.detach())
    np.testing.assert_allclose(w.grad.numpy(), expected.numpy(), rtol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_under_create_graph_the_new_gradient_keeps_the_contract_and_stays_differentiable(case):
    # torch 2.13 (its AccumulateGrad copies the gradient by clone_obey_contract under create_graph):
    # a channels-last weight's .grad (27, 1, 9, 3), a transposed leaf's (1, 5); both with a grad_fn.
    # Before, create_graph kept the last op's layout: row-major (27, 9, 3, 1) and (5, 1)
    device, dtype = _setup(case)
    rng = np.random.default_rng(0)
    w = _leaf(rng.standard_normal((4, 3, 3, 3)), device, dtype).to(memory_format=mg.channels_last).requires_grad_()
    x = _leaf(rng.standard_normal((2, 3, 5, 5)), device, dtype)
    mg.nn.functional.conv2d(x, w).square().sum().backward(create_graph=True)
    assert w.grad.stride() == (27, 1, 9, 3) and w.grad.requires_grad
    (second,) = mg.autograd.grad(w.grad.square().sum(), w)
    plain = w.detach().contiguous().requires_grad_()
    (g,) = mg.autograd.grad(mg.nn.functional.conv2d(x, plain).square().sum(), plain, create_graph=True)
    np.testing.assert_allclose(w.grad.detach().numpy(), g.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(second.numpy(), mg.autograd.grad(g.square().sum(), plain)[0].numpy(), rtol=1e-6)
    t = _leaf(rng.standard_normal((5, 4)), device, dtype).t().detach().requires_grad_()
    (t.sin() * t).sum().backward(create_graph=True)
    assert t.grad.stride() == (1, 4) and t.grad.requires_grad
    (t.sin() * t).sum().backward(create_graph=True)  # a second one adds, out of place
    assert t.grad.stride() == (1, 4)
