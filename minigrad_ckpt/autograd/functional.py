"""``mg.autograd.functional``: PyTorch's ``torch.autograd.functional`` -- the derivative itself,
called as ``jacobian(func, inputs)`` -- on top of :mod:`minigrad_ckpt.func`'s transforms (which
return functions, as ``torch.func`` does), with PyTorch's strategies: ``jacobian`` and ``vjp``
reverse mode, ``hessian`` and ``vhp`` reverse over reverse, ``jvp`` and ``hvp`` the double-backward
trick -- so only backward rules are needed where PyTorch needs only them (a custom Function
without a ``jvp``); forward mode only where asked for (``strategy="forward-mode"``).

``inputs`` is a Tensor or a tuple of Tensors; the results follow PyTorch's nesting: for one
input Tensor, one result per output; for a tuple of inputs, a tuple over the inputs.  Without
``create_graph=True`` the results are detached, as PyTorch's.

``strict=True`` is PyTorch's check, made by one more call of ``func`` on inputs that require
grad: an output that does not require grad, or that is independent of an input (for ``hessian``,
``hvp`` and ``vhp``: a gradient independent of the inputs), is a ``RuntimeError`` with PyTorch's
words, where ``strict=False`` gives zeros.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import func as _func
from ..backward import grad as _engine_grad
from ..creation import ones_like, zeros_like
from ..func.captures import count_as_plain_autograd, open_transforms, writable_arguments
from ..func.transforms import ComplexRefused, linearized
from ..grad_mode import enable_grad
from ..grad_mode import state as _grad_state
from ..tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(inputs: Any, create_graph: bool, what: str, leaves: bool = True) -> tuple[bool, tuple]:
    """``(single, inputs as a tuple)``; with ``create_graph`` an input that does not require grad is
    taken as a fresh leaf that does, as PyTorch takes it, so the results are on a graph (they require
    grad) whatever the inputs.  PyTorch makes every input a leaf that requires grad (``leaves``; not
    its forward-mode ``jacobian``, which makes dual numbers), so an integer input is its error."""
    _check_tensor_or_tuple(inputs, f"inputs given to {what}", "inputs")
    single, args = (True, (inputs,)) if isinstance(inputs, Tensor) else (False, tuple(inputs))
    if leaves and any(a.dtype.kind not in "fc" for a in args):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")  # (torch 2.13's words)
    if create_graph:
        args = tuple(a.detach().requires_grad_() if isinstance(a, Tensor) and not a.requires_grad
                     and a.dtype.kind in "fc" else a for a in args)
    return single, args


def _finish(result: Any, create_graph: bool) -> Any:
    """Results detached unless ``create_graph`` (nested tuples kept)."""
    if isinstance(result, tuple):
        return tuple(_finish(r, create_graph) for r in result)
    return result if create_graph or not isinstance(result, Tensor) else result.detach()


def _forward_mode_lists(jac: Any, single: bool) -> Any:
    """PyTorch's forward-mode Jacobian (and forward-over-reverse Hessian) of a tuple of inputs is
    lists where its reverse mode's is tuples -- a list over the outputs of lists over the inputs,
    or one list over the inputs -- as its ``_jacfwd`` hands back the lists it builds; matched, so a
    port that tests ``isinstance(jac, list)`` or compares containers sees what it saw."""
    if single:
        return jac
    return [list(j) if isinstance(j, tuple) else j for j in jac]


def _check_tensor_or_tuple(value: Any, whose: str, given: str) -> None:
    """PyTorch's TypeError, in its words, for inputs or outputs that are not a Tensor or a tuple of them."""
    start = f"The {whose} must be either a Tensor or a tuple of Tensors but the"
    if isinstance(value, Tensor):
        return
    if not isinstance(value, tuple):
        raise TypeError(f"{start} given {given} has type {type(value)}.")
    for i, v in enumerate(value):
        if not isinstance(v, Tensor):
            raise TypeError(f"{start} value at index {i} has type {type(v)}.")


def _not_a_transform(func: Callable, what: str) -> Callable:
    """``func`` run as PyTorch runs it here: these are not ``torch.func`` transforms, so ``func`` may
    call ``backward()`` (which refuses inside ``mg.func.grad`` and the like) -- unless the call itself
    runs inside one; and what it returns is a Tensor or a tuple of Tensors (PyTorch's TypeError)."""
    outside, opened_before = _grad_state.transforms, open_transforms()

    def run(*xs: Any) -> Any:
        count_as_plain_autograd(opened_before)  # (the transforms between: this module's, not torch.func's)
        inside, _grad_state.transforms = _grad_state.transforms, outside
        try:
            out = func(*xs)
        finally:
            _grad_state.transforms = inside
        _check_tensor_or_tuple(out, f"outputs of the user-provided function given to {what}",
                               "outputs of the user-provided function")
        return out

    return run


