"""PyTorch's "Forward-mode Automatic Differentiation" tutorial (pytorch/tutorials
``intermediate_source/forward_ad_usage.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/forward_ad.py

``torch.autograd.forward_ad``: ``dual_level``, ``make_dual`` (a tangent kept as given, or copied when its
layout differs: ``tangent.T``), ``unpack_dual`` (``.primal`` / ``.tangent``, None for a plain tensor and
after the level ends); with modules by swapping parameters for dual tensors (``delattr`` / ``setattr``) and
through ``torch.func.functional_call``; a custom ``autograd.Function`` with a ``jvp`` staticmethod and
``gradcheck(check_forward_ad=True)``; and the functional API ``torch.func.jvp`` of a function, of a function
closing over a second argument, and of a module's parameters (``functional_call``).  Made small and
deterministic: the tutorial's ``torch.randn`` / ``rand_like`` become ``inputs(...)`` (fixed values), sizes
are 4x4 (10x10) and a ``Linear(3, 3)`` (5, 5) on 4 samples (16); not in the tutorial, the module's jvps are
compared with a difference quotient.  The prints are kept in ``log``; the numbers are ``main``'s history.
The lines that differ from the tutorial are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
import minigrad_ckpt.nn as nn
from minigrad_ckpt.func import functional_call
from tutorial_notes import Notes

kept = Notes()
log, history = kept.log, kept.history  # (the test reads them)
show, record = kept.show, kept.record


def inputs(*shape, requires_grad=False, dtype=None):
    """The tutorial's ``torch.randn(*shape)``: fixed values (``Notes.inputs``)."""
    return kept.inputs(*shape, requires_grad=requires_grad, dtype=dtype)


def basic_usage():
    primal = inputs(4, 4)
    tangent = inputs(4, 4)

    def fn(x, y):
        return x ** 2 + y ** 2

    # All forward AD computation must be performed in the context of
    # a ``dual_level`` context. All dual tensors created in such a context
    # will have their tangents destroyed upon exit. This is to ensure that
    # if the output or intermediate results of this computation are reused
    # in a future forward AD computation, their tangents (which are associated
    # with this computation) won't be confused with tangents from the later
    # computation.
    with fwAD.dual_level():
        # To create a dual tensor we associate a tensor, which we call the
        # primal with another tensor of the same size, which we call the tangent.
        # If the layout of the tangent is different from that of the primal,
        # The values of the tangent are copied into a new tensor with the same
        # metadata as the primal. Otherwise, the tangent itself is used as-is.
        #
        # It is also important to note that the dual tensor created by
        # ``make_dual`` is a view of the primal.
        dual_input = fwAD.make_dual(primal, tangent)
        show("tangent is tangent:", fwAD.unpack_dual(dual_input).tangent is tangent)

        # To demonstrate the case where the copy of the tangent happens,
        # we pass in a tangent with a layout different from that of the primal
        dual_input_alt = fwAD.make_dual(primal, tangent.T)
        show("transposed tangent is tangent:", fwAD.unpack_dual(dual_input_alt).tangent is tangent)
        record(fwAD.unpack_dual(dual_input_alt).tangent)

        # Tensors that do not have an associated tangent are automatically
        # considered to have a zero-filled tangent of the same shape.
        plain_tensor = inputs(4, 4)
        dual_output = fn(dual_input, plain_tensor)

        # Unpacking the dual returns a ``namedtuple`` with ``primal`` and ``tangent``
        # as attributes
        jvp = fwAD.unpack_dual(dual_output).tangent
        record(fwAD.unpack_dual(dual_output).primal, jvp)
        show("plain tangent:", fwAD.unpack_dual(plain_tensor).tangent)

    show("after the level:", fwAD.unpack_dual(dual_output).tangent)


