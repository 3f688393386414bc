"""The programs of PyTorch's function-transform and custom-Function tutorials, written once for both engines.

Each program takes ``lib`` -- ``torch`` or ``minigrad_ckpt`` (the port is the rename: ``lib.func``,
``lib.autograd``, ``lib.nn``) -- a device and a dtype name, and returns ``{name: numpy array}``.
``make_torch_func_tutorials.py`` runs them on torch 2.13 and stores the answers;
``tests/test_func_tutorials.py`` runs them on the engine (the CPU and the strict devices) and compares.
Weights and inputs come from NumPy seeds, never from either engine's generator.

The tutorials (their shapes shrunk): per-sample gradients, model ensembling, Jacobians/Hessians/hvp,
neural tangent kernels, forward-mode AD, double backward with custom Functions, fusing convolution and
batch norm with a custom Function, and extending torch.func with autograd.Function.
"""

from __future__ import annotations

import copy
import functools
import math

import numpy as np


class Setup:
    """What a program needs of its engine: tensors from seeds, weights from seeds, arrays back."""

    def __init__(self, lib, device: str, dtype: str):
        self.lib, self.device, self.np_dtype = lib, device, np.dtype(dtype)
        self.dtype = getattr(lib, dtype)
        self.F = lib.nn.functional

    def randn(self, *shape: int, seed: int, scale: float = 1.0):
        a = (np.random.RandomState(seed).standard_normal(shape) * scale).astype(self.np_dtype)
        return self.lib.tensor(a, device=self.device)

    def ints(self, high: int, n: int, seed: int):
        return self.lib.tensor(np.random.RandomState(seed).randint(0, high, n), device=self.device)

    def seeded(self, module, seed: int):
        """``module`` on the device in the dtype, every float entry of its state from ``seed``."""
        rs = np.random.RandomState(seed)
        state = {}
        for k, v in module.state_dict().items():
            if "running_var" in k:
                state[k] = self.lib.tensor(rs.uniform(0.5, 1.5, tuple(v.shape)).astype(self.np_dtype))
            elif v.is_floating_point():
                state[k] = self.lib.tensor((rs.standard_normal(tuple(v.shape)) * 0.4).astype(self.np_dtype))
            else:
                state[k] = v
        module.load_state_dict(state)
        return module.to(self.device, self.dtype)

    @staticmethod
    def out(tree) -> dict:
        """``{path: array}`` of a result made of tensors, tuples, lists and dicts."""
        found: dict = {}

        def walk(v, path):
            if isinstance(v, dict):
                for k, u in v.items():
                    walk(u, f"{path}.{k}")
            elif isinstance(v, (tuple, list)):
                for i, u in enumerate(v):
                    walk(u, f"{path}[{i}]")
            else:
                found[path] = np.asarray(v.detach().cpu().numpy())

        for k, v in tree.items():
            walk(v, k)
        return found


def cnn_class(S: Setup):
    """The per-sample-gradient tutorial's CNN, shrunk (1x8x8 images, 10 classes)."""
    nn, F, lib = S.lib.nn, S.F, S.lib

    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 3, 3, 1), nn.Conv2d(3, 4, 3, 1)
            self.fc1, self.fc2 = nn.Linear(4 * 2 * 2, 8), nn.Linear(8, 10)

        def forward(self, x):
            x = F.relu(self.conv2(F.relu(self.conv1(x))))
            x = lib.flatten(F.max_pool2d(x, 2), 1)
            return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)

    return SimpleCNN


