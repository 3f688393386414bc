"""``mg.autograd``: PyTorch's ``torch.autograd`` names, so that a program ported by the rename
(``torch.autograd.grad(...)`` -> ``mg.autograd.grad(...)``) finds them.

Everything here is the engine's own function under PyTorch's path: :func:`grad` (also
``mg.grad``; PyTorch's deprecated ``only_inputs=`` is taken and, as there, has no effect),
:func:`backward`, the grad-mode switches, anomaly detection, and :mod:`.functional`
(``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp`` with PyTorch's calling convention, on top of
:mod:`minigrad_ckpt.func`), and custom functions: :class:`Function`, its ``ctx`` and
:func:`once_differentiable` (:mod:`.function`, also under PyTorch's path ``mg.autograd.function``),
and PyTorch's :func:`gradcheck` / :func:`gradgradcheck` (:mod:`.gradcheck`), and forward mode's
dual numbers (:mod:`.forward_ad`: ``dual_level``, ``make_dual``, ``unpack_dual``); PyTorch's deprecated
:class:`Variable` (:mod:`.variable`), which returns a tensor; and :mod:`.graph`'s hooks on the values
the tape saves (``saved_tensors_hooks``, ``save_on_cpu``).
"""

from __future__ import annotations

from typing import Any

from ..anomaly import detect_anomaly, set_detect_anomaly
from ..backward import _gradients_for
from ..backward import backward as _engine_backward
from ..backward import grad as _engine_grad
from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from ..tensor import Tensor
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import is_multithreading_enabled, set_multithreading_enabled
from .gradcheck import gradcheck, gradgradcheck  # the functions; the module stays importable by path
from .variable import Variable

__all__ = ["grad", "backward", "functional", "forward_ad", "function", "graph", "Function", "FunctionCtx",
           "once_differentiable", "gradcheck", "gradgradcheck",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "set_multithreading_enabled", "is_multithreading_enabled",
           "detect_anomaly", "set_detect_anomaly", "Variable"]


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """PyTorch's ``torch.autograd.grad``: d(outputs)/d(inputs), no ``.grad`` touched (see
    :func:`minigrad_ckpt.grad`).  ``materialize_grads=True`` gives zeros, not None, for an input
    the outputs do not depend on (and implies ``allow_unused``), as PyTorch's: with ``create_graph``
    new leaves that require grad.
    ``is_grads_batched=True``: the first dim of each ``grad_outputs`` is a batch of cotangents, and
    each gradient has that batch dim in front (``grad(y, x, eye(n), is_grads_batched=True)`` is the
    Jacobian of ``y``, row by row).  An input or output may be a ``graph.GradientEdge`` (``get_gradient_edge``)."""
    del only_inputs  # PyTorch: "deprecated and is ignored now (defaults to True)"
    one = not isinstance(inputs, (list, tuple)) or isinstance(inputs, graph.GradientEdge)  # (an edge is a tuple)
    given = [inputs] if one else list(inputs)
    outputs, inputs = graph.edges_as_tensors(outputs), graph.edges_as_tensors(inputs)  # (get_gradient_edge's)
    if materialize_grads and allow_unused is False:
        raise ValueError("grad: materialize_grads=True needs allow_unused to be None or True")
    allow = bool(allow_unused) or materialize_grads
    if isinstance(inputs, (list, tuple)) and not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")  # PyTorch's check
    if is_grads_batched:
        grads = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow)
    else:
        grads = _engine_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow)
    if materialize_grads:
        from ..creation import zeros_like

        listed = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
        # PyTorch refuses only an unused edge: there is no tensor to shape its zeros after
        if any(g is None and graph.holds_an_edge([e]) for g, e in zip(grads, given)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        # with create_graph a zero that requires grad, as PyTorch's (a penalty on the gradients can backward)
        grads = tuple(zeros_like(x, requires_grad=create_graph) if g is None else g for g, x in zip(grads, listed))
    return grads


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
    """PyTorch's ``torch.autograd.backward``: accumulate d(tensors)/d(leaf) into ``.grad`` (see
    :func:`minigrad_ckpt.backward`).  ``tensors`` and ``inputs`` may hold a ``graph.GradientEdge``
    (``get_gradient_edge``), as :func:`grad`'s; ``grad_variables`` is PyTorch's deprecated name of
    ``grad_tensors``."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    tensors = graph.edges_as_tensors(tensors)
    if inputs is not None:
        inputs = graph.edges_as_tensors(inputs)
    _engine_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=inputs)


def _batched_grad(outputs: Any, inputs: Any, grad_outputs: Any, retain_graph: bool | None, create_graph: bool,
                  allow_unused: bool) -> tuple:
    """``is_grads_batched=True``: one gradient per element of the cotangents' first dim, stacked
    (PyTorch maps its vjp with vmap; here one pass per element, the graph kept until the last)."""
    from ..functional.shape import stack

    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    cots = _gradients_for(outs, grad_outputs) or [None] * len(outs)
    for o, c in zip(outs, cots):
        if not isinstance(c, Tensor) or c.ndim == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input "
                             "is not a Tensor with a batch dimension (is_grads_batched=True needs grad_outputs)")
        if tuple(c.shape[1:]) != tuple(o.shape):
            raise RuntimeError(f"If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                               f"as the batch dimension. The sizes of the remaining dimensions are expected to "
                               f"match the shape of corresponding output, but a mismatch was detected: grad_output "
                               f"has a shape of {list(c.shape)} and output has a shape of {list(o.shape)}.")
    sizes = [c.shape[0] for c in cots]
    if len(set(sizes)) != 1 or sizes[0] == 0:
        raise ValueError(f"vmap: Expected all tensors to have the same nonzero size in the mapped dimension, got "
                         f"sizes {sizes} for the mapped dimension")
    keep = create_graph if retain_graph is None else retain_graph
    per_element = [_engine_grad(outs, inputs, [c[b] for c in cots], True if b < sizes[0] - 1 else keep,
                                create_graph, allow_unused) for b in range(sizes[0])]
    return tuple(None if g is None else stack([p[i] for p in per_element]) for i, g in enumerate(per_element[0]))