def usage_with_modules(init):
    model = nn.Linear(3, 3).to(kept.dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("linear", model)
    input = inputs(4, 3)

    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: inputs(*p.shape) for name, p in params.items()}

    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))

        out = model(input)
        jvp = fwAD.unpack_dual(out).tangent
    record(out, jvp)

    # Using the functional Module API (beta)
    model = nn.Linear(3, 3).to(kept.dtype)
    if init is not None:
        init("functional", model)
    params = {name: p for name, p in model.named_parameters()}
    dual_params = {}
    with fwAD.dual_level():
        for name, p in params.items():
            # Using the same ``tangents`` from the above section
            dual_params[name] = fwAD.make_dual(p, tangents[name])
        out = functional_call(model, dual_params, input)
        jvp2 = fwAD.unpack_dual(out).tangent

    # Check our results
    show("jvps agree:", mg.allclose(jvp, jvp2))
    eps = 1e-6  # not in the tutorial: a difference quotient
    with mg.no_grad():
        moved = {name: p + eps * tangents[name] for name, p in params.items()}
        quotient = (functional_call(model, moved, input) - functional_call(model, params, input)) / eps
    show("difference quotient agrees:", mg.allclose(jvp2, quotient, atol=1e-4 if kept.dtype == mg.float64 else 5e-2))
    record(jvp2)
    return model


class Fn(mg.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = mg.exp(foo)
        # Tensors stored in ``ctx`` can be used in the subsequent forward grad
        # computation.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # If the tensor stored in`` ctx`` will not also be used in the backward pass,
        # one can manually free it using ``del``
        del ctx.result
        return gO


def custom_function():
    fn = Fn.apply

    primal = inputs(4, 4, dtype=mg.double, requires_grad=True)
    tangent = inputs(4, 4)

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        dual_output = fn(dual_input)
        jvp = fwAD.unpack_dual(dual_output).tangent
    record(jvp)

    # It is important to use ``autograd.gradcheck`` to verify that your
    # custom autograd Function computes the gradients correctly. By default,
    # ``gradcheck`` only checks the backward-mode (reverse-mode) AD gradients. Specify
    # ``check_forward_ad=True`` to also check forward grads. If you did not
    # implement the backward formula for your function, you can also tell ``gradcheck``
    # to skip the tests that require backward-mode AD by specifying
    # ``check_backward_ad=False``, ``check_undefined_grad=False``, and
    # ``check_batched_grad=False``.
    show("gradcheck:", mg.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                             check_backward_ad=False, check_undefined_grad=False,
                                             check_batched_grad=False))


def functional_api(init):
    primal0 = inputs(4, 4)
    tangent0 = inputs(4, 4)
    primal1 = inputs(4, 4)
    tangent1 = inputs(4, 4)

    def fn(x, y):
        return x ** 2 + y ** 2

    # Here is a basic example to compute the JVP of the above function.
    # The ``jvp(func, primals, tangents)`` returns ``func(*primals)`` as well as the
    # computed Jacobian-vector product (JVP). Each primal must be associated with a tangent of the same shape.
    primal_out, tangent_out = mg.func.jvp(fn, (primal0, primal1), (tangent0, tangent1))
    record(primal_out, tangent_out)

    # ``functorch.jvp`` requires every primal to be associated with a tangent.
    # If we only want to associate certain inputs to `fn` with tangents,
    # then we'll need to create a new function that captures inputs without tangents:
    primal = inputs(4, 4)
    tangent = inputs(4, 4)
    y = inputs(4, 4)

    import functools
    new_fn = functools.partial(fn, y=y)
    primal_out, tangent_out = mg.func.jvp(new_fn, (primal,), (tangent,))
    record(primal_out, tangent_out)

    model = nn.Linear(3, 3).to(kept.dtype)
    if init is not None:
        init("func_jvp", model)
    input = inputs(4, 3)

    params = dict(model.named_parameters())
    tangents = {name: inputs(*p.shape) for name, p in params.items()}

    def func_params_only(params):
        return functional_call(model, params, input)

    model_output, jvp_out = mg.func.jvp(func_params_only, (params,), (tangents,))
    record(model_output, jvp_out)
    return model


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="forward-mode AD")
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    kept.clear(mg.float64 if args.double else mg.float32)
    basic_usage()
    models = [usage_with_modules(init)]
    custom_function()
    models.append(functional_api(init))
    for line in log:
        print(line)
    return list(history), tuple(models)


if __name__ == "__main__":
    main()
