"""PyTorch's private softmax kernels: ``mg._softmax`` / ``mg._log_softmax`` and the backward kernels
``mg._softmax_backward_data`` / ``mg._log_softmax_backward_data``, which NVlabs/edm's
``AttentionOp.backward`` calls by hand. The expected numbers
are PyTorch 2.13's (CPU, float64)."""

import numpy as np
import pytest

import minigrad_ckpt as mg

OUT = [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]
GRAD = [[1.0, -2.0, 0.5], [0.3, 0.0, -1.5]]


def test_softmax_backward_data_is_pytorchs_along_each_dim():
    out, g = mg.tensor(OUT, dtype=mg.float64), mg.tensor(GRAD, dtype=mg.float64)
    np.testing.assert_allclose(mg._softmax_backward_data(g, out, 1, mg.float64).numpy(),
                               [[0.095, -0.41, 0.315], [0.2625, 0.05625, -0.31875]], rtol=0, atol=1e-15)
    by_keyword = mg._softmax_backward_data(grad_output=g, output=out, dim=0, input_dtype=mg.float64)
    np.testing.assert_allclose(by_keyword.numpy(),
                               [[0.075, -0.32, 0.3675], [0.025, 0.1, -0.36875]], rtol=0, atol=1e-15)


def test_log_softmax_backward_data_is_pytorchs():
    out, g = mg.tensor(OUT, dtype=mg.float64).log(), mg.tensor(GRAD, dtype=mg.float64)
    np.testing.assert_allclose(mg._log_softmax_backward_data(g, out, -1, mg.float64).numpy(),
                               [[1.05, -1.9, 0.85], [0.9, 0.3, -1.2]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("forward, kernel", [(mg.softmax, mg._softmax_backward_data),
                                             (mg.log_softmax, mg._log_softmax_backward_data)])
def test_the_kernels_are_the_gradient_autograd_gives(forward, kernel):
    rs = np.random.RandomState(0)
    x = mg.tensor(rs.randn(2, 3, 4), requires_grad=True)
    g = mg.tensor(rs.randn(2, 3, 4))
    out = forward(x, 1)
    out.backward(g)
    np.testing.assert_allclose(kernel(g, out.detach(), 1, mg.float64).numpy(), x.grad.numpy(), atol=1e-14)


def test_the_result_is_differentiable_again():
    out = mg.tensor(OUT, dtype=mg.float64, requires_grad=True)
    g = mg.tensor(GRAD, dtype=mg.float64, requires_grad=True)
    mg._softmax_backward_data(g, out, 1, mg.float64).pow(2).sum().backward()
    assert out.grad is not None and g.grad is not None


def test_dtype_follows_the_gradient_unless_the_input_was_narrower():
    out, g = mg.tensor(OUT), mg.tensor(GRAD)
    assert mg._softmax_backward_data(g, out, 1, mg.float64).dtype == mg.float32  # PyTorch's CPU answer
    assert mg._softmax_backward_data(g, out, 1, mg.float16).dtype == mg.float16  # PyTorch's CUDA answer


def test_mismatched_arguments_are_refused_as_pytorch_refuses_them():
    out, g = mg.tensor(OUT, dtype=mg.float64), mg.tensor(GRAD, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        mg._softmax_backward_data(g, out.float(), 1, mg.float64)
    with pytest.raises(RuntimeError, match=r"same size .* \[2, 3\] does not equal \[1, 3\]"):
        mg._log_softmax_backward_data(g, out[:1], 1, mg.float64)
    with pytest.raises(IndexError, match="Dimension out of range"):
        mg._softmax_backward_data(g, out, 2, mg.float64)


def test_edm_attention_op_runs_unchanged():
    """NVlabs/edm ``training/networks.py`` ``AttentionOp``, verbatim but for ``torch`` -> ``mg``."""
    class AttentionOp(mg.autograd.Function):
        @staticmethod
        def forward(ctx, q, k):
            w = mg.einsum('ncq,nck->nqk', q.to(mg.float32),
                          (k / np.sqrt(k.shape[1])).to(mg.float32)).softmax(dim=2).to(q.dtype)
            ctx.save_for_backward(q, k, w)
            return w

        @staticmethod
        def backward(ctx, dw):
            q, k, w = ctx.saved_tensors
            db = mg._softmax_backward_data(grad_output=dw.to(mg.float32), output=w.to(mg.float32), dim=2,
                                           input_dtype=mg.float32)
            dq = mg.einsum('nck,nqk->ncq', k.to(mg.float32), db).to(q.dtype) / np.sqrt(k.shape[1])
            dk = mg.einsum('ncq,nqk->nck', q.to(mg.float32), db).to(k.dtype) / np.sqrt(k.shape[1])
            return dq, dk

    rs = np.random.RandomState(1)
    q = mg.tensor(rs.randn(2, 4, 5).astype(np.float32), requires_grad=True)
    k = mg.tensor(rs.randn(2, 4, 5).astype(np.float32), requires_grad=True)
    g = mg.tensor(rs.randn(2, 5, 5).astype(np.float32))
    AttentionOp.apply(q, k).backward(g)
    q2, k2 = q.detach().requires_grad_(), k.detach().requires_grad_()
    mg.einsum('ncq,nck->nqk', q2, k2 / np.sqrt(4)).softmax(dim=2).backward(g)
    np.testing.assert_allclose(q.grad.numpy(), q2.grad.numpy(), atol=1e-6)
    np.testing.assert_allclose(k.grad.numpy(), k2.grad.numpy(), atol=1e-6)


@pytest.mark.parametrize("kernel, public", [(mg._softmax, mg.softmax), (mg._log_softmax, mg.log_softmax)])
def test_forward_kernels_are_the_public_functions(kernel, public):
    x = mg.tensor(np.random.RandomState(2).randn(2, 3, 4))
    np.testing.assert_array_equal(kernel(x, 1, False).numpy(), public(x, 1).numpy())
    assert kernel(x.half(), -1, False).dtype == mg.float16


@pytest.mark.parametrize("kernel", [mg._softmax, mg._log_softmax])
def test_half_to_float_computes_a_half_input_in_float32_and_refuses_others(kernel):
    x = mg.tensor([[0.5, -1.0, 2.0]]).half()
    out = kernel(x, 1, True)
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), kernel(x.float(), 1, False).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="conversion is supported for Half type only"):
        kernel(x.float(), 1, True)