def _grad_mode_on(api: Callable) -> Callable:
    """``api`` run with grad mode on, whatever the caller's, as PyTorch runs these: its functions
    differentiate ``func`` by autograd, so under ``no_grad()`` ``create_graph=True`` still puts the
    results on a graph (``mg.func``'s transforms, like ``torch.func``'s, follow the caller's mode,
    so ``no_grad`` left the results constants); without ``create_graph`` they are detached anyway."""
    @functools.wraps(api)
    def with_grad_on(*args: Any, **kwargs: Any) -> Any:
        with enable_grad():
            return api(*args, **kwargs)

    return with_grad_on


def _argnums(single: bool, n: int) -> Any:
    return 0 if single else tuple(range(n))


def _float_outputs(func: Callable, like: Tensor, seen: list | None = None) -> Callable:
    """``func`` with integer and bool outputs cast to ``like``'s dtype: torch.autograd.functional
    gives them zero derivatives, where ``mg.func`` (as ``torch.func``) refuses them.  ``seen`` gets
    the outputs' structure before the cast: ``[whether a tuple, their dtypes]``."""
    def cast(out: Any) -> Any:
        return out.to(like.dtype) if isinstance(out, Tensor) and out.dtype.kind not in "fc" else out

    def wrapped(*xs: Any) -> Any:
        out = func(*xs)
        if seen is not None:
            outs = out if isinstance(out, tuple) else (out,)
            seen[:] = [isinstance(out, tuple), [o.dtype for o in outs if isinstance(o, Tensor)]]
        return tuple(cast(o) for o in out) if isinstance(out, tuple) else cast(out)

    return wrapped


def _in_output_dtypes(jac: Any, seen: list) -> Any:
    """A forward-mode Jacobian's blocks in their output's dtype, an integer or bool output's too (its
    zeros): PyTorch's forward mode differentiates each output's tangent, of the output's dtype, where
    reverse mode's blocks are the input's dtype."""
    out_is_tuple, dtypes = seen

    def cast(block: Any, dtype: Any) -> Any:
        return tuple(cast(b, dtype) for b in block) if isinstance(block, tuple) else block.to(dtype)

    rows = tuple(cast(r, d) for r, d in zip(jac if out_is_tuple else (jac,), dtypes))
    return rows if out_is_tuple else rows[0]


# ---------------------------------------------------------------------------
# strict=True: PyTorch's independence checks
# ---------------------------------------------------------------------------
_INDEPENDENT_OF_INPUT = ("While computing the hessian, found that the jacobian of the user-provided function with "
                         "respect to input {j} is independent of the input. This is not allowed in strict mode. You "
                         "should ensure that your function is twice differentiable and that the jacobian depends on "
                         "the inputs (this would be violated by a linear function for example).")


def _strict_run(func: Callable, args: tuple) -> tuple[list[Tensor], list[Tensor]]:
    """``func`` on fresh leaves that require grad; every output must require grad."""
    with enable_grad():
        xs = [a.detach().requires_grad_() for a in args]
        out = func(*xs)
    outs = [out] if isinstance(out, Tensor) else list(out)
    _outputs_require_grad(outs)
    return xs, outs


def _outputs_require_grad(outs: Any) -> None:
    """PyTorch's first strict check, on ``func``'s outputs (a Tensor or a tuple of them)."""
    for i, o in enumerate((outs,) if isinstance(outs, Tensor) else outs):
        if not (isinstance(o, Tensor) and o.requires_grad):
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               f"must be computed in a differentiable manner from the input when running in strict "
                               f"mode.")


def _grads(outs: list[Tensor], xs: list[Tensor], graph: bool) -> tuple:
    """The pullback of all ``outs`` together (seeds of ones) to ``xs``: ``None`` for an input it does not reach."""
    with enable_grad():
        return _engine_grad(outs, xs, grad_outputs=[ones_like(o) for o in outs], retain_graph=True,
                            create_graph=graph, allow_unused=True)