def per_sample_grads(S: Setup) -> dict:
    lib, F = S.lib, S.F
    model = S.seeded(cnn_class(S)(), 1)
    data, targets = S.randn(4, 1, 8, 8, seed=2), S.ints(10, 4, seed=3)

    def one(sample, target):  # the loop the tutorial starts from
        loss = F.nll_loss(model(sample.unsqueeze(0)), target.unsqueeze(0))
        return lib.autograd.grad(loss, list(model.parameters()))

    looped = [lib.stack(g) for g in zip(*[one(data[i], targets[i]) for i in range(len(data))])]
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return F.nll_loss(predictions, target.unsqueeze(0))

    mapped = lib.func.vmap(lib.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    return S.out({"looped": looped, "vmapped": mapped})


def mlp_class(S: Setup):
    nn, F = S.lib.nn, S.F

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(16, 8), nn.Linear(8, 8), nn.Linear(8, 10)

        def forward(self, x):
            x = F.relu(self.fc1(x.flatten(1)))
            return self.fc3(F.relu(self.fc2(x)))

    return SimpleMLP


def ensembling(S: Setup) -> dict:
    lib = S.lib
    cls = mlp_class(S)
    models = [S.seeded(cls(), 10 + i) for i in range(3)]
    data = S.randn(4, 5, 1, 4, 4, seed=4)
    minibatches, minibatch = data[:3], data[0]
    params, buffers = lib.func.stack_module_state(models)
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return lib.func.functional_call(base, (params, buffers), (x,))

    different = lib.func.vmap(fmodel)(params, buffers, minibatches)
    same = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    (different.sum() + (same ** 2).sum()).backward()  # the stacked weights are leaves of their own
    return S.out({"loop1": [m(b) for m, b in zip(models, minibatches)], "vmap1": different,
                  "loop2": [m(minibatch) for m in models], "vmap2": same,
                  "grads": {k: v.grad for k, v in params.items()}})


def jacobians_hessians(S: Setup) -> dict:
    lib, F, fu = S.lib, S.F, S.lib.func

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()

    w, b, x = S.randn(5, 4, seed=5), S.randn(5, seed=6), S.randn(4, seed=7)
    xp = x.clone().requires_grad_()
    unit = lib.eye(5, dtype=S.dtype, device=S.device)
    rows = lib.stack([lib.autograd.grad(predict(w, b, xp), xp, v)[0] for v in unit])
    _, vjp_fn = fu.vjp(functools.partial(predict, w, b), x)
    xs = S.randn(3, 4, seed=8)
    got = {"rows": rows, "vmap_vjp": fu.vmap(vjp_fn)(unit), "jacrev": fu.jacrev(predict, argnums=2)(w, b, x),
           "jacrev01": fu.jacrev(predict, argnums=(0, 1))(w, b, x), "jacfwd": fu.jacfwd(predict, argnums=2)(w, b, x),
           "hessian": fu.hessian(predict, argnums=2)(w, b, x),
           "fwdfwd": fu.jacfwd(fu.jacfwd(predict, argnums=2), argnums=2)(w, b, x),
           "revrev": fu.jacrev(fu.jacrev(predict, argnums=2), argnums=2)(w, b, x),
           "batch_jac": fu.vmap(fu.jacrev(predict, argnums=2), in_dims=(None, None, 0))(w, b, xs),
           "summed": fu.jacrev(lambda w, b, x: predict(w, b, x).sum(0), argnums=2)(w, b, xs).movedim(1, 0),
           "batch_hess": fu.vmap(fu.hessian(predict, argnums=2), in_dims=(None, None, 0))(w, b, xs)}

    def f(x):
        return x.sin().sum()

    v, t = S.randn(6, seed=9), S.randn(6, seed=10)
    got["hvp"] = fu.jvp(fu.grad(f), (v,), (t,))[1]
    _, pullback = fu.vjp(fu.grad(f), v)
    got["hvp_revrev"] = pullback(t)
    return S.out(got)


def ntk_class(S: Setup):
    nn = S.lib.nn

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(2, 3, (3, 3)), nn.Conv2d(3, 3, (3, 3))
            self.fc = nn.Linear(3 * 3 * 3, 4)

        def forward(self, x):
            x = self.conv2(self.conv1(x).relu()).relu()
            return self.fc(x.flatten(1))

    return CNN


def neural_tangent_kernels(S: Setup) -> dict:
    lib, fu = S.lib, S.lib.func
    net = S.seeded(ntk_class(S)(), 11)
    params = {k: v.detach() for k, v in net.named_parameters()}
    x_train, x_test = S.randn(3, 2, 7, 7, seed=12), S.randn(2, 2, 7, 7, seed=13)

    def fnet_single(params, x):
        return fu.functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

    def contraction(x1, x2, expr):
        jac1 = [j.flatten(2) for j in fu.vmap(fu.jacrev(fnet_single), (None, 0))(params, x1).values()]
        jac2 = [j.flatten(2) for j in fu.vmap(fu.jacrev(fnet_single), (None, 0))(params, x2).values()]
        return lib.stack([lib.einsum(expr, j1, j2) for j1, j2 in zip(jac1, jac2)]).sum(0)

    def ntk_vps(x1, x2):
        def get_ntk(x1, x2):
            output, vjp_fn = fu.vjp(lambda p: fnet_single(p, x1), params)

            def ntk_slice(vec):
                return fu.jvp(lambda p: fnet_single(p, x2), (params,), vjp_fn(vec))[1]

            basis = lib.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
            return fu.vmap(ntk_slice)(basis)

        return fu.vmap(fu.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    full = ntk_vps(x_test, x_train)
    return S.out({"full": contraction(x_test, x_train, "Naf,Mbf->NMab"),
                  "trace": contraction(x_test, x_train, "Naf,Maf->NM"),
                  "diagonal": contraction(x_test, x_train, "Naf,Maf->NMa"), "vps_full": full,
                  "vps_trace": lib.einsum("NMKK->NM", full), "vps_diagonal": lib.einsum("NMKK->NMK", full)})


def forward_ad(S: Setup) -> dict:
    lib, fwAD = S.lib, S.lib.autograd.forward_ad
    primal, tangent, plain = S.randn(3, 3, seed=14), S.randn(3, 3, seed=15), S.randn(3, 3, seed=16)
    got = {}
    with fwAD.dual_level():
        dual = fwAD.make_dual(primal, tangent)
        got["basic"] = fwAD.unpack_dual(dual ** 2 + plain ** 2).tangent
    layer = S.seeded(lib.nn.Linear(4, 4), 17)
    x = S.randn(6, 4, seed=18)
    params = dict(layer.named_parameters())
    tangents = {n: S.randn(*p.shape, seed=19 + i) for i, (n, p) in enumerate(params.items())}
    with fwAD.dual_level():  # the duals as plain attributes of the module
        for n, p in params.items():
            delattr(layer, n)
            setattr(layer, n, fwAD.make_dual(p, tangents[n]))
        got["module"] = fwAD.unpack_dual(layer(x)).tangent
    fresh = S.seeded(lib.nn.Linear(4, 4), 21)
    with fwAD.dual_level():
        duals = {n: fwAD.make_dual(p, tangents[n]) for n, p in params.items()}
        got["functional_call"] = fwAD.unpack_dual(lib.func.functional_call(fresh, duals, x)).tangent

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            ctx.result = lib.exp(foo)
            return ctx.result

        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            return gO

    with fwAD.dual_level():
        got["custom"] = fwAD.unpack_dual(Exp.apply(fwAD.make_dual(primal.clone().requires_grad_(), tangent))).tangent
    got["jvp"] = lib.func.jvp(lambda a, b: a ** 2 + b ** 2, (primal, plain), (tangent, tangent * 2))
    got["partial"] = lib.func.jvp(functools.partial(lambda a, b: a ** 2 + b ** 2, b=plain), (primal,), (tangent,))
    names = list(params)
    got["params_jvp"] = lib.func.jvp(lambda ps: lib.func.functional_call(fresh, dict(zip(names, ps)), (x,)),
                                     (tuple(p.detach() for p in params.values()),), (tuple(tangents.values()),))
    return S.out(got)


def double_backward_functions(S: Setup) -> dict:
    """The double-backward tutorial's Square, Exp, Sinh (intermediates returned as outputs) and Cube
    (its backward a Function of its own): the gradient with create_graph=True, then its gradient."""
    lib = S.lib

    Square = _power_saving_input(lib, 2, lambda grad_out, x: grad_out * 2 * x)

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = lib.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out

    class Sinh(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = lib.exp(x), lib.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, grad_expx, grad_expnegx):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += grad_expx * expx
            grad_input -= grad_expnegx * expnegx
            return grad_input

    return S.out({name: _twice_differentiated(S, f) for name, f in
                  [("square", Square.apply), ("exp", Exp.apply), ("sinh", lambda x: Sinh.apply(x)[0]),
                   ("cube", _cube(lib).apply)]})


def _cube(lib):
    class CubeBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return grad_out * 3 * x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, saved_grad_out = ctx.saved_tensors
            return grad_out * 3 * x ** 2, grad_out * saved_grad_out * 6 * x

    return _power_saving_input(lib, 3, CubeBackward.apply)  # Cube: its backward is CubeBackward


def _power_saving_input(lib, power: int, backward):
    """The tutorial's Square and Cube: ``x ** power``, saving the input; ``backward(grad_out, x)``."""

    class Power(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** power

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return backward(grad_out, x)

    return Power


def _twice_differentiated(S: Setup, f) -> list:
    x = S.randn(2, 3, seed=22, scale=0.5).requires_grad_()
    out = f(x * 1)  # not a leaf, as the tutorial's clone()
    grad_x, = S.lib.autograd.grad((out * S.randn(2, 3, seed=23)).sum(), x, create_graph=True)
    second, = S.lib.autograd.grad((grad_x * S.randn(2, 3, seed=24)).sum(), x)
    return [out, grad_x, second]


def _conv_bn_functions(lib):
    """The conv-bn fusion tutorial's functions: Conv2D and BatchNorm (each once_differentiable) and the
    fused one, which saves only the convolution's inputs and recomputes the convolution in backward."""
    F, once_differentiable = lib.nn.functional, lib.autograd.function.once_differentiable

    def convolution_backward(grad_out, X, weight):
        grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
        return F.conv_transpose2d(grad_out, weight), grad_input

    class Conv2D(lib.autograd.Function):
        @staticmethod
        def forward(ctx, X, weight):
            ctx.save_for_backward(X, weight)
            return F.conv2d(X, weight)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            X, weight = ctx.saved_tensors
            return convolution_backward(grad_out, X, weight)

    class BatchNorm(lib.autograd.Function):
        @staticmethod
        def forward(ctx, X, eps=1e-3):
            stats = _batch_stats(X)
            ctx.save_for_backward(X)
            ctx.eps, ctx.sum, ctx.N, ctx.sqrt_var = eps, *stats
            return (X - _per_channel(stats[0] / stats[1])) / _per_channel(stats[2] + eps)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            X, = ctx.saved_tensors
            return _batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)

    class FusedConvBN2DFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, X, conv_weight, eps=1e-3):
            ctx.save_for_backward(X, conv_weight)
            X = F.conv2d(X, conv_weight)
            stats = _batch_stats(X)
            ctx.eps, ctx.sum, ctx.N, ctx.sqrt_var = eps, *stats
            out = X - _per_channel(stats[0] / stats[1])
            out /= _per_channel(stats[2] + eps)  # in place, as the tutorial saves a buffer
            return out

        @staticmethod
        def backward(ctx, grad_out):
            X, conv_weight = ctx.saved_tensors
            grad_out = _batch_norm_backward(grad_out, F.conv2d(X, conv_weight), ctx.sum, ctx.sqrt_var, ctx.N,
                                            ctx.eps)
            grad_X, grad_input = convolution_backward(grad_out, X, conv_weight)
            return grad_X, grad_input, None, None, None, None, None  # trailing Nones are allowed

    return Conv2D, BatchNorm, FusedConvBN2DFunction


def _per_channel(t):
    return t[None, :, None, None]


def _batch_stats(X):
    return X.sum(dim=(0, 2, 3)), X.numel() / X.size(1), X.var(unbiased=True, dim=(0, 2, 3)).sqrt()


def _batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
    """The tutorial's formula, its in-place updates of one NCHW buffer included."""
    tmp = -((X - _per_channel(sum) / N) * grad_out).sum(dim=(0, 2, 3))
    d_var = tmp / (sqrt_var + eps) ** 2 / (2 * sqrt_var)
    d_mean_dx = _per_channel(-(grad_out / _per_channel(sqrt_var + eps)).sum(dim=(0, 2, 3)) / N)
    grad_input = X * _per_channel(d_var * N)
    grad_input += _per_channel(-d_var * sum)
    grad_input *= 2 / ((N - 1) * N)
    grad_input += d_mean_dx
    grad_input *= _per_channel(sqrt_var + eps)
    grad_input += grad_out
    grad_input /= _per_channel(sqrt_var + eps)
    return grad_input


def fused_conv_bn(S: Setup) -> dict:
    lib = S.lib
    Conv2D, BatchNorm, Fused = _conv_bn_functions(lib)
    X, weight = S.randn(3, 2, 6, 6, seed=25).requires_grad_(), S.randn(4, 2, 3, 3, seed=26).requires_grad_()
    g = S.randn(3, 4, 4, 4, seed=27)
    got = {}
    for name, fn in [("conv", Conv2D.apply), ("bn_of_conv", lambda X, w: BatchNorm.apply(Conv2D.apply(X, w))),
                     ("fused", Fused.apply)]:
        out = fn(X, weight)
        got[name] = [out, *lib.autograd.grad(out, (X, weight), g if out.shape == g.shape else None)]
    got["training"] = _train_net(S, Fused)
    return S.out(got)


def _train_net(S: Setup, Fused) -> list:
    """The tutorial's Net (dropout p=0 here, so that the engines' generators do not matter), two
    Adadelta steps under StepLR, then the evaluation's summed NLL and predictions under inference_mode."""
    lib, nn, F = S.lib, S.lib.nn, S.F

    class FusedConvBN(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, eps=1e-3):
            super().__init__()
            self.conv_weight = nn.Parameter(lib.empty(out_channels, in_channels, kernel_size, kernel_size))
            self.eps = eps
            nn.init.kaiming_uniform_(self.conv_weight, a=math.sqrt(5))

        def forward(self, X):
            return Fused.apply(X, self.conv_weight, self.eps)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.convbn1, self.convbn2 = FusedConvBN(1, 3, 3), FusedConvBN(3, 4, 3)
            self.fc1, self.dropout, self.fc2 = nn.Linear(4 * 2 * 2, 8), nn.Dropout(0.0), nn.Linear(8, 3)

        def forward(self, x):
            x = F.relu(F.max_pool2d(F.relu(self.convbn2(F.relu(self.convbn1(x)))), 2))
            return F.log_softmax(self.fc2(F.relu(self.dropout(self.fc1(x.flatten(1))))), dim=1)

    model = S.seeded(Net(), 28)
    optimizer = lib.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    data, target = S.randn(6, 1, 8, 8, seed=29), S.ints(3, 6, seed=30)
    losses = []
    model.train()
    for _ in range(2):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.detach())
    model.eval()
    with lib.inference_mode():
        output = model(data)
        test_loss = F.nll_loss(output, target, reduction="sum")
        correct = output.argmax(dim=1, keepdim=True).eq(target.view(-1, 1)).sum()
    return [lib.stack(losses), test_loss, correct, *model.parameters()]


