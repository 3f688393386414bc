"""PyTorch's "Extending torch.autograd" notes (pytorch ``docs/source/notes/extending.rst``), its "Extending
torch.func with autograd.Function" notes (``notes/extending.func.rst``) and the "Double Backward with Custom
Functions" tutorial (pytorch/tutorials ``intermediate_source/custom_function_double_backward_tutorial.rst``),
ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/extending_autograd.py

The notes' ``LinearFunction`` (``forward``/``setup_context`` apart, ``ctx.needs_input_grad``; and the
combined ``forward(ctx, ...)``), ``MulConstant`` (a non-tensor argument), ``MyCube`` (an intermediate
returned as an output for double backward), the ``Linear`` module built on it (``extra_repr``),
``gradcheck``; the tutorial's ``Square``, ``Exp`` (saving the output), ``Sinh`` (saving intermediates as
outputs), ``SinhBad`` (intermediates on ``ctx``: ``gradgradcheck`` fails), ``Cube`` / ``CubeBackward`` (a
backward that is itself a custom function); and the func notes' ``NumpySort`` / ``NumpyTake`` (NumPy in
``forward``, ``mark_non_differentiable``, ``vmap`` staticmethods), ``MyExp`` (``save_for_forward``, ``jvp``),
a ``generate_vmap_rule`` ``MyCube``, under ``mg.func.grad``, ``vmap``, ``jvp``, ``jacrev`` and ``hessian``.
Added beside them: ``mark_dirty``, ``set_materialize_grads`` and ``once_differentiable``, which the notes
describe.  Made small and deterministic: ``torch.randn`` inputs come from ``inputs`` (a fixed formula), and a
two-layer network of the notes' ``Linear`` trains ``--steps`` SGD steps.  The notes' and tutorial's prints
are kept in ``log``; the numbers are ``main``'s history.  The lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.autograd import Function, gradcheck, gradgradcheck
from minigrad_ckpt.autograd.function import once_differentiable
from tutorial_notes import Notes

kept = Notes()
log, history = kept.log, kept.history  # (the test reads them)
show, record = kept.show, kept.record


def inputs(*shape, requires_grad=False, dtype=None):
    """The tutorial's ``torch.randn(*shape)``: fixed values (``Notes.inputs``)."""
    return kept.inputs(*shape, requires_grad=requires_grad, dtype=dtype, scale=1.5)


# ---------------------------------------------------------------- notes/extending.rst
# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply


class LinearFunctionCombined(Function):
    """The notes' other spelling: ``forward(ctx, ...)`` saves what backward needs itself."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return LinearFunction.backward(ctx, grad_output)  # (the notes repeat LinearFunction's backward here)


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


class MyCube(mg.autograd.Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features

        # nn.Parameter is a special kind of Tensor, that will get
        # automatically registered as Module's parameter once it's assigned
        # as an attribute. Parameters and buffers need to be registered, or
        # they won't appear in .parameters() (doesn't apply to buffers), and
        # won't be converted when e.g. .cuda() is called. You can use
        # .register_buffer() to register buffers.
        # nn.Parameters require gradients by default.
        self.weight = nn.Parameter(mg.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(mg.empty(output_features))
        else:
            # You should always register all possible parameters, but the
            # optional ones can be None if you want.
            self.register_parameter('bias', None)

        # Not a very smart way to initialize weights
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        # See the autograd section for explanation of what happens here.
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        # (Optional)Set the extra information about this module. You can test
        # it by printing an object of this class.
        return 'input_features={}, output_features={}, bias={}'.format(
            self.input_features, self.output_features, self.bias is not None
        )


# ------------------------------------------------- what the notes describe beside them
class MulInPlace(Function):
    """``ctx.mark_dirty``: the input is changed in place and returned."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.mark_dirty(x)
        ctx.save_for_backward(y)
        return x.mul_(y)

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y, None


