"""``mg.autograd.graph``: PyTorch's hooks on the values the tape saves for backward.

``with saved_tensors_hooks(pack_hook, unpack_hook):`` -- every op recorded inside passes each array it
saves for backward to ``pack_hook`` (as a Tensor sharing the memory) and keeps only what that returns
(any Python object); backward calls ``unpack_hook`` on it for the Tensor to use, each time it reads it.
Nested pairs: the innermost applies.  ``save_on_cpu()`` is the pair that keeps saved values on the CPU
(and moves them back to their device for backward).  Differences: the hooks see the arrays the engine's
ops save, which are not always PyTorch's (``x * 2`` keeps no ``x`` in either; other ops may keep their
output where PyTorch keeps an input).  An op recorded inside a checkpoint segment saves nothing in the
forward pass: the hooks active then (entered inside the checkpointed function or around the call) pack
what the segment's replay recomputes for it, once per replay, so backward reads what it reads without
checkpointing; the values the segment keeps to replay from are not packed (PyTorch's hooks around a
checkpoint pack its inputs, and its replay starts from what unpack returns).  The memory ledger
counts only the values the hooks left as they are: what a pack hook returns is the user's, even where
it shares the saved memory (``lambda t: t``).  ``increment_version(tensor)`` restamps tensors written
where the engine could not see.
``register_multi_grad_hook(tensors, fn, mode=)`` calls ``fn`` once per backward pass: with the gradients
of all the tensors the pass reaches (``"all"``), or with the first of them (``"any"``).  ``Node`` is what
``grad_fn`` and ``next_functions`` hold, for ``isinstance``.  ``get_gradient_edge(t)`` is where ``t``'s
gradient flows (a ``GradientEdge``), which ``mg.autograd.grad`` takes among its inputs and outputs: the gradient
of ``t``'s value then, after an in-place write has moved ``t`` on too.
"""

from __future__ import annotations

import contextlib
import threading
from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from .. import tape
from ..backward import current_pass
from ..tensor import Tensor, _HookHandles

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors",
           "increment_version",
           "register_multi_grad_hook", "Node", "GradientEdge", "get_gradient_edge"]

class _Disabled(threading.local):
    """This thread's error messages of its active disable_saved_tensors_hooks blocks (innermost last):
    per thread, as PyTorch's."""

    def __init__(self) -> None:
        self.messages: list[str] = []


