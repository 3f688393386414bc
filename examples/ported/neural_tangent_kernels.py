"""Neural tangent kernels (pytorch/tutorials ``intermediate_source/neural_tangent_kernels.py``): the
empirical NTK of a small CNN by ``torch.func`` -- the Jacobian contraction (``vmap(jacrev(...))`` and an
``einsum``) and the NTK-vector products (``vjp`` then ``jvp``, ``vmap`` over a basis) -- in its ``full``,
``trace`` and ``diagonal`` forms; ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/neural_tangent_kernels.py --double

Made small: the CNN has 4 channels (32) on 3x8x8 images (3x32x32), so ``fc`` takes 4*2*2 = 16 inputs
(21632) and gives 3 outputs (10); 3 training and 2 test images (20 and 5), drawn by NumPy (the
tutorial's ``torch.randn``).  Not in the tutorial: the kernel of the model with its weights as a
``Parameter`` that requires grad (not detached), to see that the results do not carry the graph, and
the NTK's symmetry on one set of images.  The lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.func import functional_call, jacrev, jvp, vjp, vmap


class CNN(nn.Module):
    def __init__(self, width=4, classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, (3, 3))
        self.conv2 = nn.Conv2d(width, width, (3, 3))
        self.conv3 = nn.Conv2d(width, width, (3, 3))
        self.fc = nn.Linear(width * 2 * 2, classes)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = self.conv3(x)
        x = x.flatten(1)
        x = self.fc(x)
        return x


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute='full'):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]

    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]

    # Compute J(x1) @ J(x2).T
    if compute == 'full':
        einsum_expr = 'Naf,Mbf->NMab'
    elif compute == 'trace':
        einsum_expr = 'Naf,Maf->NM'
    elif compute == 'diagonal':
        einsum_expr = 'Naf,Maf->NMa'
    else:
        assert False

    result = mg.stack([mg.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            # This computes ``vec @ J(x2).T``
            # `vec` is some unit vector (a single slice of the Identity matrix)
            vjps = vjp_fn(vec)
            # This computes ``J(X1) @ vjps``
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        # Here's our identity matrix
        basis = mg.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    # ``get_ntk(x1, x2)`` computes the NTK for a single data point x1, x2
    # Since the x1, x2 inputs to ``empirical_ntk_ntk_vps`` are batched,
    # we actually wish to compute the NTK between every pair of data points
    # between {x1} and {x2}. That's what the ``vmaps`` here do.
    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    if compute == 'full':
        return result
    if compute == 'trace':
        return mg.einsum('NMKK->NM', result)
    if compute == 'diagonal':
        return mg.einsum('NMKK->NMK', result)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='neural tangent kernels')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    x_train = mg.from_numpy(rng.standard_normal((3, 3, 8, 8))).to(dtype)
    x_test = mg.from_numpy(rng.standard_normal((2, 3, 8, 8))).to(dtype)

    net = CNN().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('net', net)
    net.eval()
    history = []

    # Detaching the parameters because we won't be calling Tensor.backward().
    params = {k: v.detach() for k, v in net.named_parameters()}

    def fnet_single(params, x):
        return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

    kernels = {}
    for compute in ('full', 'trace', 'diagonal'):
        result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, compute)
        result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test, compute)
        assert mg.allclose(result, result_from_ntk_vps, atol=1e-5)
        kernels[compute] = result
        history.extend(result.flatten().tolist())
        history.append((result - result_from_ntk_vps).abs().max().item())
        history.extend([float(result.requires_grad), float(result_from_ntk_vps.requires_grad), result.dim()])
    assert kernels['full'].shape == (3, 2, 3, 3)

    # Not in the tutorial: the parameters themselves (they require grad), and the kernel's symmetry
    live = dict(net.named_parameters())
    on_train = empirical_ntk_jacobian_contraction(fnet_single, live, x_train, x_train, 'trace')
    history.extend(on_train.flatten().tolist())
    history.append((on_train - on_train.T).abs().max().item())
    history.append(float(on_train.requires_grad))
    return history, net


if __name__ == '__main__':
    print(main()[0][:3])
