"""``mg.autograd``: PyTorch's ``torch.autograd`` path for the engine's functions. A ported WGAN-GP
(``torch.autograd.grad(..., create_graph=True, only_inputs=True)``) or a ported Hessian
(``torch.autograd.functional.hessian``) was an AttributeError: there was no ``mg.autograd``.
Expected values: the same code on torch 2.13 (float64), printed with ``.tolist()``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.functional as AF
from minigrad_ckpt.autograd import grad

X = [0.5, -1.0, 2.0]
W = [[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]]


def _x(**kw):
    return mg.tensor(X, dtype=mg.float64, **kw)


def _f(t):
    return (t ** 3 * t.sin()).sum()


def test_gradient_penalty_as_wgan_gp_writes_it():
    w = mg.tensor(W, dtype=mg.float64)
    xi = mg.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], dtype=mg.float64, requires_grad=True)
    out = mg.tanh(xi @ w.T).sum(dim=1, keepdim=True)
    g = mg.autograd.grad(outputs=out, inputs=xi, grad_outputs=mg.ones_like(out), create_graph=True,
                         retain_graph=True, only_inputs=True)[0]
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    gp.backward()
    assert gp.item() == pytest.approx(0.4967129487315977, rel=1e-12)
    np.testing.assert_allclose(xi.grad.numpy(), [
        [-0.038642119760120386, -0.02050087181948024, 0.12124503767078876],
        [-0.5648422106349362, 1.0875572801863809, -0.22186334000994873]], rtol=1e-10)


def test_materialize_grads_gives_zeros_for_an_unused_input():
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    z = mg.tensor([3.0], requires_grad=True)
    gy, gz = grad((y * 2).sum(), [y, z], materialize_grads=True)
    assert gy.tolist() == [2.0, 2.0] and gz.tolist() == [0.0]
    with pytest.raises(ValueError):
        grad((y * 2).sum(), [y, z], materialize_grads=True, allow_unused=False)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_materialized_zeros_require_grad_under_create_graph(device, dtype):
    # torch 2.13: torch.zeros_like(input, requires_grad=create_graph) -- a gradient penalty over the gradients
    # can backward even where none reached an input; the engine's zeros did not require grad (backward raised)
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    y = mg.tensor([1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    z = mg.tensor([3.0], dtype=dtype, device=device, requires_grad=True)
    gy, gz = grad((y * y).sum(), [y, z], materialize_grads=True, create_graph=True)
    assert gz.requires_grad and gz.grad_fn is None and gz.tolist() == [0.0] and gz.dtype == dtype
    (gz.pow(2).sum() + gy.pow(2).sum()).backward()
    assert y.grad.tolist() == [8.0, 16.0] and gz.grad.tolist() == [0.0] and z.grad is None  # gz: a new leaf
    (gz2,) = grad((y * y).sum(), [z], materialize_grads=True)
    assert not gz2.requires_grad  # without create_graph, as before


def test_functional_jacobian_and_hessian_with_pytorchs_calling_convention():
    np.testing.assert_allclose(AF.hessian(_f, _x()).numpy(), np.diag(
        [2.6947222663226427, 7.44916875924832, -6.350334369828692]), rtol=1e-12, atol=1e-15)
    J = AF.jacobian(lambda t: t.sin() * t[0], _x())
    np.testing.assert_allclose(J.numpy(), [[0.9182168195493894, 0.0, 0.0],
                                           [-0.8414709848078965, 0.2701511529340699, 0.0],
                                           [0.9092974268256817, 0.0, -0.2080734182735712]], rtol=1e-12, atol=1e-15)
    ja, jb = AF.jacobian(lambda a, b: a * b.exp(), (_x(), _x()))
    np.testing.assert_allclose(np.diag(ja.numpy()), [1.6487212707001282, 0.36787944117144233, 7.38905609893065])
    np.testing.assert_allclose(np.diag(jb.numpy()), [0.8243606353500641, -0.36787944117144233, 14.7781121978613])
    assert not J.requires_grad  # detached without create_graph, as PyTorch's


def test_functional_vjp_jvp_hvp():
    out, v = AF.vjp(_f, _x())
    assert out.item() == pytest.approx(8.175778591738876, rel=1e-12)
    np.testing.assert_allclose(v.numpy(), [0.46926697418944885, -3.064715260291829, 7.582394429531041], rtol=1e-12)
    out, t = AF.jvp(lambda t: t.sin() * t[0], _x(), mg.ones(3, dtype=mg.float64))
    np.testing.assert_allclose(out.numpy(), [0.2397127693021015, -0.42073549240394825, 0.45464871341284085])
    np.testing.assert_allclose(t.numpy(), [0.9182168195493894, -0.5713198318738266, 0.7012240085521105], rtol=1e-12)
    out, hv = AF.hvp(_f, _x(), mg.tensor([1.0, 0.0, -1.0], dtype=mg.float64))
    np.testing.assert_allclose(hv.numpy(), [2.6947222663226427, 0.0, 6.350334369828694], rtol=1e-12, atol=1e-15)


def test_the_grad_mode_and_anomaly_names_are_the_engines():
    assert mg.autograd.no_grad is mg.no_grad and mg.autograd.set_grad_enabled is mg.set_grad_enabled
    assert mg.autograd.detect_anomaly is mg.detect_anomaly  # (autograd.backward, as autograd.grad, also
    # takes a GradientEdge: tests/test_gradient_edge_spellings.py)
    x = _x(requires_grad=True)
    mg.autograd.backward([(x * x).sum()])
    assert x.grad.tolist() == [1.0, -2.0, 4.0]


# strict=True, vhp and a left-out v as torch.autograd.functional's (torch 2.13's words; before, strict was ignored:
# jacobian(lambda a: ones(3), x, strict=True) gave zeros where torch raises)
_X, _Y = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([1.0, 1.0, 1.0])
_AF = mg.autograd.functional


@pytest.mark.parametrize("call, message", [
    (lambda: _AF.jacobian(lambda a: mg.ones(3), _X, strict=True), "Output 0 of the user-provided function does not "
                                                                   "require gradients"),
    (lambda: _AF.jacobian(lambda a: a.argmax(), _X, strict=True), "does not require gradients"),
    (lambda: _AF.jacobian(lambda a, b: a * 2, (_X, _Y), strict=True), "Output 0 of the user-provided function is "
                                                                      "independent of input 1"),
    (lambda: _AF.jacobian(lambda a: a * 2, _X, strict=True, vectorize=True), "`strict=True` and `vectorized=True`"),
    (lambda: _AF.jacobian(lambda a: a * 2, _X, strict=True, strategy="forward-mode"), "strategy=\"forward-mode\""),
    (lambda: _AF.hessian(lambda a: (a * 2).sum(), _X, strict=True), "jacobian of the user-provided function with "
                                                                     "respect to input 0 is independent"),
    (lambda: _AF.hessian(lambda a, b: (a * a).sum() + (b * b).sum(), (_X, _Y), strict=True),
     "Output 0 of the user-provided function is independent of input 1"),
    (lambda: _AF.vjp(lambda a, b: a * 2, (_X, _Y), _Y, strict=True), "The output of the user-provided function is "
                                                                      "independent of input 1"),
    (lambda: _AF.jvp(lambda a: mg.ones(3), _X, _Y, strict=True), "does not require gradients"),
    (lambda: _AF.jvp(lambda a, b: a * 2, (_X, _Y), (_Y, _Y), strict=True), "independent of input 1"),
    (lambda: _AF.hvp(lambda a: (a * 2).sum(), _X, _Y, strict=True), "with respect to input 0 is independent"),
    (lambda: _AF.vhp(lambda a: (a * 2).sum(), _X, _Y, strict=True), "with respect to input 0 is independent"),
    (lambda: _AF.jvp(lambda a: a * 2, _X), "v can only be None if the input to the user-provided function is a "
                                           "single Tensor with a single element"),
    (lambda: _AF.hvp(lambda a: (a * a).sum(), _X), "v can only be None if the input"),
    (lambda: _AF.vhp(lambda a: a * a, _X, _Y), "function given to vhp should contain a single element"),
    (lambda: _AF.vjp(lambda a: a * a, _X), "v can only be None if the user-provided function returns a single"),
])
def test_strict_mode_and_v_refusals_are_torchs(call, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        call()


# torch 2.13: hessian(lambda a: a ** 3, x) -> RuntimeError (before: a (3, 3, 3) array, the Jacobian of the
# gradient of the sum); jacobian(f, x, strategy="fwd") / hessian(..., outer_jacobian_strategy="fwd") ->
# AssertionError (before: read as reverse mode)
def test_hessian_of_a_non_scalar_and_an_unknown_strategy_are_refused_as_torchs():
    with pytest.raises(RuntimeError, match="function given to hessian should contain a single element"):
        _AF.hessian(lambda a: a ** 3, _X)
    with pytest.raises(RuntimeError, match="function given to hessian should contain a single element"):
        _AF.hessian(lambda a: a ** 3, _X, strict=True)
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'):
        _AF.jacobian(lambda a: a * 2, _X, strategy="fwd")
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'):
        _AF.hessian(lambda a: (a ** 3).sum(), _X, outer_jacobian_strategy="forward")
    # a one-element output of any shape is a scalar to torch: hessian(lambda a: (a ** 3).sum().reshape(1, 1), x)
    h = _AF.hessian(lambda a: (a ** 3).sum().reshape(1, 1), _X)
    assert h.tolist() == [[6.0, 0.0, 0.0], [0.0, 12.0, 0.0], [0.0, 0.0, 18.0]]


def test_strict_mode_passes_what_torch_passes_and_vhp():
    np.testing.assert_array_equal(_AF.jacobian(lambda a: a * 2, _X, strict=True).numpy(), 2 * np.eye(3))
    np.testing.assert_array_equal(_AF.hessian(lambda a: (a * a).sum(), _X, strict=True).numpy(), 2 * np.eye(3))
    _, hv = _AF.hvp(lambda a, b: (a * a).sum() + (b * b).sum(), (_X, _Y), (_Y, _Y), strict=True)
    np.testing.assert_array_equal(hv[0].numpy(), [2.0, 2.0, 2.0])
    _, dy = _AF.jvp(lambda a: a * 2, mg.tensor([2.0]))   # a single one-element input: v = 1
    np.testing.assert_array_equal(dy.numpy(), [2.0])
    # torch.autograd.functional.vhp(lambda a, b: (a*a*b).sum(), (x, ones(3)), (ones(3), x)) with x = [1, 2, 3]
    value, (va, vb) = _AF.vhp(lambda a, b: (a * a * b).sum(), (_X, _Y), (_Y, _X))
    assert value.item() == 14.0
    np.testing.assert_array_equal(va.numpy(), [4.0, 10.0, 20.0])
    np.testing.assert_array_equal(vb.numpy(), [2.0, 4.0, 6.0])


def test_variable_returns_a_detached_tensor_as_pytorchs():
    # pytorch/tutorials' char_rnn_classification_tutorial.py: ``from torch.autograd import Variable`` was an
    # ImportError.  torch 2.13: Variable(t) shares t's memory without its history (requires_grad as asked,
    # a new leaf), every tensor is an instance, Variable() is an empty float tensor, data must be a tensor.
    from minigrad_ckpt.autograd import Variable

    x = mg.ones(3)
    v = Variable(x, requires_grad=True)
    assert type(v) is mg.Tensor and v.is_leaf and v.requires_grad and isinstance(x, Variable)
    v.data.add_(1)
    assert x.tolist() == [2.0, 2.0, 2.0]
    h = mg.ones(2, requires_grad=True) * 2
    detached = Variable(h)
    assert not detached.requires_grad and detached.grad_fn is None and detached.is_leaf
    hidden = Variable(mg.zeros(1, 4))
    assert hidden.shape == (1, 4) and not hidden.requires_grad
    assert Variable().shape == (0,) and Variable().dtype == mg.float32
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(x, volatile=True)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        Variable(mg.ones(2, dtype=mg.int64), requires_grad=True)
    assert mg.autograd.variable.Variable is Variable and not isinstance(3.0, Variable)
