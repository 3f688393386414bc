"""``mg.autograd.gradcheck`` and ``gradgradcheck``: PyTorch's gradient checks under PyTorch's
path (``from minigrad_ckpt.autograd.gradcheck import gradcheck, GradcheckError``, as
``torch.autograd.gradcheck``'s), names and keywords (``check_forward_ad=``, ``check_backward_ad=``,
...), on top of the engine's own :mod:`minigrad_ckpt.testing.gradcheck` -- the check a ported test of a custom
``autograd.Function`` calls::

    assert mg.autograd.gradcheck(MyFunction.apply, (x,), eps=1e-6, atol=1e-4)

As PyTorch's, every element is compared by central differences, one at a kink too (the
engine's own check's ``kinks="compare"``): ``abs`` at 0 passes (both sides give 0, as its
gradient), ``relu`` at 0 fails (1/2 against 0); a mismatch raises (``raise_exception=True``) or
returns False.  ``check_batched_grad`` / ``check_batched_forward_grad`` are PyTorch's checks that
a backward (a forward-mode derivative) gives under ``mg.vmap`` what it gives one cotangent (tangent)
at a time -- for two random ones, compared with ``allclose`` -- with PyTorch's messages
(:func:`_batched_backward_agrees`).  ``masked=`` is taken: it
changes how PyTorch compares sparse tensors, and every tensor here is dense.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ..user_frame import stacklevel_outside_the_engine

__all__ = ["gradcheck", "gradgradcheck"]  # and GradcheckError (module __getattr__)


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """PyTorch's ``torch.autograd.gradcheck``: the derivatives of ``func`` at ``inputs`` (those
    that require grad) against central differences -- backward (``check_backward_ad``) and
    forward mode (``check_forward_ad``, through each op's or custom function's ``jvp``).
    As PyTorch's, backward must give zero gradients for zero upstream gradients ("backward not
    multiplied by grad_output").  ``check_undefined_grad`` (PyTorch's): backward with no
    gradient for any output (then, of several, for each in turn) must run and give no gradient or
    zeros -- a custom Function after ``ctx.set_materialize_grads(False)`` gets None and must handle it.
    ``check_grad_dtypes`` is taken: every gradient's dtype is checked to be its input's.  Outputs whose
    shape or dtype change when an input is perturbed are refused (PyTorch's AssertionError), and fast
    mode runs backward twice, as the full check does (``nondet_tol``: "Backward is not reentrant").
    As PyTorch's, outputs that do not require grad are left out
    while another one does (:func:`_differentiable_outputs_only`)."""
    from ..testing.gradcheck import gradcheck as engine_gradcheck

    del masked  # only sparse tensors' comparison depends on it (PyTorch's); every tensor here is dense
    modes = _modes(check_backward_ad, check_forward_ad)
    if not modes:  # a check of nothing would pass everything: PyTorch's refusal
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    _refuse_check_without_its_mode(check_batched_grad and not check_backward_ad, "check_batched_grad",
                                     "check_backward_ad")
    _refuse_check_without_its_mode(check_batched_forward_grad and not check_forward_ad,
                                     "check_batched_forward_grad", "check_forward_ad")
    _refuse_overlapping_inputs(inputs)
    picked, none_differentiable = _differentiable_outputs_only(_perturbing_the_inputs(func, inputs), inputs)
    with _pytorchs_headline(none_differentiable):
        ok = engine_gradcheck(picked, inputs, eps, atol, rtol, raise_exception, nondet_tol, modes=modes,
                              fast_mode=fast_mode, kinks="compare")
    if ok and check_batched_forward_grad:
        ok = _or_false(_batched_forward_agrees, func, inputs, raise_exception=raise_exception)
    if ok and check_batched_grad:
        ok = _or_false(_batched_backward_agrees, func, inputs, raise_exception=raise_exception)
    if ok and check_undefined_grad and check_backward_ad:
        ok = _undefined_output_grads_handled(picked, inputs, raise_exception)
    return ok


class _NoGradient:
    """An identity whose backward sends nothing on: what PyTorch's ``UndefinedGrad`` node does, the
    output before it reached by no gradient (the custom Function class is made on first use)."""

    made: Any = None

    @classmethod
    def apply(cls, t: Any) -> Any:
        if cls.made is None:
            from .function import Function

            class NoGradient(Function):
                @staticmethod
                def forward(ctx: Any, x: Any) -> Any:
                    return x.clone()

                @staticmethod
                def backward(ctx: Any, g: Any) -> Any:
                    return None

            cls.made = NoGradient
        return cls.made.apply(t)


def _undefined_output_grads_handled(func: Callable, inputs: Any, raise_exception: bool) -> bool:
    """PyTorch's ``check_undefined_grad``: backward run with every output's gradient left undefined
    (then, of several outputs, one at a time) must not fail, and must give each input no gradient or
    zeros.  Only a custom Function can tell (the engine's ops get no call without a gradient): one
    after ``set_materialize_grads(False)`` receives None and must handle it."""
    from ..backward import grad
    from ..grad_mode import enable_grad
    from ..tensor import Tensor
    from ..testing.gradcheck import GradcheckError

    args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [x for x in args if isinstance(x, Tensor) and x.requires_grad]

    def outputs() -> list:
        with enable_grad():
            out = func(*args)
        out = out if isinstance(out, (tuple, list)) else (out,)
        return [o for o in out if isinstance(o, Tensor) and o.requires_grad]

    n = len(outputs())
    for left_out in [range(n)] + ([[i] for i in range(n)] if n > 1 else []):
        cut = [_NoGradient.apply(o) if i in left_out else o for i, o in enumerate(outputs())]
        if not cut:
            return True
        try:
            with enable_grad():
                gs = grad(cut, wrt, grad_outputs=[o.detach() * 0 for o in cut], allow_unused=True)
        except RuntimeError as e:
            _warn_new_check()
            if not raise_exception:
                return False
            raise GradcheckError("Expected backward function to handle undefined output grads. Please look at "
                                 "'Notes about undefined output gradients' in tools/autograd/derivatives.yaml") from e
        if any(g is not None and bool((g != 0).any()) for g in gs):
            _warn_new_check()
            if not raise_exception:
                return False
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                 "undefined or zero. Please look at 'Notes about undefined output gradients' in "
                                 "tools/autograd/derivatives.yaml")
    return True


def _warn_new_check() -> None:
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, "
                  "but it may break existing callers of this function. If this is true for you, you can call this "
                  'function with "check_undefined_grad=False" to disable the feature',
                  stacklevel=stacklevel_outside_the_engine())


def _differentiable_outputs_only(func: Callable, inputs: Any) -> tuple[Callable, bool]:
    """PyTorch's gradcheck compares the outputs that require grad (``_differentiable_outputs``):
    one marked non-differentiable (``ctx.mark_non_differentiable``), detached or made without grad
    is left out -- unless none requires grad, when every output's numeric derivative must be zero,
    as the engine's check (comparing them all) requires.  The positions are read from one call at
    ``inputs``; forward mode's calls on detached inputs take the same ones.  Also says whether no
    output requires grad (PyTorch's failure then reads "Numerical gradient for function expected to
    be zero")."""
    from ..grad_mode import enable_grad
    from ..tensor import Tensor

    with enable_grad():
        out = func(*(tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)))
    if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
        # one output, or one that is no Tensor (refused by the check)
        return func, isinstance(out, Tensor) and not out.requires_grad
    keep = [i for i, o in enumerate(out) if o.requires_grad]
    if not keep or len(keep) == len(out):
        return func, not keep

    def differentiable_outputs(*args: Any) -> tuple:
        __tracebackhide__ = True
        every = func(*args)
        return tuple(every[i] for i in keep)

    differentiable_outputs.picks_outputs = (func, keep)  # type: ignore[attr-defined]  (a failure's repro script)
    return differentiable_outputs, False


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """PyTorch's ``torch.autograd.gradgradcheck``: second derivatives of ``func`` (the derivatives
    of its backward, ``grad_outputs`` random where not given) against central differences of
    its gradients -- reverse over reverse (``check_rev_over_rev``) and forward over reverse
    (``check_fwd_over_rev``).  Every Jacobian is compared in full (``fast_mode`` is taken)."""
    from ..testing.gradcheck import gradgradcheck as engine_gradgradcheck

    del masked  # dense tensors only (see gradcheck)
    modes = _modes(check_rev_over_rev, check_fwd_over_rev)
    if not modes:
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    _refuse_check_without_its_mode(check_undefined_grad and not check_rev_over_rev, "check_undefined_grad",
                                     "check_rev_over_rev")
    _refuse_check_without_its_mode(check_batched_grad and not check_rev_over_rev, "check_batched_grad",
                                     "check_rev_over_rev")
    if check_batched_grad and grad_outputs is None:  # drawn here, so both checks see the same ones
        grad_outputs = _random_grad_outputs(func, inputs)
    with _pytorchs_headline():
        ok = engine_gradgradcheck(func, inputs, grad_outputs, eps, atol, rtol, raise_exception, nondet_tol,
                                  modes=modes, kinks="compare")
    if ok and check_batched_grad:
        backward, at = _backward_of(func, inputs, grad_outputs)
        ok = _or_false(_batched_backward_agrees, backward, at, raise_exception=raise_exception)
    return ok


@contextlib.contextmanager
def _pytorchs_headline(none_differentiable: bool = False) -> Iterator[None]:
    """A Jacobian mismatch headed with PyTorch's words ("Jacobian mismatch for output 0 with respect to
    input 1"; where no output requires grad, so every derivative must be zero, "Numerical gradient for
    function expected to be zero"), which ported tests match, before the engine's account of the worst
    element."""
    from ..testing.gradcheck import GradcheckError

    try:
        yield
    except GradcheckError as e:
        if e.output is not None and e.input is not None and e.args:
            what = "Jacobian mismatch" if e.mode == "rev" else "Jacobian computed with forward mode mismatch"
            what = ("Numerical gradient for function expected to be zero" if none_differentiable
                    else f"{what} for output {e.output} with respect to input {e.input},")
            e.args = (f"{what}\n{e.args[0]}",)
        raise


def _refuse_overlapping_inputs(inputs: Any) -> None:
    """PyTorch's refusal of an input that requires grad with a dim of stride 0 (an expanded view):
    perturbing one of its elements in place would perturb them all."""
    from ..tensor import Tensor

    for k, x in enumerate(inputs if isinstance(inputs, (tuple, list)) else (inputs,)):
        if isinstance(x, Tensor) and x.requires_grad and any(
                st == 0 and n > 1 for st, n in zip(x.stride(), x.shape)):
            raise RuntimeError(f"The {k}th input has a dimension with stride 0. gradcheck only supports inputs "
                               "that are non-overlapping to be able to compute the numerical gradients correctly. "
                               "You should call .contiguous on the input before passing it to gradcheck.")


def _perturbing_the_inputs(func: Callable, inputs: Any) -> Callable:
    """``func`` as PyTorch's checks run it. PyTorch perturbs the input tensors themselves, in place, so
    a function that reads an input through a closure sees the step too -- a module's parameter
    (``gradcheck(lambda w: m(x), (m.weight,))``, the idiom of PyTorch's own tests), or the input used
    twice (``lambda a: a * w`` of ``(w,)``). The engine's check passes perturbed copies instead: their
    values are written into the inputs they stand for while ``func`` runs (through ``.data``, so no
    version changes under a graph) and the inputs' own values put back after."""
    originals = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)

    @functools.wraps(func)  # a failure's repro script shows the user's function
    def run(*args: Any) -> Any:
        pairs = [(x, a) for x, a in zip(originals, args) if _stands_for(x, a)]
        kept = [x.detach().clone() for x, _ in pairs]
        for x, a in pairs:
            x.data.copy_(a.detach())
        try:
            return func(*args)
        finally:
            for (x, _), value in zip(pairs, kept):
                x.data.copy_(value)

    return run


def _stands_for(x: Any, a: Any) -> bool:
    """Whether ``a`` is the check's copy of input tensor ``x`` (a perturbed one, or an unperturbed
    one, whose values are ``x``'s anyway)."""
    from ..tensor import Tensor

    return (isinstance(x, Tensor) and isinstance(a, Tensor) and a is not x and x.requires_grad
            and a.shape == x.shape and a.dtype == x.dtype)


def _modes(reverse: bool, forward: bool) -> tuple[str, ...]:
    return (("rev",) if reverse else ()) + (("fwd",) if forward else ())


def _refuse_check_without_its_mode(refused: bool, check: str, mode: str) -> None:
    if refused:  # PyTorch's AssertionError: the check (batched, undefined grads) runs in the mode it needs
        raise AssertionError(f"Setting {check}=True requires {mode} to be True")


_BATCHED_HOWTO = """If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `{flag}=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `{flag}=False`{more}."""

# PyTorch's FAILED_BATCHED_GRAD_MSG and FAILED_BATCHED_GRAD_MSG_FWD_AD, word for word
_FAILED_BATCHED_GRAD = ("""gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

""" + _BATCHED_HOWTO.format(flag="check_batched_grad", more=" and/or `check_batched_gradgrad=False`") + """

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.""")
_FAILED_BATCHED_FORWARD_GRAD = ("""
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

""" + _BATCHED_HOWTO.format(flag="check_batched_forward_grad", more="") + "\n")


def _or_false(check: Callable, *args: Any, raise_exception: bool) -> bool:
    """``check(*args)`` -- True, or its GradcheckError raised or, as PyTorch's ``raise_exception=False``, False."""
    from ..testing.gradcheck import GradcheckError

    try:
        check(*args)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _tupled(inputs: Any) -> tuple:
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def _batched_backward_agrees(func: Callable, inputs: Any) -> None:
    """PyTorch's ``check_batched_grad``: for each output that requires grad, the backward of two random
    cotangents (normal, as PyTorch's ``randn_like``, from the check's own generator) run under ``mg.vmap``
    must give, within ``allclose``'s default tolerances, what the two give one at a time.  A gradient
    that does not reach an input counts as zeros."""
    from ..backward import grad
    from ..grad_mode import enable_grad
    from ..tensor import Tensor

    args, rng = _tupled(inputs), _own_generator()
    wrt = [x for x in args if isinstance(x, Tensor) and x.requires_grad]
    with enable_grad():
        outs = _tupled(func(*args))
    for k, out in enumerate(o for o in outs if isinstance(o, Tensor) and o.requires_grad):
        def vjp(v: Any, out: Any = out) -> tuple:
            gs = grad(out, wrt, v, retain_graph=True, allow_unused=True)
            return tuple(_zeros_if_none(g, x) for g, x in zip(gs, wrt))

        _vmap_agrees(vjp, [_randn_like(out, rng) for _ in range(2)], k, _FAILED_BATCHED_GRAD, same_index=False)


def _batched_forward_agrees(func: Callable, inputs: Any) -> None:
    """PyTorch's ``check_batched_forward_grad``: for each floating input that requires grad, the
    tangents of every output for two random tangents of it under ``mg.vmap`` against one at a time."""
    from ..tensor import Tensor
    from . import forward_ad as fwAD

    args, rng = _tupled(inputs), _own_generator()
    for k, x in enumerate(args):
        if not (isinstance(x, Tensor) and x.requires_grad and (x.is_floating_point() or x.is_complex())):
            continue

        def jvp(tangent: Any, k: int = k, x: Any = x) -> tuple:
            with fwAD.dual_level():
                dual = fwAD.make_dual(x.detach(), tangent)
                outs = _tupled(func(*(dual if j == k else a.detach() if isinstance(a, Tensor) else a
                                      for j, a in enumerate(args))))
                return tuple(_zeros_if_none(fwAD.unpack_dual(o).tangent, o) for o in outs if o is not None)

        _vmap_agrees(jvp, [_randn_like(x, rng) for _ in range(2)], k, _FAILED_BATCHED_FORWARD_GRAD, same_index=True)


def _vmap_agrees(f: Callable, vs: list, k: int, failed: str, same_index: bool) -> None:
    """``mg.vmap(f)`` of the stacked ``vs`` against ``f`` of each, in PyTorch's words where they differ
    (``same_index``: PyTorch's forward check names the input as both output and input)."""
    import warnings

    from ..func import vmap
    from ..functional.shape import stack
    from ..testing.gradcheck import GradcheckError

    expected = [stack(shards) for shards in zip(*(f(v) for v in vs))]
    with warnings.catch_warnings():
        try:
            result = vmap(f)(stack(vs))
        except RuntimeError as e:
            raise GradcheckError(f"While computing batched gradients, got: {e}\n\n{failed}") from e
    for j, (res, exp) in enumerate(zip(result, expected)):
        if not bool(res.allclose(exp)):
            raise GradcheckError(f"For output {k if not same_index else j} and input {k if same_index else j}:"
                                 f"\n\n{failed.strip() if not same_index else failed}\n\nGot:\n{res}\n\n"
                                 f"Expected:\n{exp}")


def _zeros_if_none(g: Any, like: Any) -> Any:
    from ..creation import zeros

    return g if g is not None else zeros((), dtype=like.dtype, device=like.device).expand(like.shape)


def _randn_like(t: Any, generator: Any) -> Any:
    from ..creation import randn

    return randn(tuple(t.shape), dtype=t.dtype, device=t.device, generator=generator)


def _own_generator() -> Any:
    """The batched checks' random cotangents and tangents: drawn from a generator of their own, seeded,
    so a check leaves the program's random stream where it was (PyTorch's ``randn_like`` draws from
    the global one) and fails the same way each run."""
    from ..random import Generator

    return Generator().manual_seed(0)


def _random_grad_outputs(func: Callable, inputs: Any) -> tuple:
    """PyTorch's ``gradgradcheck`` cotangents: uniform in [-1, 1) (each part of a complex one), as its
    ``make_tensor(low=-1, high=1)``, of each output requiring grad -- from the check's own generator."""
    from ..creation import rand
    from ..grad_mode import enable_grad
    from ..tensor import Tensor

    rng = _own_generator()
    with enable_grad():
        outs = _tupled(func(*_tupled(inputs)))
    return tuple((rand(tuple(o.shape), dtype=o.dtype if o.is_floating_point() or o.is_complex() else "float64",
                       device=o.device, generator=rng) * 2 - (1 + 1j if o.is_complex() else 1)).requires_grad_()
                 for o in outs if isinstance(o, Tensor) and o.requires_grad)


def _backward_of(func: Callable, inputs: Any, grad_outputs: Any) -> tuple[Callable, tuple]:
    """PyTorch's ``gradgradcheck`` function: ``(*inputs, *grad_outputs) -> grad(func(*inputs), wrt,
    grad_outputs, create_graph=True)``, the gradients that reach an input, and where to check it."""
    from ..backward import grad
    from ..grad_mode import enable_grad
    from ..tensor import Tensor

    args, vs = _tupled(inputs), _tupled(grad_outputs)
    n = len(args)

    def backward(*xs: Any) -> tuple:
        with enable_grad():
            outs = [o for o in _tupled(func(*xs[:n])) if isinstance(o, Tensor) and o.requires_grad]
            wrt = [x for x in xs[:n] if isinstance(x, Tensor) and x.requires_grad]
            gs = grad(outs, wrt, list(xs[n:]), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return backward, args + vs


def __getattr__(name: str) -> Any:
    # GradcheckError from the engine's check, imported when asked for (as the checks import it):
    # mg.autograd is imported with the package, mg.testing only when used
    if name == "GradcheckError":
        from ..testing.gradcheck import GradcheckError

        return GradcheckError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