def _check_strict(func: Callable, args: tuple, kind: str, create_graph: bool = False) -> None:
    """Raise PyTorch's strict-mode error if an output (``kind`` "jacobian": each output row by row;
    "vjp": the pullback of all outputs together, as PyTorch's, so an input that only some outputs
    depend on is allowed) or the gradient (``kind`` "hessian", "hvp") is independent of an input."""
    xs, outs = _strict_run(func, args)
    if kind == "jacobian":
        _check_strict_rows(outs, xs, create_graph)
        return
    gs = _grads(outs, xs, graph=kind != "vjp")
    for j, g in enumerate(gs):
        # vjp, hvp and vhp check the gradient itself (PyTorch's _check_requires_grad of it): an input
        # it does not reach is named as such; hessian's inner Jacobian has filled in zeros by then
        if kind in ("vjp", "hvp") and g is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {j}. This is "
                               f"not allowed in strict mode.")
        if kind in ("hessian", "hvp") and (g is None or not g.requires_grad):
            raise RuntimeError(_INDEPENDENT_OF_INPUT.format(j=j))
    if kind == "hessian":  # the outer Jacobian's own checks: each gradient against each input
        _check_strict_rows(list(gs), xs, create_graph)


def _check_strict_rows(outs: list[Tensor], xs: list[Tensor], create_graph: bool) -> None:
    """PyTorch's reverse-mode Jacobian's checks, row by row (one backward per output element), in
    its order and words: a row must reach every input, and with ``create_graph`` depend on the
    inputs (a linear function's does not; PyTorch's words name the output's index)."""
    for i, o in enumerate(outs):
        for r in range(o.numel()):
            with enable_grad():
                row = _engine_grad([o.reshape(-1)[r]], xs, retain_graph=True, create_graph=create_graph,
                                   allow_unused=True)
            for j, g in enumerate(row):
                if g is None:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                       f"This is not allowed in strict mode.")
                if create_graph and not g.requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       f"This is not allowed in strict mode when create_graph=True.")


def _check_strict_jvp(func: Callable, args: tuple, create_graph: bool) -> None:
    """PyTorch's strict checks of its double-backward ``jvp``, in its words: every output requires
    grad, the pullback of all outputs together reaches every input and depends on the seeds, and
    every output's seed reaches an input (checked on the pass itself, not output by output), and
    with ``create_graph`` each product depends on the inputs (it does not for a linear output)."""
    xs, outs = _strict_run(func, args)
    with enable_grad():
        seeds = [zeros_like(o).requires_grad_() for o in outs]
        gs = _engine_grad(outs, xs, grad_outputs=seeds, retain_graph=True, create_graph=True, allow_unused=True)
        for j, g in enumerate(gs):
            if g is None:
                raise RuntimeError(f"The output of the user-provided function is independent of input {j}. This is "
                                   f"not allowed in strict mode.")
            if not g.requires_grad:
                raise RuntimeError(f"The gradient with respect to input {j} is independent of the inputs of the "
                                   f"user-provided function. This is not allowed in strict mode.")
        back = _engine_grad(list(gs), seeds, grad_outputs=[ones_like(g) for g in gs], create_graph=create_graph,
                            allow_unused=True)
    for i, b in enumerate(back):
        if b is None:
            raise RuntimeError(f"The gradient with respect to the input is independent of entry {i} in the "
                               f"grad_outputs when using the double backward trick to compute forward mode "
                               f"gradients. This is not allowed in strict mode.")
        if create_graph and not b.requires_grad:
            raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is "
                               f"not allowed in strict mode when create_graph=True.")


def _strict_on_a_graph(result: Any, strict: bool, create_graph: bool, what: str) -> Any:
    """PyTorch's last strict check of ``vjp``, ``hvp`` and ``vhp`` with ``create_graph``: each
    input's derivative (``what``) must depend on the inputs -- require grad -- since a constant one
    cannot be differentiated further (a linear ``func``'s Jacobian, a quadratic one's Hessian)."""
    if strict and create_graph:
        for i, r in enumerate(result if isinstance(result, tuple) else (result,)):
            if not r.requires_grad:
                raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                                   f"not allowed in strict mode when create_graph=True.")
    return result


_STRATEGY_HINT = (' Hint: If your function has more outputs than inputs, "forward-mode" tends to be more '
                  'performant. Otherwise, prefer to use "reverse-mode".')


def _refuse_unsupported(strict: bool, vectorize: bool, strategy: str, create_graph: bool, hint: str = "") -> None:
    """PyTorch's refusals of a Jacobian's options, in its order and words: the strategy's name first
    (a misspelt one is not read as "reverse-mode"), then what its forward mode does not offer --
    ``create_graph``, ``strict``, and anything but ``vectorize=True`` -- or, in reverse mode,
    ``strict`` with ``vectorize``."""
    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode".' + hint)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and `strategy='
                                      '"forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                               'are not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")  # (sic: torch 2.13's words)
    elif strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")


