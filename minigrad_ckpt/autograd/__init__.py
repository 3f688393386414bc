"""``mg.autograd``: PyTorch's ``torch.autograd`` names, so that a program ported by the rename
(``torch.autograd.grad(...)`` -> ``mg.autograd.grad(...)``) finds them.

Everything here is the engine's own function under PyTorch's path: :func:`grad` (also
``mg.grad``; PyTorch's deprecated ``only_inputs=`` is taken and, as there, has no effect),
:func:`backward`, the grad-mode switches, anomaly detection, and :mod:`.functional`
(``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp`` with PyTorch's calling convention, on top of
:mod:`minigrad_ckpt.func`), and custom functions: :class:`Function`, its ``ctx`` and
:func:`once_differentiable` (:mod:`.function`, also under PyTorch's path ``mg.autograd.function``),
and PyTorch's :func:`gradcheck` / :func:`gradgradcheck` (:mod:`.checks`), and forward mode's
dual numbers (:mod:`.forward_ad`: ``dual_level``, ``make_dual``, ``unpack_dual``).
"""

from __future__ import annotations

from typing import Any

from ..anomaly import detect_anomaly, set_detect_anomaly
from ..backward import backward
from ..backward import grad as _engine_grad
from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import forward_ad, function, functional
from .checks import gradcheck, gradgradcheck
from .function import Function, FunctionCtx, once_differentiable

__all__ = ["grad", "backward", "functional", "forward_ad", "function", "Function", "FunctionCtx", "once_differentiable",
           "gradcheck", "gradgradcheck",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "detect_anomaly", "set_detect_anomaly"]


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple:
    """PyTorch's ``torch.autograd.grad``: d(outputs)/d(inputs), no ``.grad`` touched (see
    :func:`minigrad_ckpt.grad`).  ``materialize_grads=True`` gives zeros, not None, for an input
    the outputs do not depend on (and implies ``allow_unused``), as PyTorch's."""
    del only_inputs  # PyTorch: "deprecated and is ignored now (defaults to True)"
    if materialize_grads and allow_unused is False:
        raise ValueError("grad: materialize_grads=True needs allow_unused to be None or True")
    allow = bool(allow_unused) or materialize_grads
    grads = _engine_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow)
    if materialize_grads:
        from ..creation import zeros_like

        listed = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
        grads = tuple(zeros_like(x) if g is None else g for g, x in zip(grads, listed))
    return grads