class TwoOutputs(Function):
    """``ctx.set_materialize_grads(False)``: an unused output's gradient comes as None."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    @once_differentiable
    def backward(ctx, g_sin, g_cos):
        x, = ctx.saved_tensors
        show("materialized:", g_sin is not None, g_cos is not None)
        grad = mg.zeros_like(x)
        if g_sin is not None:
            grad = grad + g_sin * x.cos()
        if g_cos is not None:
            grad = grad - g_cos * x.sin()
        return grad


def notes():
    input = (inputs(5, 4, requires_grad=True, dtype=mg.double), inputs(3, 4, requires_grad=True, dtype=mg.double),
             inputs(3, requires_grad=True, dtype=mg.double))
    test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
    show(test)
    record(test)
    bias = input[2]
    for fn in (linear, LinearFunctionCombined.apply):
        out = fn(input[0], input[1], bias)
        grads = mg.autograd.grad((out * out).sum(), (input[0], input[1], bias))
        record(out, *grads)
    out = LinearFunctionCombined.apply(input[0], input[1].detach())  # needs_input_grad: (True, False)
    record(mg.autograd.grad(out.sum(), input[0]))
    x = inputs(2, 3, requires_grad=True, dtype=mg.double)
    y = MulConstant.apply(x, 2.5)
    record(y, mg.autograd.grad(y.sum(), x))
    x = inputs(4, requires_grad=True, dtype=mg.double)
    gx, = mg.autograd.grad(my_cube(x).sum(), x, create_graph=True)
    ggx, = mg.autograd.grad(gx.sum(), x)
    record(gx, ggx, gradcheck(my_cube, (x,)), gradgradcheck(my_cube, (x,)))
    show(Linear(4, 3))
    show(Linear(4, 3, bias=False))
    x = inputs(3, requires_grad=True, dtype=mg.double)
    z = x.clone()
    w = MulInPlace.apply(z, inputs(3, dtype=mg.double))
    show("dirty:", w is z, w.grad_fn.name())
    record(mg.autograd.grad((w * w).sum(), x))
    s, c = TwoOutputs.apply(x)
    record(mg.autograd.grad(s.sum(), x))
    s, c = TwoOutputs.apply(x)
    gx, = mg.autograd.grad((s + 2 * c).sum(), x, create_graph=True)
    show("once differentiable:", gx.requires_grad)
    try:
        gx.sum().backward()
    except RuntimeError as error:
        show("refused:", type(error).__name__)


# ------------------------------------- custom_function_double_backward_tutorial
class Square(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x


class Exp(mg.autograd.Function):
    # Simple case where everything goes well
    @staticmethod
    def forward(ctx, x):
        # This time we save the output
        result = mg.exp(x)
        # Note that we should use `save_for_backward` here when
        # the tensor saved is an output (or an input).
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


class Sinh(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = mg.exp(x)
        expnegx = mg.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        # In order to be able to save the intermediate results, a trick is to
        # include them as our outputs, so that the backward graph is constructed
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        # We cannot skip accumulating these even though we won't use the outputs
        # directly. They will be used later in the second backward.
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    # Create a wrapper that only returns the first output
    return Sinh.apply(x)[0]


class SinhBad(mg.autograd.Function):
    # This is an example of what NOT to do!
    @staticmethod
    def forward(ctx, x):
        expx = mg.exp(x)
        expnegx = mg.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        grad_input = grad_out * (expx + expnegx) / 2
        return grad_input


def cube_forward(x):
    return x**3


def cube_backward(grad_out, x):
    return grad_out * 3 * x**2


def cube_backward_backward(grad_out, sav_grad_out, x):
    return grad_out * sav_grad_out * 6 * x


def cube_backward_backward_grad_out(grad_out, x):
    return grad_out * 3 * x**2


class Cube(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return cube_forward(x)

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)


class CubeBackward(mg.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return cube_backward(grad_out, x)

    @staticmethod
    def backward(ctx, grad_out):
        x, sav_grad_out = ctx.saved_tensors
        dx = cube_backward_backward(grad_out, sav_grad_out, x)
        dgrad_out = cube_backward_backward_grad_out(grad_out, x)
        return dgrad_out, dx


def double_backward_tutorial():
    x = inputs(3, 3, requires_grad=True, dtype=mg.double)
    show("Square:", mg.autograd.gradcheck(Square.apply, x), mg.autograd.gradgradcheck(Square.apply, x))
    x = inputs(3, 3, requires_grad=True, dtype=mg.double)
    show("Exp:", mg.autograd.gradcheck(Exp.apply, x), mg.autograd.gradgradcheck(Exp.apply, x))
    x = inputs(3, 3, requires_grad=True, dtype=mg.double)
    show("Sinh:", mg.autograd.gradcheck(sinh, x), mg.autograd.gradgradcheck(sinh, x))
    x = inputs(3, 3, requires_grad=True, dtype=mg.double)
    show("SinhBad:", mg.autograd.gradcheck(SinhBad.apply, x),
         mg.autograd.gradgradcheck(SinhBad.apply, x, raise_exception=False))
    try:
        mg.autograd.gradgradcheck(SinhBad.apply, x)
    except Exception as error:  # torch.autograd.GradcheckError, a RuntimeError
        show("SinhBad refused:", type(error).__name__)
    x = inputs(2, 2, requires_grad=True, dtype=mg.double)
    show("Cube:", mg.autograd.gradcheck(Cube.apply, x), mg.autograd.gradgradcheck(Cube.apply, x))
    for name, fn in (("Square", Square.apply), ("Exp", Exp.apply), ("Sinh", sinh), ("SinhBad", SinhBad.apply),
                     ("Cube", Cube.apply)):
        x = inputs(2, 3, requires_grad=True, dtype=mg.double)
        out = fn(x)
        grad_x, = mg.autograd.grad(out.sum(), x, create_graph=True)
        show(name, grad_x.requires_grad,
             None if grad_x.grad_fn is None else grad_x.grad_fn.name())
        if grad_x.requires_grad:
            record(out, grad_x, mg.autograd.grad((grad_x ** 2).sum(), x))
        else:
            record(out, grad_x)


# ---------------------------------------------------------- notes/extending.func.rst
def to_numpy(tensor):
    return tensor.cpu().numpy()


class NumpySort(mg.autograd.Function):
    # Note that forward does not take ctx
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        # Any intermediates to be saved in backward must be returned as
        # outputs.
        return (
            # The desired output
            mg.tensor(result, device=device),
            # intermediate to save for backward
            mg.tensor(ind, device=device),
            # intermediate to save for backward
            mg.tensor(ind_inv, device=device),
        )

    # setup_context is responsible for calling methods and/or assigning to
    # the ctx object. Please do not do additional compute (e.g. add
    # Tensors together) in setup_context.
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        # Note that output is whatever you returned from forward.
        # If you returned multiple values, then output is a Tuple of multiple values.
        # If you returned a single Tensor, then output is a Tensor.
        # If you returned a Tuple with a single Tensor, then output is a
        # Tuple with a single Tensor.
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        # Tensors must be saved via ctx.save_for_backward. Please do not
        # assign them directly onto the ctx object.
        ctx.save_for_backward(ind, ind_inv)
        # Non-tensors may be saved by assigning them as attributes on the ctx object.
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        # For the autograd.Function to be arbitrarily composable with function
        # transforms, all staticmethod other than forward and setup_context
        # must be implemented in a "transformable" way; that is, they must
        # only consist of PyTorch operations or autograd.Function.
        #
        # For example, this allows us to do double backwards and/or compute
        # second order gradients.
        #
        # We've written the backward pass of NumpySort in terms of another
        # autograd.Function, NumpyTake.
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

    # The signature of the vmap staticmethod is:
    # vmap(info, in_dims: Tuple[Optional[int]], *args)
    # where *args is the same as the arguments to `forward`.
    @staticmethod
    def vmap(info, in_dims, x, dim):
        # For every input (x and dim), in_dims stores an Optional[int]
        # that is:
        # - None if the input is not being vmapped over or if the input
        #   is not a Tensor
        # - an integer if the input is being vmapped over that represents
        #   the index of the dimension being vmapped over.
        x_bdim, _ = in_dims

        # A "vmap rule" is the logic of how to perform the operation given
        # inputs with one additional dimension. In NumpySort, x has an
        # additional dimension (x_bdim). The vmap rule is simply
        # to call NumpySort again but pass it a different `dim`.
        x = x.movedim(x_bdim, 0)
        # Handle negative dims correctly
        dim = dim if dim >= 0 else dim + x.dim() - 1
        result = NumpySort.apply(x, dim + 1)

        # The vmap rule must return a tuple of two things
        # 1. the output. Should be the same amount of things
        #    as returned by the forward().
        # 2. one Optional[int] for each output specifying if each output
        # is being vmapped over, and if so, the index of the
        # dimension being vmapped over.
        #
        # NumpySort.forward returns a Tuple of 3 Tensors. Since we moved the
        # dimension being vmapped over to the front of `x`, that appears at
        # dimension 0 of all outputs.
        # The return is (output, out_dims) -- output is a tuple of 3 Tensors
        # and out_dims is a Tuple of 3 Optional[int]
        return result, (0, 0, 0)


class NumpyTake(mg.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return mg.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims

        # The strategy is: expand {x, ind, ind_inv} to all have the dimension
        # being vmapped over.
        # Then, call back into NumpyTake(expanded_x, expanded_ind, expanded_ind_inv, new_dim).

        # Handle negative dims by wrapping them to be positive
        logical_dim = x.dim() if x_bdim is None else x_bdim - 1
        dim = dim if dim >= 0 else dim + logical_dim

        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)

        # If the Tensor doesn't have the dimension being vmapped over,
        # expand it out. Otherwise, move it to the front of the Tensor
        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)

        # The return is a tuple (output, out_dims). Since output is a Tensor,
        # then out_dims is an Optional[int] (instead of being a Tuple).
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


class MyExp(mg.autograd.Function):
    @staticmethod
    def forward(x):
        # This is the normal forward
        result = x.exp()
        return result

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result = output
        # In order to support forward mode AD, we must save the result with
        # save_for_forward
        ctx.save_for_backward(result)
        ctx.save_for_forward(result)

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

    @staticmethod
    def jvp(ctx, x_t):
        # Either of the following works
        result, = ctx.saved_tensors
        return x_t * result


class MyCubeVmapped(mg.autograd.Function):
    """The func notes' ``MyCube``, whose vmap rule is generated."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def func_notes():
    x = inputs(3)
    grad_x = mg.func.grad(lambda x: numpy_sort(x).sum())(x)
    record(grad_x)
    x = inputs(3, 4)
    record(numpy_sort(x, 0), numpy_sort(x), mg.vmap(numpy_sort)(x), mg.vmap(numpy_sort, in_dims=1)(x))
    weights = inputs(3, 4)
    record(mg.func.vmap(mg.func.grad(lambda x: (numpy_sort(x) * weights[0]).sum()))(x))
    record(mg.func.jacrev(lambda x: numpy_sort(x) * mg.arange(1, 5, dtype=x.dtype))(x[0]))
    inner = mg.func.grad(lambda x: (numpy_sort(x) ** 3 * weights[1]).sum())
    record(inner(x[0]), mg.func.grad(lambda x: (inner(x) ** 2).sum())(x[0]))
    x = inputs(3, requires_grad=True)
    y = numpy_sort(x)
    record(mg.autograd.grad((y * mg.arange(3, dtype=x.dtype)).sum(), x))
    show("sort outputs:", [t.requires_grad for t in NumpySort.apply(x, 0)])
    x, t = inputs(4), inputs(4)
    primal_out, tangent_out = mg.func.jvp(MyExp.apply, (x,), (t,))
    record(primal_out, tangent_out)
    with mg.autograd.forward_ad.dual_level():
        dual = mg.autograd.forward_ad.make_dual(x, t)
        record(mg.autograd.forward_ad.unpack_dual(MyExp.apply(dual)).tangent)
    x = inputs(3, 2)
    record(mg.vmap(lambda x: MyCubeVmapped.apply(x)[0])(x))
    record(mg.func.vmap(mg.func.grad(lambda x: MyCubeVmapped.apply(x)[0].sum()))(x))
    record(mg.func.jacrev(mg.func.jacrev(lambda x: MyCubeVmapped.apply(x)[0].sum()))(x[0]))
    record(mg.func.jacrev(MyExp.apply)(x[0]))


def train(steps, init):
    mg.manual_seed(0)
    model = nn.Sequential(Linear(4, 8), nn.Tanh(), Linear(8, 2)).to(kept.dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("linear", model)
    show(model)
    optimizer = mg.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    x = inputs(16, 4)
    target = (x[:, :2] * x[:, 2:]).tanh()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        record(loss)
    return model


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="extending autograd")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    kept.clear(mg.float64 if args.double else mg.float32)
    notes()
    double_backward_tutorial()
    func_notes()
    model = train(args.steps, init)
    for line in log:
        print(line)
    return list(history), model


if __name__ == "__main__":
    main()