def _validated_v(v: Any, like: tuple, like_is_tuple: bool, what: str) -> tuple:
    """``v`` as a tuple matching ``like`` (the inputs, or vjp's outputs) one to one in size: PyTorch's
    ``_as_tuple(v, "v", ...)`` and ``_validate_v``, their checks and words.  A single Tensor is one
    vector, never a stack of several (``tuple(v)`` would read its rows as the vectors of several inputs)."""
    _check_tensor_or_tuple(v, f"v given to {what}", "v")
    vs = v if isinstance(v, tuple) else (v,)
    if len(vs) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(vs)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el, other) in enumerate(zip(vs, like)):
        if tuple(el.shape) != tuple(other.shape):
            entry = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {other.size()} but got {el.size()}.")
    return vs


def _in_input_dtypes(vs: tuple, args: tuple) -> tuple:
    """``v`` in its input's dtype, as PyTorch's double-backward ``jvp`` and ``hvp`` take it: ``v`` is
    the grad_outputs of their last backward pass, which autograd casts to the gradient's dtype (a
    float32 ``v`` of a float64 input gives a float64 product; ``linearize``'s ``jvp_fn``, whose
    check is torch.func's, refuses the mismatch).  A complex ``v`` of a real input is autograd's
    refusal: the cast would drop its imaginary part."""
    out = []
    for i, (t, a) in enumerate(zip(vs, args)):
        if t.dtype.kind == "c" and a.dtype.kind != "c":  # (torch 2.13's words)
            raise ComplexRefused(f"For complex Tensors, both grad_output and output are required to have the same "
                                 f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {t.dtype} and "
                                 f"output[{i}] has a dtype of {a.dtype}.")
        out.append(t if t.dtype == a.dtype else t.to(a.dtype))  # (recorded: with create_graph v gets a gradient)
    return tuple(out)