def _numpy_sort_functions(lib):
    """"Extending torch.func with autograd.Function": a sort done in NumPy (forward without ctx,
    setup_context apart), its backward another NumPy Function, both with vmap staticmethods."""

    def to_numpy(t):
        return t.cpu().numpy()

    class NumpySort(lib.autograd.Function):
        @staticmethod
        def forward(x, dim):
            ind = np.argsort(to_numpy(x), axis=dim, kind="stable")
            ind_inv = np.argsort(ind, axis=dim)
            result = np.take_along_axis(to_numpy(x), ind, axis=dim)
            return tuple(lib.tensor(a, device=x.device) for a in (result, ind, ind_inv))

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, ind, ind_inv = output
            ctx.mark_non_differentiable(ind, ind_inv)
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = inputs[1]

        @staticmethod
        def backward(ctx, grad_output, _0, _1):
            ind, ind_inv = ctx.saved_tensors
            return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

        @staticmethod
        def vmap(info, in_dims, x, dim):
            x = x.movedim(in_dims[0], 0)
            dim = dim if dim >= 0 else dim + x.dim() - 1
            return NumpySort.apply(x, dim + 1), (0, 0, 0)

    class NumpyTake(lib.autograd.Function):
        @staticmethod
        def forward(x, ind, ind_inv, dim):
            return lib.tensor(np.take_along_axis(to_numpy(x), to_numpy(ind), dim), device=x.device)

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, ind, ind_inv, dim = inputs
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = dim

        @staticmethod
        def backward(ctx, grad_output):
            ind, ind_inv = ctx.saved_tensors
            return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None, None, None

        @staticmethod
        def vmap(info, in_dims, x, ind, ind_inv, dim):
            logical_dim = x.dim() if in_dims[0] is None else in_dims[0] - 1
            dim = dim if dim >= 0 else dim + logical_dim

            def at_front(t, bdim):
                return t.expand(info.batch_size, *t.shape) if bdim is None else t.movedim(bdim, 0)

            x, ind, ind_inv = (at_front(t, d) for t, d in zip((x, ind, ind_inv), in_dims))
            return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0

    def numpy_sort(x, dim=-1):
        return NumpySort.apply(x, dim)[0]

    return numpy_sort


