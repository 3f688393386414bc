"""``mg.autograd.gradcheck`` and ``gradgradcheck``: PyTorch's gradient checks under PyTorch's
path (``from minigrad_ckpt.autograd.gradcheck import gradcheck, GradcheckError``, as
``torch.autograd.gradcheck``'s), names and keywords (``check_forward_ad=``, ``check_backward_ad=``,
...), on top of the engine's own :mod:`minigrad_ckpt.testing.gradcheck` -- the check a ported test of a custom
``autograd.Function`` calls::

    assert mg.autograd.gradcheck(MyFunction.apply, (x,), eps=1e-6, atol=1e-4)

As PyTorch's, every element is compared by central differences, one at a kink too (the
engine's own check's ``kinks="compare"``): ``abs`` at 0 passes (both sides give 0, as its
gradient), ``relu`` at 0 fails (1/2 against 0); a mismatch raises (``raise_exception=True``) or
returns False.  Checks PyTorch
makes with ``vmap`` (``check_batched_grad``, ``check_batched_forward_grad``) have no
counterpart here: asking for them is a ``NotImplementedError``.  ``masked=`` is taken: it
changes how PyTorch compares sparse tensors, and every tensor here is dense.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    multiplied by grad_output").  ``check_undefined_grad`` and ``check_grad_dtypes`` are taken:
    the Jacobians run backward one output at a time (the others' gradients left out: zeros, or None
    for a custom Function after ``ctx.set_materialize_grads(False)``), and every gradient's dtype
    is checked to be its input's.  As PyTorch's, outputs that do not require grad are left out
    while another one does (:func:`_differentiable_outputs_only`)."""
    from ..testing.gradcheck import gradcheck as engine_gradcheck

    del masked  # only sparse tensors' comparison depends on it (PyTorch's); every tensor here is dense
    _refuse_vmap(check_batched_grad or check_batched_forward_grad)
    modes = _modes(check_backward_ad, check_forward_ad)
    if not modes:  # a check of nothing would pass everything: PyTorch's refusal
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    return engine_gradcheck(_differentiable_outputs_only(func, inputs), inputs, eps, atol, rtol, raise_exception,
                            nondet_tol, modes=modes, fast_mode=fast_mode, kinks="compare")


def _differentiable_outputs_only(func: Callable, inputs: Any) -> Callable:
    """PyTorch's gradcheck compares the outputs that require grad (``_differentiable_outputs``):
    one marked non-differentiable (``ctx.mark_non_differentiable``), detached or made without grad
    is left out -- unless none requires grad, when every output's numeric derivative must be zero,
    as the engine's check (comparing them all) requires.  The positions are read from one call at
    ``inputs``; forward mode's calls on detached inputs take the same ones."""
    from ..grad_mode import enable_grad
    from ..tensor import Tensor

    with enable_grad():
        out = func(*(tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)))
    if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
        return func  # one output, or one that is no Tensor (refused by the check)
    keep = [i for i, o in enumerate(out) if o.requires_grad]
    if not keep or len(keep) == len(out):
        return func

    def differentiable_outputs(*args: Any) -> tuple:
        __tracebackhide__ = True
        every = func(*args)
        return tuple(every[i] for i in keep)

    differentiable_outputs.picks_outputs = (func, keep)  # type: ignore[attr-defined]  (a failure's repro script)
    return differentiable_outputs


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
    _refuse_vmap(check_batched_grad)
    modes = _modes(check_rev_over_rev, check_fwd_over_rev)
    if not modes:
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    return engine_gradgradcheck(func, inputs, grad_outputs, eps, atol, rtol, raise_exception, nondet_tol,
                                modes=modes, kinks="compare")


def _modes(reverse: bool, forward: bool) -> tuple[str, ...]:
    return (("rev",) if reverse else ()) + (("fwd",) if forward else ())


def _refuse_vmap(batched: bool) -> None:
    if batched:
        raise NotImplementedError("gradcheck: check_batched_grad / check_batched_forward_grad check derivatives "
                                  "under vmap, which the engine does not offer; leave them False")


def __getattr__(name: str) -> Any:
    # GradcheckError from the engine's check, imported when asked for (as the checks import it):
    # mg.autograd is imported with the package, mg.testing only when used
    if name == "GradcheckError":
        from ..testing.gradcheck import GradcheckError

        return GradcheckError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