def _default_v(v: Any, args: tuple) -> Any:
    """PyTorch's rule for a left-out ``v`` of jvp/hvp/vhp: only a single one-element input."""
    if v is not None:
        return v
    if len(args) != 1 or args[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    return ones_like(args[0])


def _scalar_output(func: Callable, what: str, strict: bool, squeeze: bool = False) -> Callable:
    """``func`` refusing anything but one Tensor of one element, with PyTorch's words and in its
    order: with ``strict``, outputs that do not require grad first; then a tuple (even of one
    Tensor), then more than one element.  ``squeeze``: the output as a 0-d tensor (PyTorch's
    hessian squeezes it, so its Hessian is input by input)."""
    def checked(*xs: Any) -> Any:
        out = func(*xs)
        if strict:
            _outputs_require_grad(out)
        if not isinstance(out, Tensor):
            raise RuntimeError(f"The function given to {what} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {what} should contain a single element")
        return out.reshape(()) if squeeze else out

    return checked


@_grad_mode_on
def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """d func(inputs) / d inputs, of shape ``output.shape + input.shape`` (PyTorch's)."""
    _refuse_unsupported(strict, vectorize, strategy, create_graph, _STRATEGY_HINT)
    single, args = _as_tuple(inputs, create_graph, "jacobian", leaves=strategy == "reverse-mode")
    func = _not_a_transform(func, "jacobian")
    if strict:
        _check_strict(func, args, "jacobian", create_graph)
    if strategy == "reverse-mode":
        with writable_arguments(inputs if create_graph else ()):
            return _finish(_func.jacrev(_float_outputs(func, args[0]), _argnums(single, len(args)))(*args),
                           create_graph)
    seen: list = []  # (forward mode: neither create_graph nor strict)
    jac = _func.jacfwd(_float_outputs(func, args[0], seen), _argnums(single, len(args)))(*args)
    return _forward_mode_lists(_in_output_dtypes(_finish(jac, False), seen), single)


@_grad_mode_on
def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: ``input.shape + input.shape`` (for a tuple of inputs, a
    tuple of tuples, block ``[i][j]`` for inputs ``i`` and ``j``)."""
    _refuse_unsupported(strict, vectorize, outer_jacobian_strategy, create_graph)
    single, args = _as_tuple(inputs, create_graph, "hessian")
    func = _scalar_output(_not_a_transform(func, "hessian"), "hessian", strict, squeeze=True)
    if strict:
        _check_strict(func, args, "hessian", create_graph)
    scalar, argnums = _float_outputs(func, args[0]), _argnums(single, len(args))
    # PyTorch's Hessian is the outer Jacobian (of the strategy asked for) of the reverse-mode
    # gradient: by default reverse over reverse, so a Function without a jvp rule works.
    outer = _func.jacfwd if outer_jacobian_strategy == "forward-mode" else _func.jacrev
    hess = outer(_func.jacrev(scalar, argnums), argnums)
    with writable_arguments(inputs if create_graph else ()):
        hess = _finish(hess(*args), create_graph)
    return _forward_mode_lists(hess, single) if outer_jacobian_strategy == "forward-mode" else hess


@_grad_mode_on
def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``; ``v`` may be left out for a scalar output (it is 1)."""
    single, args = _as_tuple(inputs, create_graph, "vjp")
    func = _not_a_transform(func, "vjp")
    if strict:
        _check_strict(func, args, "vjp")
    returned: list = []

    def kept(*xs: Any) -> Any:  # integer outputs are handed back as func returned them
        returned.append(func(*xs))
        return returned[-1]

    with writable_arguments(inputs if create_graph else ()):
        _, pullback = _func.vjp(_float_outputs(kept, args[0]), *args)
    out = returned[-1]
    if v is None:
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        v = ones_like(out)
    else:
        outs = (out,) if isinstance(out, Tensor) else tuple(out)
        vs = _validated_v(v, outs, not isinstance(out, Tensor), "vjp")
        v = vs[0] if isinstance(out, Tensor) else vs
    grads = pullback(v)
    grads = _strict_on_a_graph(grads[0] if single else tuple(grads), strict, create_graph, "jacobian")
    return _finish(out, create_graph), _finish(grads, create_graph)


@_grad_mode_on
def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), J v)`` (``v`` may be left out for a single-element input)."""
    single, args = _as_tuple(inputs, create_graph, "jvp")
    func = _not_a_transform(func, "jvp")
    if strict:
        _check_strict_jvp(func, args, create_graph)
    tangents = _in_input_dtypes(_validated_v(_default_v(v, args), args, not single, "jvp"), args)
    # PyTorch's jvp is the double-backward trick, not forward mode: the backward pass u -> J^T u,
    # linear in u, differentiated once more (``linearize``), so only backward rules are needed;
    # a write into an input is refused, as by PyTorch's leaves.
    out, jvp_fn = linearized(func, args, has_aux=False, kwargs={}, argument_writes=False)
    if any(o.dtype.kind not in "fc" for o in ((out,) if isinstance(out, Tensor) else out)):
        # (the trick's seed is a zeros_like of each output that requires grad: torch 2.13's words)
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(out, create_graph), _finish(jvp_fn(*tangents), create_graph)


@_grad_mode_on
def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), H v)`` for a scalar ``func``."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


@_grad_mode_on
def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), v^T H)`` for a scalar ``func`` (PyTorch's; ``H`` is symmetric for a twice
    continuously differentiable ``func``, so it equals :func:`hvp`'s product)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def _hessian_product(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, what: str) -> tuple:
    single, args = _as_tuple(inputs, create_graph, what)
    func = _scalar_output(_not_a_transform(func, what), what, strict)
    if strict:
        _check_strict(func, args, "hvp")
    tangents = _in_input_dtypes(_validated_v(_default_v(v, args), args, not single, what), args)

    def gradient_and_value(*xs: Any) -> tuple:  # the value rides along as aux, in its own shape
        out = func(*xs)
        return out.reshape(()), out  # (PyTorch's hvp takes any one-element output; mg.func.grad a 0-d one)

    gradient = _func.grad(gradient_and_value, tuple(range(len(args))), has_aux=True)
    # PyTorch's: vhp is reverse over reverse (v^T H), hvp the double-backward trick on the gradient
    # (H v) -- backward rules only, so a Function without a jvp rule works in both; a write into
    # an input is refused, as by PyTorch's leaves.
    if what == "vhp":
        _, pullback, out = _func.vjp(gradient, *args, has_aux=True)
        hv = pullback(tangents)
    else:
        _, jvp_fn, out = linearized(gradient, args, has_aux=True, kwargs={}, argument_writes=False)
        hv = jvp_fn(*tangents)
    hv = _strict_on_a_graph(hv[0] if single else tuple(hv), strict, create_graph, "hessian")
    return _finish(out, create_graph), _finish(hv, create_graph)