_disabled = _Disabled()


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """A context manager: ``pack_hook(tensor) -> packed`` when an op saves ``tensor`` for backward,
    ``unpack_hook(packed) -> Tensor`` when backward reads it."""

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled.messages:
            raise RuntimeError(_disabled.messages[-1])
        tape.push_saved_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: Any) -> None:
        tape.pop_saved_hooks()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved values kept on the CPU and moved back to their device when backward reads them
    (``pin_memory`` is taken and changes nothing: there is no pinned memory here)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple:
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields (PyTorch's class name): the copies kept for
    backward, by the handle each saved value was packed as; emptied when the block ends."""

    def __init__(self) -> None:
        self.original: dict[int, Tensor] = {}

    def clear(self) -> None:
        self.original.clear()


_mutation_allowed = [False]  # one block at a time, in the whole program, as PyTorch's module flag


def mutation_on_saved_tensors_allowed() -> bool:
    """Whether an :func:`allow_mutation_on_saved_tensors` block is running (a checkpoint recorded
    inside one copies a value it replays from before a write into it, as PyTorch's block does)."""
    return _mutation_allowed[0]

_BACKWARD_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                     "in which the graph was originally recorded.")  # (PyTorch's words, its missing space too)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """PyTorch's ``torch.autograd.graph.allow_mutation_on_saved_tensors``: inside it, a tensor saved for
    backward may be written in place before backward, which then reads the value as it was saved::

        with mg.autograd.graph.allow_mutation_on_saved_tensors():
            a = mg.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()                 # an error at backward without the block
            out.backward()           # a.grad == 2 * ones: b's value before sin_

    Forward and backward must both run inside the block (a backward after it is PyTorch's
    AssertionError), and blocks do not nest (PyTorch's RuntimeError).  PyTorch copies a saved
    tensor when something writes into it; here every saved value is copied as it is saved (a
    pack hook: what is packed is no longer version-checked), so the saved memory is twice what
    it is outside the block, with the same gradients."""
    ctx = _AllowMutationOnSavedContext()

    def pack_hook(t: Tensor) -> int:
        handle = len(ctx.original)
        ctx.original[handle] = t.detach().clone()
        return handle

    def unpack_hook(handle: int) -> Tensor:
        if not _mutation_allowed[0] or handle not in ctx.original:
            raise AssertionError(_BACKWARD_OUTSIDE)
        return ctx.original[handle]

    with saved_tensors_hooks(pack_hook, unpack_hook):
        try:
            if _mutation_allowed[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_allowed[0] = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_allowed[0] = False


class disable_saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """A context manager (or decorator) inside which entering ``saved_tensors_hooks`` is a RuntimeError
    with ``error_message``; entering it where such hooks are active is that error too, as PyTorch's (the
    ops inside would have their values packed by the hooks it means to keep out)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if tape.this_threads_saved_hooks():
            raise RuntimeError(self.error_message)
        _disabled.messages.append(self.error_message)

    def __exit__(self, *args: Any) -> None:
        _disabled.messages.pop()

    def __call__(self, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapped


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """PyTorch's ``torch.autograd.graph.increment_version``: restamp the version of ``tensor`` (or of
    each tensor of an iterable) after a write the engine did not see (a kernel that filled its memory
    in place), so a backward that reads a value saved before the write raises, as after any in-place op."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t.increment_version()


def _running_pass() -> Any:
    bp = current_pass()
    if bp is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return bp


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all") -> _HookHandles:
    """PyTorch's ``torch.autograd.graph.register_multi_grad_hook``.

    ``mode="all"``: ``fn(grads)`` once per backward pass (``backward()`` or ``mg.autograd.grad``), when
    the gradient of every tensor the pass reaches is computed -- ``grads`` a list with one entry per
    tensor, ``None`` for those the pass does not reach (not in its graph, or not needed for the
    ``inputs=`` asked for).  ``mode="any"``: ``fn(grad)`` once per pass, with the first gradient computed
    among the tensors.  The hooks are tensor hooks (``register_hook``) and run where those do; ``fn``
    must not change its arguments.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    key = object()  # this registration's state in each pass (BackwardPass.hook_state)
    if mode == "any":
        def first_only(grad: Tensor) -> None:
            state = _running_pass().hook_state
            if key not in state:
                state[key] = True
                fn(grad)

        return _HookHandles(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))
    # what each tensor's gradient comes to: its node then (a later in-place write moves the tensor on), or the leaf
    edges = [t._node or t for t in tensors]

    def collector(i: int) -> Callable[[Tensor], None]:
        def collect(grad: Tensor) -> None:
            bp = _running_pass()
            if key not in bp.hook_state:  # the first of this pass: how many gradients to wait for
                bp.hook_state[key] = [sum(map(bp.sends_to, edges)), [None] * len(edges)]
            state = bp.hook_state[key]
            state[0] -= 1
            state[1][i] = grad
            if state[0] == 0:
                fn(state[1])
                state[1] = [None] * len(edges)  # (a pass that reaches the hooks again starts afresh)
        return collect

    return _HookHandles(tuple(t.register_hook(collector(i)) for i, t in enumerate(tensors)))


class Node(metaclass=ABCMeta):
    """PyTorch's ``torch.autograd.graph.Node``: the abstract type of what ``grad_fn`` and ``next_functions``
    hold -- the tape's nodes and the ``AccumulateGrad`` of a leaf -- so ``isinstance(t.grad_fn, Node)``
    holds as in PyTorch; the methods are theirs."""

    @abstractmethod
    def name(self) -> str:
        """The node's name (``MulBackward0``, ``torch::autograd::AccumulateGrad``)."""

    @property
    @abstractmethod
    def next_functions(self) -> tuple:
        """``(node, 0)`` for each input."""

    @abstractmethod
    def register_hook(self, fn: Callable) -> Any:
        """A hook after the node's backward."""

    @abstractmethod
    def register_prehook(self, fn: Callable) -> Any:
        """A hook before the node's backward."""


Node.register(tape.Node)
Node.register(tape.AccumulateGrad)


class GradientEdge(NamedTuple):
    """PyTorch's ``torch.autograd.graph.GradientEdge``: where a gradient flows -- ``node`` (a ``grad_fn``, or a
    leaf's ``AccumulateGrad``) and which of its outputs (``output_nr``)."""

    node: Any
    output_nr: int


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """PyTorch's ``torch.autograd.graph.get_gradient_edge``: the edge ``tensor``'s gradient flows along now --
    its ``grad_fn`` (a leaf's ``AccumulateGrad``) and its output number there -- which ``mg.autograd.grad``
    takes in place of the tensor: still the gradient of this value after an in-place write moved it on."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    if tensor._node is None:
        return GradientEdge(tape.AccumulateGrad(tensor), 0)
    return GradientEdge(tensor.grad_fn, tensor.output_nr)


def edge_as_tensor(edge: Any) -> Any:
    """A ``GradientEdge`` as ``mg.grad`` takes it: the leaf of an ``AccumulateGrad``, or a stand-in tensor on the
    node (of its output's shape and dtype, holding no memory of its own); anything else as it is."""
    if not isinstance(edge, GradientEdge):
        return edge
    node, k = edge
    if isinstance(node, tape.AccumulateGrad):
        return node.variable
    if not isinstance(node, tape.Node):
        raise TypeError(f"a GradientEdge's node is a grad_fn or an AccumulateGrad, not a {type(node).__name__}")
    if k != 0 or len(getattr(node.op, "parts", ())) > 1:  # a custom Function's outputs are pieces of its node's
        raise NotImplementedError(f"a GradientEdge to output {k} of {node.name()}, a node of several outputs, is "
                                  f"not offered: differentiate with respect to that output's tensor")
    return Tensor.standing_for(node)


def holds_an_edge(tensors: Any) -> bool:
    """Whether ``mg.autograd.grad``'s inputs (or outputs) are, or hold, a ``GradientEdge``."""
    return isinstance(tensors, GradientEdge) or (
        isinstance(tensors, (list, tuple)) and any(isinstance(t, GradientEdge) for t in tensors))


def edges_as_tensors(tensors: Any) -> Any:
    """``mg.autograd.grad``'s inputs or outputs with each ``GradientEdge`` as :func:`edge_as_tensor` makes it."""
    if isinstance(tensors, GradientEdge):
        return edge_as_tensor(tensors)
    if holds_an_edge(tensors):
        return [edge_as_tensor(t) for t in tensors]
    return tensors
