"""Jacobians, Hessians, hvp, vhp, and more (pytorch/tutorials ``intermediate_source/jacobians_hessians.py``):
the Jacobian of ``predict`` by rows of ``autograd.grad``, by ``vmap`` over ``vjp``'s function, by ``jacrev``
and ``jacfwd`` (in the input and, by ``argnums``, in the weights), the Hessian by ``hessian`` and by the
compositions of ``jacfwd`` and ``jacrev``, batch Jacobians and Hessians (``vmap``, and the sum trick),
and Hessian-vector products by ``jvp`` of ``grad`` and by ``vjp`` of ``grad``; ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/jacobians_hessians.py --double

Made small: D = 4 (16), batches of 3 (64); ``weight`` and ``bias`` are an ``nn.Linear``'s (the test
hook gives them), ``x`` and the batches are drawn by NumPy (the tutorial's ``torch.randn``); the
``timeit`` benchmarks of ``jacfwd`` against ``jacrev`` are left out.  Not in the tutorial: the
``torch.autograd.functional`` spellings of the same quantities, ``linearize``, and second derivatives
flowing back into ``weight`` (``create_graph`` through a transform).  The lines that differ are listed
in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import nn
from minigrad_ckpt.func import grad, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


def record(history, *values):
    """Each result's values, then its requires_grad (the results of the transforms carry no graph)."""
    for v in values:
        history.extend(v.flatten().tolist())
        history.append(float(v.requires_grad))


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='jacobians, hessians, hvp')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    D = 4
    layer = nn.Linear(D, D).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('layer', layer)
    weight, bias = layer.weight.detach(), layer.bias.detach()
    x = mg.from_numpy(rng.standard_normal(D)).to(dtype)
    history = []

    primal = x.clone().requires_grad_()
    cotangents = mg.eye(D, dtype=dtype)

    def compute_jac(xp):
        jacobian_rows = [mg.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in cotangents]
        return mg.stack(jacobian_rows)

    jacobian = compute_jac(primal)
    record(history, jacobian)

    _, vjp_fn = vjp(predict, weight, bias, x)
    ft_jacobian, = vmap(lambda v: vjp_fn(v)[2:])(cotangents)  # (the tutorial's vjp in x alone, by slicing)
    assert mg.allclose(ft_jacobian, jacobian)
    _, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
    ft_jacobian, = vmap(vjp_fn)(cotangents)
    record(history, ft_jacobian)

    ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
    record(history, ft_jacobian)
    ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
    record(history, ft_jac_weight, ft_jac_bias)
    jacfwd_jacobian = jacfwd(predict, argnums=2)(weight, bias, x)
    record(history, jacfwd_jacobian)
    fwd_weight, fwd_bias = jacfwd(predict, argnums=(0, 1))(weight, bias, x)
    assert mg.allclose(fwd_weight, ft_jac_weight) and mg.allclose(fwd_bias, ft_jac_bias)

    hess_api = hessian(predict, argnums=2)(weight, bias, x)
    hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
    hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
    record(history, hess_api, hess_fwdfwd, hess_revrev)

    batch_size = 3
    x = mg.from_numpy(rng.standard_normal((batch_size, D))).to(dtype)
    compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
    batch_jacobian0 = compute_batch_jacobian(weight, bias, x)

    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)

    batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
    assert mg.allclose(batch_jacobian0, batch_jacobian1)
    record(history, batch_jacobian0, batch_jacobian1)
    compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
    batch_hess = compute_batch_hessian(weight, bias, x)
    assert batch_hess.shape == (batch_size, D, D, D)
    record(history, batch_hess)
    batch = x

    def hvp(f, primals, tangents):
        return jvp(grad(f), primals, tangents)[1]

    def hvp_revrev(f, primals, tangents):
        _, vjp_fn = vjp(grad(f), *primals)
        return vjp_fn(*tangents)

    def f(x):
        return x.sin().sum()

    x = mg.from_numpy(rng.standard_normal(2048 // 512)).to(dtype)
    tangent = mg.from_numpy(rng.standard_normal(2048 // 512)).to(dtype)
    result = hvp(f, (x,), (tangent,))
    result_revrev, = hvp_revrev(f, (x,), (tangent,))
    assert mg.allclose(result, result_revrev)
    record(history, result, result_revrev)

    # Not in the tutorial: torch.autograd.functional's spellings, linearize, and create_graph
    AF = mg.autograd.functional
    record(history, AF.jacobian(lambda x: predict(weight, bias, x), batch[:2]),
           AF.hessian(lambda x: predict(weight, bias, x).sum(), batch[0]), AF.hvp(f, x, tangent)[1],
           AF.vhp(f, x, tangent)[1], AF.jvp(lambda x: x.sin(), x, tangent)[1], AF.vjp(lambda x: x.sin(), x, tangent)[1])
    out, jvp_fn = linearize(lambda x: predict(weight, bias, x), x)
    record(history, out, jvp_fn(tangent), jvp_fn(2 * tangent))
    live_weight = layer.weight
    hess = hessian(predict, argnums=2)(live_weight, bias, batch[0])
    record(history, hess)
    hess.pow(2).sum().backward()
    record(history, live_weight.grad)
    return history, layer


if __name__ == '__main__':
    print(main()[0][:3])