def _cube_functions(lib):
    class MyCube(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2  # dx computed in forward, returned to be saved

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])
            ctx.save_for_forward(inputs[0], output[1])  # for jvp

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x

        @staticmethod
        def jvp(ctx, x_t):
            x, dx = ctx.saved_tensors
            return x_t * dx, x_t * 6 * x

    return lambda x: MyCube.apply(x)[0]


def extending_func(S: Setup) -> dict:
    lib, fu = S.lib, S.lib.func
    numpy_sort, my_cube = _numpy_sort_functions(lib), _cube_functions(lib)
    x, weights = S.randn(3, 4, seed=31), S.randn(4, seed=32)

    def weighted(r):
        return (numpy_sort(r) * weights).sum()

    s = S.randn(seed=33)
    v = S.randn(4, seed=34)
    return S.out({"grad": fu.grad(weighted)(x), "vmap": fu.vmap(numpy_sort)(x),
                  "vmap_dim0": fu.vmap(numpy_sort, in_dims=1)(x), "jacrev": fu.jacrev(numpy_sort)(x[0]),
                  "per_row_grad": fu.vmap(fu.grad(weighted))(x), "twice_sorted": numpy_sort(fu.vmap(numpy_sort)(x), 1),
                  "ggx": fu.grad(fu.grad(my_cube))(s), "vmap_cube": fu.vmap(my_cube)(x),
                  "hessian_cube": fu.hessian(lambda t: my_cube(t).sum())(v),
                  "jacfwd_cube": fu.jacfwd(my_cube)(v), "vmap_jvp_cube": fu.vmap(
                      lambda t: fu.jvp(my_cube, (v,), (t,))[1])(lib.eye(4, dtype=S.dtype, device=S.device))})


PROGRAMS = {"per_sample_grads": per_sample_grads, "ensembling": ensembling,
            "jacobians_hessians": jacobians_hessians, "neural_tangent_kernels": neural_tangent_kernels,
            "forward_ad": forward_ad, "double_backward_functions": double_backward_functions,
            "fused_conv_bn": fused_conv_bn, "extending_func": extending_func}
#: the programs run in float64 and, where the tutorial runs float32, in float32 as well
DTYPES = {"per_sample_grads": ("float64", "float32"), "ensembling": ("float64", "float32"),
          "jacobians_hessians": ("float64", "float32"), "neural_tangent_kernels": ("float64", "float32")}


def run(lib, name: str, device: str = "cpu", dtype: str = "float64") -> dict:
    return PROGRAMS[name](Setup(lib, device, dtype))
